package main

import (
	"strings"
	"testing"
	"time"
)

// TestForcedShutdownEndsServerSleep: an event that sleeps 30 s on the
// server, with --time=1 --forced-shutdown=0, ends the process within
// seconds with sysbench's code for a forced shutdown (2), after the
// report. (A forced shutdown a second or more after the time limit never
// comes: the run's deadline, 0.8 s after it, ends the run first.) The
// bound is generous: it catches a run that waits for the sleep, not a
// slow machine.
func TestForcedShutdownEndsServerSleep(t *testing.T) {
	for _, c := range []struct {
		name  string
		need  func(*testing.T)
		args  []string
		sleep string
	}{
		{"mysql", func(t *testing.T) { needMySQL(t) }, mysqlArgs, "SELECT SLEEP(30)"},
		{"pgsql", func(t *testing.T) { needPgSQL(t) }, pgsqlArgs, "SELECT pg_sleep(30)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.need(t)
			args := append([]string{"sql_query.lua", "--query=" + c.sleep, "--threads=2", "--time=1", "--forced-shutdown=0"}, c.args...)
			cmd, out := startBinary(t, append(args, "run")...)
			if code := waitExit(t, cmd, 15*time.Second); code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, out.String())
			}
			text := out.String()
			for _, want := range []string{
				"FATAL: The --max-time limit has expired, forcing shutdown...",
				"Number of unfinished transactions on forced shutdown: 2",
				"General statistics:",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
		})
	}
}
