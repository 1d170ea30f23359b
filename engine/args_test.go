package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		test     string // "" with hasTest false: none
		hasTest  bool
		command  string
		hasCmd   bool
		commands []string // nil: just command, if hasCmd
		rest     []string
		warnings []string
		err      string // UsageError.Text(), always on stderr
		threads  int    // the value of --threads after parsing
	}{
		{
			// no arguments: no test, the script comes from stdin
			name: "empty", threads: 1,
		},
		{
			// options and positionals mix in any order
			name: "mixed", args: []string{"--threads=2", "x.lua", "--events=5", "run"},
			test: "x.lua", hasTest: true, command: "run", hasCmd: true, threads: 2,
		},
		{
			// a value only comes through '=': "4" is the test name, and
			// --threads has no value, which is 0
			name: "no space value", args: []string{"--threads", "4"},
			test: "4", hasTest: true, threads: 0,
		},
		{
			// no short options: "-h" is a test name
			name: "short option", args: []string{"-h"}, test: "-h", hasTest: true, threads: 1,
		},
		{
			// a third positional argument is a second command (sysbench:
			// "Unrecognized command line argument: baz")
			name: "third positional", args: []string{"x.lua", "run", "baz"},
			test: "x.lua", hasTest: true, command: "run", hasCmd: true, commands: []string{"run", "baz"}, threads: 1,
		},
		{
			// several commands among options, in the order given, repeats kept
			name: "commands", args: []string{"x.lua", "--threads=2", "prepare", "run", "--events=1", "cleanup", "run"},
			test: "x.lua", hasTest: true, command: "prepare", hasCmd: true, commands: []string{"prepare", "run", "cleanup", "run"}, threads: 2,
		},
		{
			// an empty argument is positional too
			name: "empty command", args: []string{"x.lua", ""},
			test: "x.lua", hasTest: true, command: "", hasCmd: true, threads: 1,
		},
		{
			// unknown options and bad booleans wait for the test pass,
			// whatever they look like
			name: "left for test pass",
			args: []string{"--bogus=1", "oltp", "--debug=xyz", "--", "--=x", "--tables"},
			test: "oltp", hasTest: true, rest: []string{"--bogus=1", "--debug=xyz", "--", "--=x", "--tables"}, threads: 1,
		},
		{
			// the last occurrence wins; names mix '-' and '_'
			name: "last wins", args: []string{"--threads=2", "--threads=3", "--thread_stack-size=32K"},
			threads: 3,
		},
		{
			// an INT that does not parse fails at once (sysbench fails later)
			name: "bad int", args: []string{"--threads=abc", "--threads=2"},
			err: "Invalid value for the 'threads' option: 'abc'\n",
		},
		{
			// an INT out of 32-bit range
			name: "int range", args: []string{"--events=3000000000"},
			err: "Invalid value for the 'events' option: '3000000000'\n",
		},
		{
			// --test= names the test, with a warning, and stays for the test pass
			name: "test option", args: []string{"--test=x.lua", "run"},
			test: "x.lua", hasTest: true, command: "run", hasCmd: true, rest: []string{"--test=x.lua"},
			warnings: []string{testOptionWarning}, threads: 1,
		},
		{
			// --test= replaces a positional test; the next positional is the command
			name: "test option after positional", args: []string{"foo", "--test=x.lua", "run"},
			test: "x.lua", hasTest: true, command: "run", hasCmd: true, rest: []string{"--test=x.lua"},
			warnings: []string{testOptionWarning}, threads: 1,
		},
		{
			// with --test= first, two positionals are two commands
			name: "test option then two positionals", args: []string{"--test=x.lua", "foo", "run"},
			test: "x.lua", hasTest: true, command: "foo", hasCmd: true, commands: []string{"foo", "run"}, rest: []string{"--test=x.lua"},
			warnings: []string{testOptionWarning}, threads: 1,
		},
		{
			// an empty --test= means no test: stdin
			name: "empty test option", args: []string{"--test="},
			rest: []string{"--test="}, warnings: []string{testOptionWarning}, threads: 1,
		},
		{
			// "--test" without '=' is an ordinary unknown option
			name: "bare test", args: []string{"--test", "x.lua"},
			test: "x.lua", hasTest: true, rest: []string{"--test"}, threads: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewGeneralOptions()
			cl, err := ParseCommandLine(tt.args, o)
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || ue.Text() != tt.err || !ue.Stderr || ue.Code != 1 {
					t.Fatalf("err = %v, want %q on stderr", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cl.Test != tt.test || cl.HasTest != tt.hasTest || cl.Command != tt.command || cl.HasCommand != tt.hasCmd {
				t.Errorf("test %q/%v command %q/%v; want %q/%v %q/%v",
					cl.Test, cl.HasTest, cl.Command, cl.HasCommand, tt.test, tt.hasTest, tt.command, tt.hasCmd)
			}
			commands := tt.commands
			if commands == nil && tt.hasCmd {
				commands = []string{tt.command}
			}
			if !slices.Equal(cl.Commands, commands) {
				t.Errorf("commands %q, want %q", cl.Commands, commands)
			}
			for i, at := range cl.CommandArgs {
				if tt.args[at] != cl.Commands[i] {
					t.Errorf("command %d %q is at %d, where %q is", i, cl.Commands[i], at, tt.args[at])
				}
			}
			if !slices.Equal(cl.Rest, tt.rest) || !slices.Equal(cl.Warnings, tt.warnings) {
				t.Errorf("rest %q warnings %q; want %q %q", cl.Rest, cl.Warnings, tt.rest, tt.warnings)
			}
			if v, _ := o.Lookup("threads"); v.Int() != tt.threads {
				t.Errorf("threads = %d, want %d", v.Int(), tt.threads)
			}
		})
	}
}

func TestReadsStdin(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, true},                       // no test name
		{[]string{"-"}, true},             // "-"
		{[]string{"-", "run"}, true},      // "-" even with a command
		{[]string{"x.lua"}, false},        // a script
		{[]string{"--test=x.lua"}, false}, // a script through --test
	}
	for _, tt := range tests {
		cl, err := ParseCommandLine(tt.args, NewGeneralOptions())
		if err != nil {
			t.Fatal(err)
		}
		if cl.ReadsStdin() != tt.want {
			t.Errorf("%q: ReadsStdin() = %v", tt.args, cl.ReadsStdin())
		}
	}
}

// scriptOptions are options a script declares, registered before the test
// pass.
var scriptOptions = []Option{
	{Name: "tables", Type: ArgDouble, Default: Default("1")},
	{Name: "skip_trx", Type: ArgBool, Default: Default("off")},
	{Name: "count", Type: ArgInt, Default: Default("5")},
}

func TestApplyRest(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		acceptUnknown bool
		err           string // UsageError.Text(), on stderr
		added         []string
		check         func(o *Options) bool
	}{
		{
			// script options given before or after the script name
			name: "script options", args: []string{"--tables=4", "x.lua", "--skip-trx", "run", "--count=+7"},
			check: func(o *Options) bool {
				return optValue(o, "tables").Double() == 4 && optValue(o, "skip_trx").Bool() && optValue(o, "count").Int() == 7
			},
		},
		{
			// an option still unknown (spec §1.16)
			name: "unknown", args: []string{"x.lua", "--bogus=1"},
			err: "invalid option: --bogus=1\n",
		},
		{
			// a known option with a bad boolean value
			name: "bad bool", args: []string{"x.lua", "--debug=xyz"},
			err: "invalid option: --debug=xyz\n",
		},
		{
			// a declared number that does not parse: one clear line
			name: "bad double", args: []string{"x.lua", "--tables=abc"},
			err: "Invalid value for the 'tables' option: 'abc'\n",
		},
		{
			// an empty number is "no value", 0
			name: "empty double", args: []string{"x.lua", "--tables="},
			check: func(o *Options) bool { return optValue(o, "tables").Double() == 0 },
		},
		{
			// a legacy script takes unknown options as strings; a bare one is ""
			name: "legacy", args: []string{"x.lua", "--oltp-table-size=500", "--oltp-skip-trx", "--oltp_table_size=600"},
			acceptUnknown: true, added: []string{"oltp_table_size", "oltp_skip_trx"},
			check: func(o *Options) bool {
				v := optValue(o, "oltp-table-size")
				return v.String() == "600" && v.Opt.Type == ArgString && optValue(o, "oltp_skip_trx").String() == ""
			},
		},
		{
			// a legacy script still rejects a bad boolean for a known option
			name: "legacy bad bool", args: []string{"x.lua", "--debug=yes"}, acceptUnknown: true,
			err: "invalid option: --debug=yes\n",
		},
		{
			// --test= comes back and is known by then
			name: "test option", args: []string{"--test=x.lua"},
			check: func(o *Options) bool { return optValue(o, "test").String() == "x.lua" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewGeneralOptions()
			cl, err := ParseCommandLine(tt.args, o)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.acceptUnknown {
				mustOpt(t, o.Register(scriptOptions...))
			}
			added, err := o.ApplyRest(cl.Rest, tt.acceptUnknown)
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || ue.Text() != tt.err || !ue.Stderr || ue.Code != 1 {
					t.Fatalf("err = %v, want %q on stderr", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range added {
				names = append(names, v.Name())
			}
			if !slices.Equal(names, tt.added) {
				t.Errorf("added %q, want %q", names, tt.added)
			}
			if tt.check != nil && !tt.check(o) {
				t.Error("unexpected option values")
			}
		})
	}
}

func optValue(o *Options, name string) *Value {
	v, ok := o.Lookup(name)
	if !ok {
		return &Value{}
	}
	return v
}

func TestSplitConfigValues(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"4", []string{"4"}, true},
		{"", nil, true},                                // no values
		{"  7", []string{"7"}, true},                   // leading space skipped
		{"a,b", []string{"a", "b"}, true},              // comma separates
		{"a b\tc", []string{"a", "b", "c"}, true},      // so does white space
		{"a,b , c", []string{"a", "b", "", "c"}, true}, // a gap yields an empty value (spec §1.4)
		{"a, b", []string{"a", "b"}, true},             // but a space after a comma does not
		{"a,", []string{"a"}, true},                    // a trailing comma adds nothing
		{"a # comment", []string{"a"}, true},           // '#' at a value's start ends the line
		{"a#b", []string{"a#b"}, true},                 // but not inside a value
		{`"a b,c" x`, []string{"a b,c"}, true},         // a quoted value; the rest up to ',' is skipped
		{`'x',"y"`, []string{"x", "y"}, true},          // both quotes
		{`"a"junk,b`, []string{"a", "b"}, true},        // text after the closing quote is dropped
		{`""`, []string{""}, true},                     // an empty quoted value
		{"a\r", []string{"a"}, true},                   // a CRLF line
		{`"open`, nil, false},                          // unclosed quote
		{`a,'open`, nil, false},                        //
	}
	for _, tt := range tests {
		got, ok := splitConfigValues(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("splitConfigValues(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// writeConfigFile writes a config file in a temporary directory.
func writeConfigFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.cfg")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigFile(t *testing.T) {
	const cfg = "# a comment line\n" +
		"threads=3,4\n" + // an INT takes the first value
		"rand-pareto-h=0.3 0.5\n" + // a DOUBLE the last
		"mysql-host=a,b , c\n" + // a LIST all of them
		"rand-type=\"uniform\",z\n" + // a STRING the first
		"validate=\n" + // a BOOL with no value is off
		"debug=off\n" + // and off is off (sysbench: on)
		"histogram=on\n" +
		"zz=1\n" + // an unknown name is kept, type NULL
		"time = 7\n" + // the name is not trimmed: "time "
		"no equals sign\n" +
		"config-file=/nonexistent\n" // not followed
	path := writeConfigFile(t, cfg)
	o := NewGeneralOptions()
	mustOpt(t, o.Register(Option{Name: "mysql-host", Type: ArgList, Default: Default("localhost")}))
	mustOpt(t, o.Set("debug", nil))
	if _, err := ParseCommandLine([]string{"--config-file=" + path}, o); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ok   bool
	}{
		{"threads", optValue(o, "threads").Int() == 3},
		{"rand_pareto_h", optValue(o, "rand_pareto_h").Double() == 0.5},
		{"mysql_host", slices.Equal(optValue(o, "mysql_host").List(), []string{"a", "b", "", "c"})},
		{"rand_type", optValue(o, "rand_type").String() == "uniform"},
		{"validate", !optValue(o, "validate").Bool()},
		{"debug", !optValue(o, "debug").Bool()},
		{"histogram", optValue(o, "histogram").Bool()},
		{"zz", optValue(o, "zz").Opt.Type == ArgNull && optValue(o, "zz").String() == "1"},
		{"time ", optValue(o, "time ").Opt.Type == ArgNull && optValue(o, "time").Int() == 10},
		{"config_file", optValue(o, "config_file").String() == "/nonexistent"}, // set, not read
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s has the wrong value", tt.name)
		}
	}
}

// TestConfigFilePosition checks that a config file overrides the options
// before it and is overridden by those after it, and that a script's
// registration overrides it (spec §1.4 pitfall).
func TestConfigFilePosition(t *testing.T) {
	path := writeConfigFile(t, "threads=3\nevents=9\nmy_int=42\n")
	o := NewGeneralOptions()
	cl, err := ParseCommandLine([]string{"--threads=2", "--events=1", "--config-file=" + path, "--events=5", "x.lua"}, o)
	if err != nil {
		t.Fatal(err)
	}
	mustOpt(t, o.Register(Option{Name: "my_int", Type: ArgInt, Default: Default("5")}))
	if _, err := o.ApplyRest(cl.Rest, false); err != nil {
		t.Fatal(err)
	}
	if got := []int{optValue(o, "threads").Int(), optValue(o, "events").Int(), optValue(o, "my_int").Int()}; !slices.Equal(got, []int{3, 5, 5}) {
		t.Errorf("threads, events, my_int = %v; want [3 5 5]", got)
	}
}

func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name string
		text string // file contents; "" means no file
		want string // UsageError.Text() with PATH for the file's path
	}{
		{
			// sysbench prints perror and carries on; sbgo stops
			"missing", "",
			"Cannot open config file 'PATH': no such file or directory\n",
		},
		{
			// an unclosed quote
			"unclosed quote", "threads=2\nmysql-db='sb\n",
			"unexpected EOL on line 2 of config file 'PATH'\n",
		},
		{
			// an INT that does not parse
			"bad int", "\nthreads=abc\n",
			"Invalid value for the 'threads' option: 'abc' (config file 'PATH', line 2)\n",
		},
		{
			// a bad boolean
			"bad bool", "debug=yes\r\n",
			"invalid option: debug=yes (config file 'PATH', line 1)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing.cfg")
			if tt.text != "" {
				path = writeConfigFile(t, tt.text)
			}
			_, err := ParseCommandLine([]string{"--config-file=" + path}, NewGeneralOptions())
			want := strings.ReplaceAll(tt.want, "PATH", path)
			var ue *UsageError
			if !errors.As(err, &ue) || ue.Text() != want || !ue.Stderr || ue.Code != 1 {
				t.Fatalf("err = %v, want %q on stderr", err, want)
			}
		})
	}
}

// TestConfigFileNoValue checks that "--config-file" with no value, or an
// empty one, reads nothing.
func TestConfigFileNoValue(t *testing.T) {
	for _, arg := range []string{"--config-file", "--config-file="} {
		if _, err := ParseCommandLine([]string{arg}, NewGeneralOptions()); err != nil {
			t.Errorf("%s: %v", arg, err)
		}
	}
}

func TestUsageErrorText(t *testing.T) {
	tests := []struct {
		err  UsageError
		text string
	}{
		{UsageError{Msg: "m", Code: 1}, "m\n"},                                        // plain
		{UsageError{Msg: "m", Fatal: true, Code: 1}, "FATAL: m\n"},                    // prefixed
		{UsageError{Msg: "m", Fatal: true, BlankLine: true, Code: 1}, "FATAL: m\n\n"}, // and a blank line
	}
	for _, tt := range tests {
		if got := tt.err.Text(); got != tt.text {
			t.Errorf("Text() = %q, want %q", got, tt.text)
		}
		if got := tt.err.Error(); got != strings.TrimRight(tt.text, "\n") {
			t.Errorf("Error() = %q", got)
		}
	}
}
