package engine

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fuzz targets of the command line and the config file. Their seeds
// (f.Add and testdata/fuzz) run with every go test; docs/reliability.md
// has the command of a longer run.

// FuzzParseCommandLine runs the whole option pipeline on arbitrary
// arguments the way the CLI does: the general pass, General and
// ApplyGeneral, a script's own options, then the test pass. args holds
// the arguments separated by NUL, which no real argument contains.
// Whatever the arguments, nothing panics and every error is a
// *UsageError, which is what the CLI knows how to print and exit with.
//
// A --config-file naming a file would let the fuzzer read any path on the
// machine (a FIFO, /dev/stdin) and block; its value is replaced by a file
// holding config, so the file's text is fuzzed too.
func FuzzParseCommandLine(f *testing.F) {
	seeds := []struct {
		args, config string
		legacy       bool
	}{
		{"", "", false},
		{"--threads=2\x00oltp_read_only\x00run", "", false},
		{"--threads=1,2,4\x00--time=0\x00--events=10\x00x.lua", "", false},
		{"--test=x.lua\x00--debug\x00--verbosity=9\x00prepare", "", false},
		{"--config-file=c\x00--rand-type=zipfian\x00--rand-zipfian-exp=-1", "threads=3,4\nrand-type='pareto'\n", false},
		{"--rand-zipfian-exp=1e308\x00--forced-shutdown=2147483647", "", false},
		{"--report-checkpoints=10,5,,7\x00--forced-shutdown=5%\x00--time=20", "", false},
		{"--num-threads=4\x00--max-requests=3\x00--max-time=2\x00--tx-rate=9", "", false},
		{"--my-int=abc\x00--my_size=10G\x00--unknown=1\x00--my-bool=maybe", "", true},
		{"--thread-stack-size=0\x00--percentile=0\x00--histogram", "", false},
		{"a\x00b\x00c", "", false},
	}
	for _, s := range seeds {
		f.Add(s.args, s.config, s.legacy)
	}
	cfgPath := filepath.Join(f.TempDir(), "fuzz.cfg")
	f.Fuzz(func(t *testing.T, args, config string, legacy bool) {
		argv, readsConfig := fuzzArgv(args, cfgPath)
		if readsConfig {
			if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		o := NewGeneralOptions()
		cl, err := ParseCommandLine(argv, o)
		if err != nil {
			requireUsageError(t, "ParseCommandLine", err)
			return
		}
		checkCommandLine(t, argv, cl)
		g, _, err := o.General()
		if err != nil {
			requireUsageError(t, "General", err)
			return
		}
		checkGeneral(t, g)
		o.ApplyGeneral(g)
		if err := o.Register(fuzzScriptOptions()...); err != nil {
			t.Fatalf("registering the script options: %v", err)
		}
		if _, err := o.ApplyRest(cl.Rest, legacy); err != nil {
			requireUsageError(t, "ApplyRest", err)
		}
		readEveryValue(o)
	})
}

// fuzzArgv splits args at NUL and points every non-empty --config-file
// (in any spelling of its name) at cfgPath; readsConfig tells whether
// there is one.
func fuzzArgv(args, cfgPath string) (argv []string, readsConfig bool) {
	if args == "" {
		return nil, false
	}
	argv = strings.Split(args, "\x00")
	for i, arg := range argv {
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value := splitOption(arg[2:])
		if value != nil && *value != "" && optionKey(name) == "config_file" {
			argv[i] = "--" + name + "=" + cfgPath
			readsConfig = true
		}
	}
	return argv, readsConfig
}

// checkCommandLine checks what the general pass found against argv: only
// option arguments are left for the test pass and, unless a --test=
// names the test, the positionals are the test and the command.
func checkCommandLine(t *testing.T, argv []string, cl *CommandLine) {
	for _, arg := range cl.Rest {
		if !strings.HasPrefix(arg, "--") {
			t.Errorf("Rest holds %q, which is not an option", arg)
		}
	}
	var positional []string
	for _, arg := range argv {
		if strings.HasPrefix(arg, "--test=") {
			return
		}
		if !strings.HasPrefix(arg, "--") {
			positional = append(positional, arg)
		}
	}
	if len(positional) > 0 && (!cl.HasTest || cl.Test != positional[0]) {
		t.Errorf("test = %q (%v), want %q", cl.Test, cl.HasTest, positional[0])
	}
	if len(positional) > 1 && (!cl.HasCommand || cl.Command != positional[1]) {
		t.Errorf("command = %q (%v), want %q", cl.Command, cl.HasCommand, positional[1])
	}
}

// checkGeneral checks the ranges General promises for what it accepts.
func checkGeneral(t *testing.T, g *General) {
	bad := g.Threads <= 0 || g.Events < 0 || g.Time < 0 || g.WarmupTime < 0 ||
		g.ForcedShutdown < -1 || g.ThreadStackSize <= 0 || g.ThreadInitTimeout < 0 ||
		g.Rate < 0 || g.ReportInterval < 0 || g.Percentile < 0 || g.Percentile > 100 ||
		g.ForcedShutdown > math.MaxInt32 || g.Verbosity > int(LevelDebug) ||
		!(g.RandZipfianExp >= 0) || math.IsInf(g.RandZipfianExp, 1) ||
		!slices.IsSorted(g.ReportCheckpoints) || len(g.ReportCheckpoints) > 0 && g.ReportCheckpoints[0] < 0
	for _, n := range g.ThreadSteps {
		bad = bad || n <= 0
	}
	if bad {
		t.Fatalf("General accepted values out of range: %+v", g)
	}
}

// fuzzScriptOptions are options of every type, as a script declares them.
func fuzzScriptOptions() []Option {
	return []Option{
		{Name: "my-int", Type: ArgInt, Default: Default("5")},
		{Name: "my-size", Type: ArgSize, Default: Default("1M")},
		{Name: "my-double", Type: ArgDouble, Default: Default("0.5")},
		{Name: "my-bool", Type: ArgBool, Default: Default("on")},
		{Name: "my-list", Type: ArgList, Default: Default("a,b")},
		{Name: "my-string", Type: ArgString},
	}
}

// readEveryValue reads every option the ways scripts, help and results
// files do.
func readEveryValue(o *Options) {
	for _, v := range o.All() {
		_, _, _, _, _ = v.Bool(), v.Int(), v.Size(), v.Double(), v.String()
		_, _, _ = v.List(), v.Steps(), v.Raw()
	}
	o.Resolved()
}

func requireUsageError(t *testing.T, what string, err error) {
	t.Helper()
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("%s: error %v (%T), want a *UsageError", what, err, err)
	}
	if ue.Code == 0 || ue.Msg == "" {
		t.Fatalf("%s: %#v has no exit status or no message", what, ue)
	}
}

// FuzzConfigFile applies arbitrary config file text to the general
// options and a script's: nothing panics, every error is a *UsageError,
// and General accepts or rejects what the file set. Each line's values
// also survive being written back quoted (see checkConfigValues).
func FuzzConfigFile(f *testing.F) {
	seeds := []string{
		"",
		"# a comment\nthreads=3,4\nrand-pareto-h=0.3 0.5\n",
		"my-list=a,b , c\nrand-type=\"uniform\",z\nvalidate=\ndebug=off\n",
		"zz=1\ntime = 7\nno equals sign\nconfig-file=/nonexistent\n",
		"mysql-db='sb\n",
		"threads=abc\n",
		"debug=yes\r\n",
		"my-size=10G\nmy-double=1e400\nmy-int=-2147483649\n",
		"report-checkpoints=1,2,3\nforced-shutdown=\"10%\"\ntime=100\n",
		"a='x',\"y\" # c\n=\n==\n'='\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, line := range strings.Split(text, "\n") {
			if _, rest, found := strings.Cut(line, "="); found {
				checkConfigValues(t, rest)
			}
		}
		o := NewGeneralOptions()
		if err := o.Register(fuzzScriptOptions()...); err != nil {
			t.Fatal(err)
		}
		if err := o.applyConfig("fuzz.cfg", text); err != nil {
			requireUsageError(t, "applyConfig", err)
			return
		}
		if _, _, err := o.General(); err != nil {
			requireUsageError(t, "General", err)
		}
		readEveryValue(o)
	})
}

// checkConfigValues checks splitConfigValues on the value part of one
// line: when it parses, its values written back as quoted values
// separated by commas parse to the same values.
func checkConfigValues(t *testing.T, rest string) {
	values, ok := splitConfigValues(rest)
	if !ok {
		return
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		switch {
		case !strings.Contains(v, `"`):
			quoted[i] = `"` + v + `"`
		case !strings.Contains(v, `'`):
			quoted[i] = `'` + v + `'`
		default:
			return // no quote can hold it
		}
	}
	again, ok := splitConfigValues(strings.Join(quoted, ","))
	if !ok || !slices.Equal(again, values) {
		t.Fatalf("%q gives %q; written back quoted it gives %q (%v)", rest, values, again, ok)
	}
}
