package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// snapshotTimeout bounds goreleaser's run: with Go's build cache warm it
// takes a minute or two; cold (a new machine) it first compiles
// goreleaser itself and every target.
const snapshotTimeout = 15 * time.Minute

// snapshot is what `goreleaser release --snapshot` made.
type snapshot struct {
	dist    string // its output directory
	version string // the version it stamped in
	commit  string // the commit it built
}

// TestSnapshotRelease runs `go tool goreleaser release --snapshot --clean`
// with .goreleaser.yaml (its output directory moved to a temporary one)
// and checks what a release must hold: an archive per target with the
// binary, README.md and LICENSE; checksums.txt covering every archive and
// package; a linux/amd64 binary whose --version names the release's
// version and commit; a .deb and an .rpm per Linux target, the .deb
// installing /usr/bin/sbgo.
func TestSnapshotRelease(t *testing.T) {
	s := runSnapshot(t)
	files := checkChecksums(t, s.dist)
	var archives []string
	for _, target := range Targets {
		name := "sbgo_" + s.version + "_" + target.OS + "_" + target.Arch + ".tar.gz"
		if target.OS == "windows" {
			name = strings.TrimSuffix(name, ".tar.gz") + ".zip"
		}
		archives = append(archives, name)
		if !slices.Contains(files, name) {
			t.Errorf("no archive %s for %s among the checksummed files %v", name, target, files)
			continue
		}
		members := archiveMembers(t, filepath.Join(s.dist, name))
		for _, want := range []string{target.Binary(), "README.md", "LICENSE"} {
			if !slices.Contains(members, want) {
				t.Errorf("%s holds %v, not %s", name, members, want)
			}
		}
	}
	checkVersion(t, s, filepath.Join(s.dist, archives[0]))
	checkPackages(t, s, files)
}

// runSnapshot runs goreleaser from the module's root with its output in a
// temporary directory and reads the version and commit it used.
func runSnapshot(t *testing.T) snapshot {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	moved := filepath.Join(tmp, "goreleaser.yaml")
	if err := os.WriteFile(moved, append(config, "\ndist: "+dist+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "tool", "goreleaser", "release", "--snapshot", "--clean", "--config", moved)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), originIfNone(t, root)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser: %v\n%s", err, out)
	}
	var meta struct{ Version, Commit string }
	raw, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err == nil {
		err = json.Unmarshal(raw, &meta)
	}
	if err != nil {
		t.Fatalf("dist/metadata.json: %v", err)
	}
	head := strings.TrimSpace(gitOutput(t, root, "rev-parse", "HEAD"))
	if meta.Commit != head {
		t.Errorf("goreleaser built commit %q, HEAD is %q", meta.Commit, head)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+-SNAPSHOT-[0-9a-f]{7,}$`).MatchString(meta.Version) {
		t.Errorf("snapshot version %q, want x.y.z-SNAPSHOT-<short commit>", meta.Version)
	}
	return snapshot{dist: dist, version: meta.Version, commit: meta.Commit}
}

// originIfNone names the repository itself as its remote "origin",
// through git's environment, when it has no remote: goreleaser reads the
// commit only once it has found a remote URL (a worktree made without a
// clone has none), and stamps "none" otherwise.
func originIfNone(t *testing.T, root string) []string {
	t.Helper()
	if exec.Command("git", "-C", root, "ls-remote", "--get-url").Run() == nil {
		return nil
	}
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0=" + root}
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// checkChecksums checks every line of dist/checksums.txt against the file
// it names and returns the names.
func checkChecksums(t *testing.T, dist string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", sc.Text())
		}
		names = append(names, name)
		if got := sha256File(t, filepath.Join(dist, name)); got != sum {
			t.Errorf("%s: SHA-256 %s, checksums.txt says %s", name, got, sum)
		}
	}
	return names
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// archiveMembers lists the files of a .tar.gz or .zip archive.
func archiveMembers(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	if strings.HasSuffix(path, ".zip") {
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			names = append(names, f.Name)
		}
		return names
	}
	tr, closeArchive := openTarGz(t, path)
	defer closeArchive()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		names = append(names, h.Name)
	}
}

func openTarGz(t *testing.T, path string) (*tar.Reader, func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		t.Fatalf("%s: %v", path, err)
	}
	return tar.NewReader(gz), func() { gz.Close(); f.Close() }
}

// checkVersion extracts the linux/amd64 archive's sbgo and checks that
// --version names the snapshot's version and commit.
func checkVersion(t *testing.T, s snapshot, archive string) {
	t.Helper()
	tr, closeArchive := openTarGz(t, archive)
	defer closeArchive()
	bin := filepath.Join(t.TempDir(), "sbgo")
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no sbgo in %s: %v", archive, err)
		}
		if h.Name == "sbgo" {
			writeExecutable(t, bin, tr)
			break
		}
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if want := "sysbench 1.0.20 (sbgo " + s.version + ", commit " + s.commit + ")\n"; string(out) != want {
		t.Errorf("--version printed %q, want %q", out, want)
	}
}

func writeExecutable(t *testing.T, path string, r io.Reader) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// debArch and rpmArch are Debian's and the RPM's names of the Linux
// targets' architectures.
var (
	debArch = map[string]string{"amd64": "amd64", "arm64": "arm64", "ppc64le": "ppc64el", "s390x": "s390x", "riscv64": "riscv64"}
	rpmArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "ppc64le": "ppc64le", "s390x": "s390x", "riscv64": "riscv64"}
)

// checkPackages checks that there is a .deb and an .rpm per Linux target
// among files, and that the amd64 .deb, as dpkg-deb reads it, is sbgo's
// and installs an executable /usr/bin/sbgo.
func checkPackages(t *testing.T, s snapshot, files []string) {
	t.Helper()
	pkgVersion := strings.Replace(s.version, "-", "~", 1) // a pre-release sorts first
	for _, target := range Targets {
		if target.OS != "linux" {
			continue
		}
		deb := "sbgo_" + pkgVersion + "_" + debArch[target.Arch] + ".deb"
		rpm := "sbgo-" + strings.ReplaceAll(pkgVersion, "-", "_") + "-1." + rpmArch[target.Arch] + ".rpm"
		for _, name := range []string{deb, rpm} {
			if !slices.Contains(files, name) {
				t.Errorf("no package %s for %s among %v", name, target, files)
			}
		}
	}
	deb := filepath.Join(s.dist, "sbgo_"+pkgVersion+"_amd64.deb")
	fields := dpkgDeb(t, "-f", deb, "Package", "Version", "Architecture")
	if want := "Package: sbgo\nVersion: " + pkgVersion + "\nArchitecture: amd64\n"; fields != want {
		t.Errorf("dpkg-deb -f: %q, want %q", fields, want)
	}
	contents := dpkgDeb(t, "-c", deb)
	if !regexp.MustCompile(`(?m)^-rwxr-xr-x root/root +\d+ \S+ \S+ \./usr/bin/sbgo$`).MatchString(contents) {
		t.Errorf("the .deb does not install an executable /usr/bin/sbgo:\n%s", contents)
	}
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).Output()
	if err != nil {
		t.Fatalf("dpkg-deb %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
