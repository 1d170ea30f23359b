package main

import (
	"strings"
	"testing"
)

// TestCommandLineErrors covers every row of sysbench's catalogue of
// command-line errors (spec §1.16) and sbgo's stricter rules: the message,
// the stream it goes to and the exit code. Expected texts were checked
// against /usr/bin/sysbench 1.0.20 where sysbench reports the same error.
func TestCommandLineErrors(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stdout string // a line that must appear on stdout ("" for none)
		stderr string // a line that must appear on stderr ("" for none)
		code   int
	}{
		// A third positional argument is a second command; an unknown
		// one stops the invocation before any command runs (sysbench:
		// "Unrecognized command line argument: extra").
		{"third positional", []string{"empty.lua", "run", "extra"}, "", "Unknown command: extra", 1},
		// An option the script does not declare, when it declares some.
		{"unknown option", []string{"commands.lua", "--bogus=1", "help"}, "", "invalid option: --bogus=1", 1},
		// A known boolean with a bad value.
		{"bad boolean", []string{"empty.lua", "--debug=xyz", "run"}, "", "invalid option: --debug=xyz", 1},
		// An INT option that does not parse.
		{"int does not parse", []string{"--threads=abc", "empty.lua", "run"}, "", "Invalid value for the 'threads' option: 'abc'", 1},
		// A test that is neither a file nor a module.
		{"unknown test", []string{"x.lua", "run"}, "FATAL: Cannot find benchmark 'x.lua': no such built-in test, file or module", "", 1},
		// A command nobody implements.
		{"unknown command", []string{"empty.lua", "foo"}, "", "Unknown command: foo", 1},
		// A built-in command the script does not implement.
		{"prepare not implemented", []string{"empty.lua", "prepare"}, "", "'empty.lua' test does not implement the 'prepare' command.", 1},
		{"help not implemented", []string{"empty.lua", "help"}, "", "'empty.lua' test does not implement the 'help' command.", 1},
		// run without event().
		{"no event", []string{"noevent.lua", "run"}, "FATAL: cannot find the event() function in noevent.lua", "", 1},
		// --threads <= 0, before the banner.
		{"zero threads", []string{"empty.lua", "--threads=0", "run"}, "FATAL: Invalid value for --threads: 0.", "", 1},
		// A bad verbosity, before the banner and without prefix.
		{"bad verbosity", []string{"--verbosity=6", "empty.lua", "run"}, "Invalid value for verbosity: 6", "", 1},
		// Percentile out of range and its conflict with --histogram.
		{"percentile range", []string{"empty.lua", "--percentile=101", "run"}, "FATAL: Invalid value for --percentile: 101", "", 1},
		{"histogram without percentile", []string{"empty.lua", "--histogram", "--percentile=0", "run"}, "FATAL: --histogram cannot be used with --percentile=0", "", 1},
		// Malformed forced shutdown, checkpoints, distribution.
		{"forced shutdown", []string{"empty.lua", "--forced-shutdown=abc", "run"}, "FATAL: Invalid value for --forced-shutdown: 'abc'", "", 1},
		{"checkpoints", []string{"empty.lua", "--report-checkpoints=a", "run"}, "FATAL: Invalid value for --report-checkpoints: 'a'", "", 1},
		{"rand type", []string{"empty.lua", "--rand-type=foo", "run"}, "FATAL: Invalid random numbers distribution: foo.", "", 1},
		// Stricter than sysbench: negative time (sysbench runs forever).
		{"negative time", []string{"empty.lua", "--time=-1", "run"}, "FATAL: Invalid value for --time: -1.", "", 1},
		// sbgo has none of sysbench's built-in C tests (cpu, fileio, ...):
		// such a name is an unknown test.
		{"no built-in tests", []string{"cpu", "run"}, "FATAL: Cannot find benchmark 'cpu': no such built-in test, file or module", "", 1},
		// Stricter than sysbench: a malformed number for a script option
		// declared with a number default (sysbench silently uses 0).
		{"script number does not parse", []string{"commands.lua", "--rows=abc", "help"}, "", "Invalid value for the 'rows' option: 'abc'", 1},
		// Stricter than sysbench: a missing config file (sysbench goes on).
		{"missing config file", []string{"--config-file=/nonexistent/sbgo.cfg", "empty.lua", "run"}, "", "/nonexistent/sbgo.cfg", 1},
		// The deprecated --test= still works, with sysbench's warning.
		{"deprecated --test", []string{"--test=empty.lua", "--events=1", "run"}, "total number of events:              1", "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.", 0},
		// Both limits off: a warning, and the run goes on (here, until
		// its single thread returns true from event()).
		{"endless warning", []string{"lifecycle.lua", "--time=0", "run"}, "WARNING: Both event and time limits are disabled, running an endless test", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, sbgoBinary, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout != "" && !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, r.stdout)
			}
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
			if tc.code != 0 && r.stdout+r.stderr == "" {
				t.Errorf("failed without a message")
			}
		})
	}
}
