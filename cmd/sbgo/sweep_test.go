package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sweepRow matches a line of the sweep summary table: threads, tps, qps.
var sweepRow = regexp.MustCompile(`(?m)^\s+(\d+)\s+([0-9.]+|-)\s+([0-9.]+|-)\s.*$`)

// sweepTable returns the rows of the output's sweep summary table, each
// as its fields; nil when there is no table.
func sweepTable(out string) [][]string {
	_, table, ok := strings.Cut(out, "Thread sweep summary:\n")
	if !ok {
		return nil
	}
	var rows [][]string
	for _, line := range strings.Split(table, "\n")[1:] {
		if !sweepRow.MatchString(line) {
			break
		}
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// TestSweepMySQL: --threads=1,2,4 runs three complete steps on MariaDB,
// each with its usual report, then the summary table, whose tps and qps
// are each step's report figures; the results file has the three steps.
func TestSweepMySQL(t *testing.T) {
	needMySQL(t)
	wl := withArgs([]string{"oltp_read_only", "--tables=1", "--table-size=1000"}, mysqlArgs...)
	if r := runBinary(t, sbgoBinary, append(wl, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: %s%s", r.stdout, r.stderr)
	}
	defer runBinary(t, sbgoBinary, append(wl, "cleanup")...)
	path := filepath.Join(t.TempDir(), "sweep.json")
	r := runBinary(t, sbgoBinary, append(wl, "--threads=1,2,4", "--time=1", "--results-file="+path, "run")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	threads := regexp.MustCompile(`Number of threads: (\d+)`).FindAllStringSubmatch(r.stdout, -1)
	perSec := regexp.MustCompile(`transactions: +\d+ +\(([0-9.]+) per sec\.\)\n +queries: +\d+ +\(([0-9.]+) per sec\.\)`).FindAllStringSubmatch(r.stdout, -1)
	rows := sweepTable(r.stdout)
	if len(threads) != 3 || len(perSec) != 3 || len(rows) != 3 {
		t.Fatalf("%d steps, %d reports, %d summary rows:\n%s", len(threads), len(perSec), len(rows), r.stdout)
	}
	for i, want := range []string{"1", "2", "4"} {
		if threads[i][1] != want || rows[i][0] != want {
			t.Errorf("step %d: %s threads, summary row %q", i, threads[i][1], rows[i])
		}
		if rows[i][1] != perSec[i][1] || rows[i][2] != perSec[i][2] {
			t.Errorf("step %d: summary tps/qps %s/%s, report %s/%s", i, rows[i][1], rows[i][2], perSec[i][1], perSec[i][2])
		}
	}
	doc := checkResultsSteps(t, path, 3, r.stdout, r.stderr)
	for i, want := range []int{1, 2, 4} {
		if s := doc.Steps[i]; s.Threads != want || !s.Complete || s.Totals.Reads == 0 {
			t.Errorf("file step %d: %d threads, complete %v, %d reads", i, s.Threads, s.Complete, s.Totals.Reads)
		}
	}
	if !doc.Complete || doc.Options["threads"] != "1,2,4" {
		t.Errorf("complete %v, threads option %q", doc.Complete, doc.Options["threads"])
	}
}

// TestSweepStopsAtFailedStep: the step that fails ends the sweep with
// exit 1, the summary so far and a results file marked incomplete; with
// --sweep-continue=on the next steps run all the same. Each step runs the
// script's init() and done() with its own thread count.
func TestSweepStopsAtFailedStep(t *testing.T) {
	for _, keepGoing := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "sweep.json")
		args := []string{"sweep_steps.lua", "--threads=1,2,4", "--fail_at=2", "--events=10", "--results-file=" + path}
		if keepGoing {
			args = append(args, "--sweep-continue=on")
		}
		r := runBinary(t, sbgoBinary, append(args, "run")...)
		wantSteps, wantInit := 2, "init: threads=1\ninit: threads=2\n"
		if keepGoing {
			wantSteps, wantInit = 3, wantInit+"init: threads=4\n"
		}
		var inits strings.Builder
		for _, line := range strings.SplitAfter(r.stdout, "\n") {
			if strings.HasPrefix(line, "init: ") {
				inits.WriteString(line)
			}
		}
		rows := sweepTable(r.stdout)
		if r.code != 1 || inits.String() != wantInit || len(rows) != wantSteps || !strings.Contains(r.stdout, "done: threads=1\n") {
			t.Fatalf("continue=%v: exit %d, %d summary rows, inits %q\n%s%s", keepGoing, r.code, len(rows), inits.String(), r.stdout, r.stderr)
		}
		if rows[1][1] != "-" || !strings.Contains(strings.Join(rows[1], " "), "did not run") {
			t.Errorf("continue=%v: the failed step's row is %q", keepGoing, rows[1])
		}
		doc := checkResultsSteps(t, path, wantSteps, r.stdout, r.stderr)
		if doc.Complete || doc.Steps[0].Totals.Events != 10 || doc.Steps[1].Complete {
			t.Errorf("continue=%v: complete %v, step 1 %d events, step 2 complete %v", keepGoing, doc.Complete, doc.Steps[0].Totals.Events, doc.Steps[1].Complete)
		}
		if keepGoing && (doc.Steps[2].Threads != 4 || doc.Steps[2].Totals.Events != 10) {
			t.Errorf("the step after the failed one: %+v", doc.Steps[2])
		}
	}
}

// TestSweepBadThreads: a malformed or non-positive item of the list is
// one line and exit 1, before anything runs.
func TestSweepBadThreads(t *testing.T) {
	for arg, want := range map[string]string{
		"--threads=1,x": "Invalid value for the 'threads' option: '1,x'",
		"--threads=1,":  "Invalid value for the 'threads' option: '1,'",
		"--threads=2,0": "FATAL: Invalid value for --threads: 0.",
	} {
		r := runBinary(t, sbgoBinary, "sweep_steps.lua", arg, "run")
		out := r.stdout + r.stderr
		if r.code != 1 || !strings.Contains(out, want) || strings.Contains(out, "init: ") {
			t.Errorf("%s: exit %d\n%s", arg, r.code, out)
		}
	}
}

// TestSweepInterrupted: SIGINT during the first step ends the whole
// sweep, even with --sweep-continue=on: exit 1, one step in the summary
// and in the results file, which is marked incomplete.
func TestSweepInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.json")
	cmd, out := startBinary(t, "sleepy.lua", "--threads=2,4", "--time=30", "--sweep-continue=on", "--results-file="+path, "run")
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 20*time.Second); code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	if rows := sweepTable(out.String()); len(rows) != 1 || strings.Contains(out.String(), "Number of threads: 4") {
		t.Errorf("%d summary rows after an interrupt:\n%s", len(rows), out)
	}
	doc := checkResultsSteps(t, path, 1)
	if doc.Complete || doc.Reason != "interrupted" {
		t.Errorf("complete %v, reason %q", doc.Complete, doc.Reason)
	}
}
