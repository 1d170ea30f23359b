package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sbgo/results"
	"sbgo/results/schema"
)

// resultsSecret is the password the results tests connect with: a string
// that appears nowhere else, so that finding it anywhere is a leak.
const resultsSecret = "Rz7-results-pw"

// checkResultsFile reads and checks a results file: it validates against
// the schema, no secret leaks into it nor into the output, the points add
// up to the totals, the percentiles are ordered within min..max, and the
// stored histogram gives back the same figures.
func checkResultsFile(t *testing.T, path string, outputs ...string) *results.Document {
	t.Helper()
	return checkResultsSteps(t, path, 1, outputs...)
}

// checkResultsSteps is checkResultsFile for a document of steps steps,
// each checked alike.
func checkResultsSteps(t *testing.T, path string, steps int, outputs ...string) *results.Document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(data); err != nil {
		t.Fatalf("the results file does not validate: %v\n%s", err, data)
	}
	for i, text := range append(outputs, string(data)) {
		if strings.Contains(text, resultsSecret) {
			t.Errorf("the password appears in output %d", i)
		}
	}
	doc, err := results.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Steps) != steps {
		t.Fatalf("%d steps, want %d", len(doc.Steps), steps)
	}
	for _, step := range doc.Steps {
		checkPointsAddUp(t, "seconds", step.Seconds, step.Totals)
		if len(step.Intervals) > 0 {
			checkPointsAddUp(t, "intervals", step.Intervals, step.Totals)
		}
		checkLatency(t, step.Latency)
	}
	return doc
}

func checkPointsAddUp(t *testing.T, name string, points []results.Point, want results.Totals) {
	t.Helper()
	var sum results.Totals
	for _, p := range points {
		sum.Events += p.Events
		sum.Reads += p.Reads
		sum.Writes += p.Writes
		sum.Other += p.Other
	}
	if sum.Events != want.Events || sum.Reads != want.Reads || sum.Writes != want.Writes || sum.Other != want.Other {
		t.Errorf("%s add up to %+v, totals are %+v", name, sum, want)
	}
}

func checkLatency(t *testing.T, l results.Latency) {
	t.Helper()
	prev := l.Min
	for _, p := range results.ReportedPercentiles {
		v := l.Percentiles[results.PercentileKey(p)]
		if v < prev || v > l.Max {
			t.Errorf("p%v = %v ms out of order or outside min..max (%v .. %v)", p, v, l.Min, l.Max)
		}
		prev = v
	}
	h, err := results.DecodeHistogram(l.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	again, err := results.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range l.Percentiles {
		if again.Percentiles[k] != v {
			t.Errorf("p%s is %v in the file, %v from its histogram", k, v, again.Percentiles[k])
		}
	}
	if again.Count != l.Count || again.Max != l.Max {
		t.Errorf("the histogram holds %d values up to %v ms, the file says %d up to %v", again.Count, again.Max, l.Count, l.Max)
	}
}

// runResultsWorkload prepares oltp_read_only with prepareArgs, runs it for
// 3 s with runArgs and a results file, cleans up and returns the file's
// document.
func runResultsWorkload(t *testing.T, prepareArgs, runArgs []string) *results.Document {
	t.Helper()
	wl := []string{"oltp_read_only", "--tables=1", "--table-size=1000"}
	if r := runBinary(t, sbgoBinary, append(withArgs(wl, prepareArgs...), "prepare")...); r.code != 0 {
		t.Fatalf("prepare: %s%s", r.stdout, r.stderr)
	}
	defer runBinary(t, sbgoBinary, append(withArgs(wl, prepareArgs...), "cleanup")...)
	path := filepath.Join(t.TempDir(), "results.json")
	args := withArgs(wl, runArgs...)
	args = append(args, "--threads=2", "--time=3", "--report-interval=1", "--results-file="+path, "--results-label=test run", "run")
	r := runBinary(t, sbgoBinary, args...)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	doc := checkResultsFile(t, path, r.stdout, r.stderr)
	if !doc.Complete || doc.Label != "test run" || doc.Script.Name != "oltp_read_only" || len(doc.Script.SHA256) != 64 {
		t.Errorf("complete %v, label %q, script %+v", doc.Complete, doc.Label, doc.Script)
	}
	s := doc.Steps[0]
	if s.Threads != 2 || s.Totals.Reads == 0 || len(s.Seconds) < 3 || len(s.Intervals) < 3 {
		t.Errorf("threads %d, totals %+v, %d seconds, %d intervals", s.Threads, s.Totals, len(s.Seconds), len(s.Intervals))
	}
	return doc
}

// mysqlUserWithPassword makes a MariaDB user with all rights on sbtest,
// dropped when the test ends, and returns the options to connect as it.
func mysqlUserWithPassword(t *testing.T, admin *sql.DB, user, password string) []string {
	t.Helper()
	for _, q := range []string{
		"DROP USER IF EXISTS '" + user + "'@'%'",
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'",
		"GRANT ALL ON sbtest.* TO '" + user + "'@'%'",
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	return []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306",
		"--mysql-user=" + user, "--mysql-password=" + password, "--mysql-db=sbtest"}
}

// TestResultsFileMySQL: a bundled workload on MariaDB leaves a valid,
// consistent results file that names the server, with the password of a
// user made for the test masked everywhere.
func TestResultsFileMySQL(t *testing.T) {
	admin := needMySQL(t)
	conn := mysqlUserWithPassword(t, admin, "sbgo_results", resultsSecret)
	doc := runResultsWorkload(t, mysqlArgs, conn)
	srv := doc.Server
	if srv == nil || srv.Driver != "mysql" || srv.Host != "127.0.0.1" || srv.Port != 3306 || !strings.Contains(srv.Version, "MariaDB") {
		t.Errorf("server %+v", srv)
	}
	if doc.Options["mysql-password"] != results.Masked || !strings.Contains(strings.Join(doc.CommandLine, " "), "--mysql-password=***") {
		t.Errorf("password not masked: %v %q", doc.Options["mysql-password"], doc.CommandLine)
	}
}

// TestResultsFilePgSQL: the same on PostgreSQL (which trusts local
// connections, so any password is accepted and must still be masked).
func TestResultsFilePgSQL(t *testing.T) {
	needPgSQL(t)
	conn := withArgs(pgsqlArgs[:len(pgsqlArgs)-2], "--pgsql-password="+resultsSecret, "--pgsql-db=sbtest")
	doc := runResultsWorkload(t, pgsqlArgs, conn)
	srv := doc.Server
	if srv == nil || srv.Driver != "pgsql" || srv.Port != 5432 || srv.Version == "" {
		t.Errorf("server %+v", srv)
	}
	if doc.Options["pgsql-password"] != results.Masked {
		t.Errorf("password not masked: %q", doc.Options["pgsql-password"])
	}
}

// TestResultsFileFailedRun: a run whose event fails leaves a valid file
// marked incomplete, with the reason.
func TestResultsFileFailedRun(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fails.lua")
	os.WriteFile(script, []byte("local n = 0\nfunction event()\n  n = n + 1\n  if n > 5 then error('boom') end\nend\n"), 0o644)
	path := filepath.Join(dir, "results.json")
	r := runBinary(t, sbgoBinary, script, "--results-file="+path, "run")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	doc := checkResultsFile(t, path)
	if doc.Complete || doc.Steps[0].Complete || !strings.Contains(doc.Reason, "boom") {
		t.Errorf("complete %v, reason %q", doc.Complete, doc.Reason)
	}
}

// TestResultsFileInterrupted: SIGINT leaves a valid file marked
// incomplete; SIGKILL leaves the previous content whole.
func TestResultsFileInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	cmd, out := startBinary(t, "sleepy.lua", "--time=30", "--threads=2", "--results-file="+path, "run")
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 20*time.Second); code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	doc := checkResultsFile(t, path)
	if doc.Complete || doc.Reason != "interrupted" || doc.Steps[0].Totals.Events == 0 {
		t.Errorf("complete %v, reason %q, totals %+v", doc.Complete, doc.Reason, doc.Steps[0].Totals)
	}
	before, _ := os.ReadFile(path)
	cmd, _ = startBinary(t, "sleepy.lua", "--time=30", "--results-file="+path, "run")
	time.Sleep(time.Second)
	cmd.Process.Kill()
	cmd.Wait()
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("SIGKILL changed the results file")
	}
}

// TestResultsFileStdout: "-" writes the document to stdout, after the
// report.
func TestResultsFileStdout(t *testing.T) {
	r := runBinary(t, sbgoBinary, "sleepy.lua", "--events=20", "--results-file=-", "run")
	i := strings.Index(r.stdout, "{\n")
	if r.code != 0 || i < 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if err := schema.Validate([]byte(r.stdout[i:])); err != nil {
		t.Error(err)
	}
}

// TestResultsFilesMerge: the histograms of two runs' files merge into the
// latencies of both: a run of 1 ms events and one of 100 ms events.
func TestResultsFilesMerge(t *testing.T) {
	dir := t.TempDir()
	var encoded []string
	var count int64
	for _, ms := range []string{"1", "100"} {
		path := filepath.Join(dir, ms+".json")
		if r := runBinary(t, sbgoBinary, "sleepy.lua", "--sleep_ms="+ms, "--threads=10", "--events=100", "--results-file="+path, "run"); r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		doc := checkResultsFile(t, path)
		encoded = append(encoded, doc.Steps[0].Latency.Histogram)
		count += doc.Steps[0].Latency.Count
	}
	h, err := results.Merge(encoded...)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := results.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	// Half the events sleep 1 ms, half 100 ms: the 25th percentile is the
	// middle of the short ones (well below 100 ms even on a loaded
	// machine), the 90th a long one (no sleep is shorter than asked).
	if lat.Count != 200 || count != 200 || lat.Min < 1 || float64(h.ValueAtPercentile(25))/1e6 >= 100 || lat.Percentiles["90"] < 100 {
		t.Errorf("merged %d values (files: %d): %+v", lat.Count, count, lat.Percentiles)
	}
}

// TestResultsFileOnlyForRun: a command that runs no events (a custom
// one, prepare) warns that it writes no results file, and writes none.
func TestResultsFileOnlyForRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	r := runBinary(t, sbgoBinary, "commands.lua", "--results-file="+path, "show")
	if r.code != 0 || !strings.Contains(r.stderr, "WARNING: --results-file is written only by the run command; 'show' runs no events") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a results file was written: %v", err)
	}
}

// TestResultsFileCheckpoints: --report-checkpoints reset the text
// report's counts, not the results file's: its totals are the whole run's,
// so the points still add up to them and every event's latency is in the
// histogram.
func TestResultsFileCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	r := runBinary(t, sbgoBinary, "sleepy.lua", "--time=3", "--report-checkpoints=1,2", "--results-file="+path, "run")
	if r.code != 0 || strings.Count(r.stdout, "General statistics:") != 3 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	last := reportNumber(t, r.stdout[strings.LastIndex(r.stdout, "General statistics:"):], "total number of events")
	s := checkResultsFile(t, path).Steps[0]
	if s.Latency.Count != int64(s.Totals.Events) || s.Totals.Events <= uint64(last) {
		t.Errorf("file: %d events, %d latencies; last checkpoint's report: %v events", s.Totals.Events, s.Latency.Count, last)
	}
}
