package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files from the real sysbench 1.0.20:
//
//	go test ./cmd/sbgo -run TestSameOutputAsSysbench -update
var update = flag.Bool("update", false, "record golden files with /usr/bin/sysbench")

// sbgoBinary is built once by TestMain.
var sbgoBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "sbgo-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sbgoBinary = filepath.Join(dir, "sbgo")
	build := exec.Command("go", "build", "-o", sbgoBinary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building sbgo:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one invocation printed.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs bin with args in the testdata directory.
func runBinary(t *testing.T, bin string, args ...string) result {
	t.Helper()
	return runBinaryWith(t, bin, nil, "", args...)
}

// runBinaryWith runs bin with extra environment variables and stdin.
func runBinaryWith(t *testing.T, bin string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../../testdata"
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	return result{out.String(), errb.String(), code}
}

var (
	numberRe = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	barRe    = regexp.MustCompile(`\|\**\s*`)
	padRe    = regexp.MustCompile(` +N`)
)

// mask makes two runs' outputs comparable: the banner names the binary,
// every number varies from run to run (and so does the padding of
// right-aligned ones), histogram bars vary with the numbers, and how many intermediate reports or histogram rows appear
// depends on timing, so runs of identical masked lines collapse to one.
func mask(s string) string {
	lines := strings.Split(s, "\n")
	banner := bannerIndex(lines)
	var out []string
	for i, l := range lines {
		if i == banner {
			l = "<banner>"
		}
		l = numberRe.ReplaceAllString(l, "N")
		l = barRe.ReplaceAllString(l, "|<bar> ")
		// Right-aligned numbers of different widths.
		l = padRe.ReplaceAllString(l, " N")
		if l != "" && len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		out = append(out, l)
	}
	// With --rate each report is a pair of lines: collapse repeated
	// pairs (A B A B becomes A B) too.
	var res []string
	for _, l := range out {
		res = append(res, l)
		if n := len(res); n >= 4 && res[n-1] == res[n-3] && res[n-2] == res[n-4] {
			res = res[:n-2]
		}
	}
	return strings.Join(res, "\n")
}

// goldenCases are Lua-only scripts run with the same arguments under
// sysbench 1.0.20 (recorded) and sbgo.
var goldenCases = []struct {
	name  string
	args  []string
	exact bool     // deterministic output: compare every character but the banner
	env   []string // extra environment
	stdin string
}{
	// A script on stdin only runs its body, whatever the command.
	{name: "stdin_prepare", args: []string{"-", "prepare"}, exact: true, stdin: `print("from stdin", sysbench.cmdline.script_path, sysbench.cmdline.command)`},
	{name: "stdin_no_test", args: nil, exact: true, stdin: `print("from stdin", type(sysbench.rand.uniform))`},
	// A module found through LUA_PATH, with ";;" standing for the default.
	{name: "lua_path", args: []string{"requires.lua", "help"}, exact: true, env: []string{"LUA_PATH=./lib/?.lua;;"}},
	// Load-time and init() errors.
	{name: "syntax_error", args: []string{"syntax_error.lua", "run"}, exact: true},
	{name: "init_error", args: []string{"init_error.lua", "run"}, exact: true},
	// A script that replaces thread_run.
	{name: "thread_run", args: []string{"thread_run.lua", "--threads=2", "run"}},
	// Legacy scripts see options as globals, typed as sysbench types them.
	{name: "legacy_globals", args: []string{"legacy_opts.lua", "--oltp-table-size=77", "--threads=3", "help"}, exact: true},
	// The API as a script sees it: keys, constants, option typing and
	// values, legacy globals, the main state's random numbers, help.
	{name: "api_probe", args: []string{"api_probe.lua", "--an-int=7", "--a_bool=off", "--dash_name=3.25", "--a-list=p,,q", "probe"}, exact: true},
	{name: "api_probe_help", args: []string{"api_probe.lua", "help"}, exact: true},
	{name: "api_probe_defaults", args: []string{"api_probe.lua", "probe"}, exact: true},
	// What the general options write back: deprecated aliases copied onto
	// their successors (one at its default, not), --debug's verbosity.
	{name: "api_probe_aliases", args: []string{"api_probe.lua", "--num-threads=3", "--max-time=4", "--max-requests=0", "--tx-rate=2", "--debug", "probe"}, exact: true},
	// A config file, overridden by what follows it on the command line.
	{name: "config_file", args: []string{"--config-file=probe.cfg", "api_probe.lua", "--percentile=50", "probe"}, exact: true},
	// The engine alone: intermediate lines, histogram, final report.
	{name: "empty_run", args: []string{"empty.lua", "--threads=4", "--time=3", "--report-interval=1", "--histogram", "run"}, exact: false},
	// Random numbers, random strings and string.format per event.
	{name: "strings_rand_run", args: []string{"strings_rand.lua", "--threads=4", "--time=3", "--report-interval=1", "--histogram", "run"}, exact: false},
	// Report hooks replace both the intermediate and the final report.
	{name: "hooks_run", args: []string{"hooks.lua", "--threads=4", "--time=3", "--report-interval=1", "--histogram", "run"}, exact: false},
	// The built-in formatters as hooks: CSV lines, then a JSON array.
	{name: "formatters_run", args: []string{"formatters.lua", "--threads=2", "--time=2", "--report-interval=1", "run"}, exact: false},
	// The custom-commands script's own run.
	{name: "commands_run", args: []string{"commands.lua", "--threads=4", "--time=3", "--report-interval=1", "--histogram", "run"}, exact: false},
	// Custom commands: parallel, serial, failing; the built-in ones.
	{name: "commands_load", args: []string{"commands.lua", "--threads=4", "load"}, exact: false},
	{name: "commands_load_serial", args: []string{"commands.lua", "--rows=7", "load"}, exact: false},
	{name: "commands_show", args: []string{"commands.lua", "show"}, exact: false},
	{name: "commands_fail", args: []string{"commands.lua", "fail"}, exact: false},
	{name: "commands_help", args: []string{"commands.lua", "help"}, exact: false},
	{name: "commands_prepare", args: []string{"commands.lua", "prepare"}, exact: false},
	{name: "commands_cleanup", args: []string{"commands.lua", "cleanup"}, exact: false},
	{name: "commands_unknown", args: []string{"commands.lua", "bogus"}, exact: false},
	// Percentile off, checkpoints, a rate limit.
	{name: "empty_checkpoints", args: []string{"empty.lua", "--time=3", "--report-checkpoints=2,1", "run"}, exact: false},
	{name: "empty_percentile0", args: []string{"empty.lua", "--time=1", "--percentile=0", "run"}, exact: false},
	{name: "empty_rate", args: []string{"empty.lua", "--time=2", "--rate=100", "--report-interval=1", "run"}, exact: false},
	{name: "empty_events", args: []string{"empty.lua", "--events=1000", "--time=0", "--threads=2", "run"}, exact: false},
}

func goldenPath(name string) string { return filepath.Join("testdata", name+".golden") }

func formatGolden(args []string, r result, exact bool) string {
	m := mask
	if exact {
		m = maskBanner
	}
	return fmt.Sprintf("# sysbench %s\n# exit %d\n--- stdout\n%s\n--- stderr\n%s\n",
		strings.Join(args, " "), r.code, m(r.stdout), m(r.stderr))
}

// maskBanner replaces only the banner line, which names the binary.
func maskBanner(s string) string {
	lines := strings.Split(s, "\n")
	if i := bannerIndex(lines); i >= 0 && i < len(lines)-1 {
		lines[i] = "<banner>"
	}
	return strings.Join(lines, "\n")
}

// bannerIndex is the index of the banner line, -1 if there is none: the
// first line, or the first after the command line's warnings, which
// sysbench prints before it.
func bannerIndex(lines []string) int {
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "WARNING: "):
			continue
		case strings.HasPrefix(l, "sysbench ") || strings.HasPrefix(l, "sbgo "):
			return i
		}
		return -1
	}
	return -1
}

// TestSameOutputAsSysbench runs each case under sbgo and compares its
// masked output with what sysbench 1.0.20 printed for the same command.
func TestSameOutputAsSysbench(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if *update {
				ref := runBinaryWith(t, "/usr/bin/sysbench", tc.env, tc.stdin, tc.args...)
				if err := os.WriteFile(goldenPath(tc.name), []byte(formatGolden(tc.args, ref, tc.exact)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(goldenPath(tc.name))
			if err != nil {
				t.Fatalf("no golden file (run with -update where sysbench is installed): %v", err)
			}
			got := formatGolden(tc.args, runBinaryWith(t, sbgoBinary, tc.env, tc.stdin, tc.args...), tc.exact)
			if got != string(want) {
				t.Errorf("sbgo %s differs from sysbench 1.0.20 (masked):\n%s", strings.Join(tc.args, " "), diff(string(want), got))
			}
		})
	}
}

// diff shows the first lines where two texts differ, with context.
func diff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  sysbench: %q\n  sbgo:     %q\n", i+1, wl, gl)
			if shown++; shown >= 8 {
				break
			}
		}
	}
	return b.String()
}

// TestLuaPathWithoutDefault checks that LUA_PATH without ";;" replaces
// the search path, and that the error lists where require looked, as
// LuaJIT's does (sysbench also lists C module paths, which sbgo has not).
func TestLuaPathWithoutDefault(t *testing.T) {
	r := runBinaryWith(t, sbgoBinary, []string{"LUA_PATH=./nowhere/?.lua"}, "", "requires.lua", "help")
	for _, want := range []string{
		"FATAL: requires.lua:2: module 'helper_mod' not found:\n",
		"\tno file './nowhere/helper_mod.lua'\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
}

// TestRestartEventCountsOnce runs event() that raises sysbench's restart
// error on every third attempt: the hook sees each restart, and an event
// that was restarted counts once (successful attempts = events).
func TestRestartEventCountsOnce(t *testing.T) {
	r := runBinary(t, sbgoBinary, "restart.lua", "--events=300", "--threads=2", "run")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	var succeeded int
	for _, m := range regexp.MustCompile(`attempts=([0-9]+) restarts=([0-9]+)`).FindAllStringSubmatch(r.stdout, -1) {
		a, _ := strconv.Atoi(m[1])
		rs, _ := strconv.Atoi(m[2])
		if rs != a/3 {
			t.Errorf("%d attempts but %d restarts seen by the hook", a, rs)
		}
		succeeded += a - rs
	}
	if !strings.Contains(r.stdout, "total number of events:              300\n") || succeeded != 300 {
		t.Errorf("%d successful attempts; report:\n%s", succeeded, r.stdout)
	}
}

// TestVersion checks `--version`: the second word is the sysbench version
// sbgo reproduces, as wrapper scripts that choose between the 0.5 and 1.0
// syntax read it, and the built binary (which carries its module list)
// has the LuaJIT-compatible VM handlers, so no note follows.
func TestVersion(t *testing.T) {
	r := runBinary(t, sbgoBinary, "--version")
	if want := "sysbench 1.0.20 (sbgo " + Version + ")\n"; r.stdout != want || r.code != 0 {
		t.Errorf("exit %d, stdout %q, want exit 0, %q", r.code, r.stdout, want)
	}
	if out, err := exec.Command("/usr/bin/sysbench", "--version").Output(); err == nil {
		if got, ref := strings.Fields(r.stdout)[1], strings.Fields(string(out))[1]; got != ref {
			t.Errorf("second word %q, sysbench's %q", got, ref)
		}
	}
}

// TestVMPatchesInBinary runs `..` and a call of a nil global in the built
// binary, where the version check reads the real build information.
func TestVMPatchesInBinary(t *testing.T) {
	script := "print(1/3 .. '|' .. 1/0 .. '|' .. 7 % 3)\nprint(pcall(function() return undefined_fn() end))\n"
	r := runBinaryWith(t, sbgoBinary, nil, script, "-")
	for _, want := range []string{
		"0.33333333333333|inf|1\n",
		"false\tstdin:2: attempt to call global 'undefined_fn' (a nil value)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}
