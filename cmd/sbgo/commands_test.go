package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeveralCommands: `sbgo SCRIPT prepare run cleanup` performs the
// commands in the order given, each printing what it prints alone; the
// first failure ends the invocation with its exit code; an unknown
// command ends it before any command runs.
func TestSeveralCommands(t *testing.T) {
	t.Run("same as one by one", func(t *testing.T) {
		commands := []string{"prepare", "show", "load", "show", "cleanup"}
		var want result
		for _, c := range commands {
			r := runBinary(t, sbgoBinary, "commands.lua", "--rows=2", c)
			if r.code != 0 {
				t.Fatalf("%s alone: exit %d\n%s%s", c, r.code, r.stdout, r.stderr)
			}
			want.stdout += r.stdout
			want.stderr += r.stderr
		}
		got := runBinary(t, sbgoBinary, append([]string{"commands.lua", "--rows=2"}, commands...)...)
		if got != want {
			t.Errorf("together:\n%+v\none by one:\n%+v", got, want)
		}
	})
	t.Run("run twice with a JSON report", func(t *testing.T) {
		// report_json's array closes when the script's state does: after
		// each run, not at the end of the invocation.
		args := []string{"formatters.lua", "--events=3"}
		one := runBinary(t, sbgoBinary, append(args, "run")...)
		two := runBinary(t, sbgoBinary, append(args, "run", "run")...)
		if two.code != 0 || mask(two.stdout) != mask(one.stdout+one.stdout) {
			t.Errorf("exit %d; run run:\n%s\nrun, twice:\n%s", two.code, two.stdout, one.stdout+one.stdout)
		}
	})
	t.Run("stops at the first failure", func(t *testing.T) {
		r := runBinary(t, sbgoBinary, "commands.lua", "prepare", "fail", "cleanup")
		if r.code != 1 {
			t.Errorf("exit %d, want fail's 1", r.code)
		}
		if !strings.Contains(r.stdout, "prepare() in thread 0\n") || !strings.Contains(r.stdout, "failing command\n") {
			t.Errorf("prepare and fail did not both run:\n%s", r.stdout)
		}
		if strings.Contains(r.stdout, "cleanup()") {
			t.Errorf("cleanup ran after a failed command:\n%s", r.stdout)
		}
	})
	t.Run("unknown command first", func(t *testing.T) {
		r := runBinary(t, sbgoBinary, "commands.lua", "prepare", "bogus", "cleanup")
		if r.code != 1 || r.stderr != "Unknown command: bogus\n" {
			t.Errorf("exit %d, stderr %q; want 1 and the unknown command", r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "prepare()") {
			t.Errorf("prepare ran before the unknown command was found:\n%s", r.stdout)
		}
	})
	t.Run("run between", func(t *testing.T) {
		results := filepath.Join(t.TempDir(), "results.json")
		r := runBinary(t, sbgoBinary, "commands.lua", "--events=5", "--results-file="+results, "prepare", "run", "cleanup")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		prep := strings.Index(r.stdout, "prepare() in thread 0")
		events := strings.Index(r.stdout, "total number of events:              5\n")
		clean := strings.Index(r.stdout, "cleanup() in thread 0")
		if prep < 0 || events < prep || clean < events {
			t.Errorf("not prepare, run, cleanup in order:\n%s", r.stdout)
		}
		if _, err := os.Stat(results); err != nil {
			t.Errorf("run wrote no results file: %v", err)
		}
	})
}
