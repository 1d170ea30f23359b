package release

import (
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestTargetsAreGoreleasers: the targets the tests build are those of
// .goreleaser.yaml, so that a platform added to the one is checked by the
// other.
func TestTargetsAreGoreleasers(t *testing.T) {
	config, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?m)^    targets:\n((?:      - \w+\n)+)`).FindSubmatch(config)
	if block == nil {
		t.Fatal("no targets list in .goreleaser.yaml")
	}
	var got, want []string
	for _, m := range regexp.MustCompile(`- (\w+)_(\w+)`).FindAllSubmatch(block[1], -1) {
		got = append(got, string(m[1])+"/"+string(m[2]))
	}
	for _, target := range Targets {
		want = append(want, target.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf(".goreleaser.yaml builds %v, Targets are %v", got, want)
	}
}

// machines are the instruction sets of the targets' architectures as each
// executable format names them.
var machines = map[string]struct {
	elf   elf.Machine
	macho macho.Cpu
	pe    uint16
}{
	"amd64":   {elf.EM_X86_64, macho.CpuAmd64, pe.IMAGE_FILE_MACHINE_AMD64},
	"arm64":   {elf.EM_AARCH64, macho.CpuArm64, pe.IMAGE_FILE_MACHINE_ARM64},
	"ppc64le": {elf: elf.EM_PPC64},
	"s390x":   {elf: elf.EM_S390},
	"riscv64": {elf: elf.EM_RISCV},
}

// TestCrossCompile builds sbgo for every target without cgo and checks
// that each binary is an executable of the target's format and
// instruction set, that the ELF ones are static (no interpreter), so
// that they run on any distribution, and that each was optimised with
// cmd/sbgo/default.pgo.
func TestCrossCompile(t *testing.T) {
	dir := t.TempDir()
	for _, target := range Targets {
		t.Run(target.OS+"_"+target.Arch, func(t *testing.T) {
			bin, err := Build(target, dir)
			if err != nil {
				t.Fatal(err)
			}
			checkExecutable(t, target, bin)
			checkProfileGuided(t, bin)
		})
	}
}

// checkProfileGuided fails t unless bin was built with the profile that
// `go build` finds beside the main package (testdata/bench/pgo.sh writes
// it): a release built without it would run the Lua-heavy paths slower
// (docs/performance.md, "Profile-guided optimisation").
func checkProfileGuided(t *testing.T, bin string) {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			if filepath.Base(s.Value) != "default.pgo" {
				t.Errorf("built with -pgo=%s, want cmd/sbgo/default.pgo", s.Value)
			}
			return
		}
	}
	t.Errorf("built without a profile (no -pgo setting), want cmd/sbgo/default.pgo")
}

// checkExecutable fails t unless bin is an executable for target.
func checkExecutable(t *testing.T, target Target, bin string) {
	t.Helper()
	want, ok := machines[target.Arch]
	if !ok {
		t.Fatalf("no machine type known for %s", target.Arch)
	}
	switch target.OS {
	case "darwin":
		f, err := macho.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Type != macho.TypeExec || f.Cpu != want.macho {
			t.Errorf("Mach-O type %v for %v, want an executable for %v", f.Type, f.Cpu, want.macho)
		}
	case "windows":
		f, err := pe.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Machine != want.pe || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			t.Errorf("PE machine %#x, characteristics %#x; want an executable for %#x", f.Machine, f.Characteristics, want.pe)
		}
	default:
		checkELF(t, target, bin, want.elf)
	}
}

// checkELF fails t unless bin is a static ELF executable for machine,
// marked for FreeBSD when target is.
func checkELF(t *testing.T, target Target, bin string, machine elf.Machine) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC || f.Machine != machine {
		t.Errorf("ELF type %v for %v, want an executable for %v", f.Type, f.Machine, machine)
	}
	if abi := f.OSABI == elf.ELFOSABI_FREEBSD; abi != (target.OS == "freebsd") {
		t.Errorf("ELF OS ABI %v for %s", f.OSABI, target)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s is dynamically linked (program header %v)", bin, p.Type)
		}
	}
}
