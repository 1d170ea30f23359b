package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sbgo/internal/headless"
)

// compareFixtures are package compare's recorded runs, as paths from the
// directory runBinary runs in.
var compareFixtures = []string{
	"../compare/testdata/fast-sleepy.json", "../compare/testdata/fast-jitter.json",
	"../compare/testdata/slow-sleepy.json", "../compare/testdata/slow-jitter.json",
}

// TestCompareCommand: `sbgo compare` writes the table in each format,
// options before, between or after the files; its golden output is
// package compare's.
func TestCompareCommand(t *testing.T) {
	args := append([]string{"compare", "--metric=tps"}, compareFixtures[:2]...)
	args = append(append(args, "--format", "text"), compareFixtures[2:]...)
	r := runBinary(t, sbgoBinary, append(args, "--metric", "p95,p99")...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"\ntps: transactions per second, ratio to [1]\n", "\np95: ", "\np99: ", "[1] 1 ms sleeps  [2] 2 ms sleeps  vs [1]"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, r.stdout)
		}
	}
	rows, cols := checkFormats(t, "--metric=tps", compareFixtures)
	if rows != 6 || cols != 2 {
		t.Errorf("%d rows and %d runs, want 6 and 2", rows, cols)
	}
	help := runBinary(t, sbgoBinary, "compare", "--help")
	if help.code != 0 || !strings.HasPrefix(help.stdout, "Usage: sbgo compare") {
		t.Errorf("--help: exit %d\n%s%s", help.code, help.stdout, help.stderr)
	}
}

// checkFormats runs `sbgo compare` on files in every format and checks
// that they agree: the markdown and text tables have the CSV's rows, the
// JSON its values. It returns the number of rows and of runs.
func checkFormats(t *testing.T, metric string, files []string) (rows, runs int) {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{"text", "markdown", "csv", "json"} {
		r := runBinary(t, sbgoBinary, append([]string{"compare", metric, "--format=" + f}, files...)...)
		if r.code != 0 {
			t.Fatalf("--format=%s: exit %d\n%s%s", f, r.code, r.stdout, r.stderr)
		}
		out[f] = r.stdout
	}
	records, err := csv.NewReader(strings.NewReader(out["csv"])).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v\n%s", err, out["csv"])
	}
	var doc struct {
		Runs    []struct{ Header string }
		Metrics []struct {
			Rows []struct {
				Workload string
				Threads  int
				Cells    []*struct{ Value float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatalf("the JSON does not parse: %v\n%s", err, out["json"])
	}
	rows, runs = len(records)-1, len(doc.Runs)
	if len(doc.Metrics) != 1 || len(doc.Metrics[0].Rows) != rows {
		t.Fatalf("JSON: %d metrics, CSV: %d rows\n%s", len(doc.Metrics), rows, out["json"])
	}
	for i, rec := range records[1:] {
		jr := doc.Metrics[0].Rows[i]
		first := rec[3]
		if first == "" {
			first = "-" // a missing step: empty in CSV, a dash in the tables
		}
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(rec[1]) + ` +` + rec[2] + ` +` + regexp.QuoteMeta(first) + `( |$)`)
		if !line.MatchString(out["text"]) {
			t.Errorf("text has no row %q:\n%s", rec, out["text"])
		}
		if !strings.Contains(out["markdown"], "| "+rec[1]+" | "+rec[2]+" | "+first+" |") {
			t.Errorf("markdown has no row %q:\n%s", rec, out["markdown"])
		}
		if jr.Workload != rec[1] || (jr.Cells[0] == nil) != (rec[3] == "") {
			t.Errorf("JSON row %+v, CSV %q", jr, rec)
		}
	}
	return rows, runs
}

// TestCompareBadInput: each bad file is one line on stderr and the exit
// code is 1; so are bad options and two steps that would share a cell.
func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"schema_version": 2, "steps": []}`), 0o644)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("not json\n"), 0o644)
	for _, c := range []struct {
		name  string
		args  []string
		lines []string
	}{
		{"bad files", []string{"compare", newer, compareFixtures[0], notes, filepath.Join(dir, "gone.json")}, []string{
			"sbgo compare: " + newer + ": results schema version 2 is not supported (this sbgo reads up to 1)",
			"sbgo compare: " + notes + ": not an sbgo results file",
			"sbgo compare: open " + filepath.Join(dir, "gone.json") + ": no such file or directory",
		}},
		{"duplicate", []string{"compare", compareFixtures[0], compareFixtures[0]}, []string{
			`sbgo compare: ../compare/testdata/fast-sleepy.json and ../compare/testdata/fast-sleepy.json both hold sleepy at 1 thread for run "1 ms sleeps": give them different --results-label values`,
		}},
		{"baseline", []string{"compare", "--baseline=3", compareFixtures[0], compareFixtures[2]}, []string{
			"sbgo compare: --baseline=3: there are 2 runs (columns), numbered from 1",
		}},
		{"metric", []string{"compare", "--metric=p50", compareFixtures[0]}, []string{
			`sbgo compare: unknown metric "p50" (one of tps, qps, p95, p99, max, errors)`,
		}},
		{"option", []string{"compare", "--colour=on", compareFixtures[0]}, []string{
			"sbgo compare: unknown option --colour (sbgo compare --help lists the options)",
		}},
		{"report without -o", []string{"report", compareFixtures[0]}, []string{
			"sbgo report: -o FILE is required: report.html, or FILE.svg for one chart",
		}},
		{"report of a bad file", []string{"report", "-o", filepath.Join(dir, "r.html"), notes}, []string{
			"sbgo report: " + notes + ": not an sbgo results file",
		}},
	} {
		r := runBinary(t, sbgoBinary, c.args...)
		if r.code != 1 || r.stdout != "" || r.stderr != strings.Join(c.lines, "\n")+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 1 and\n%s", c.name, r.code, r.stdout, r.stderr, strings.Join(c.lines, "\n"))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a failed report left a file behind")
	}
}

// TestReportCommand: `sbgo report` writes the HTML page and a single
// chart as SVG.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	page, svg := filepath.Join(dir, "report.html"), filepath.Join(dir, "tps.svg")
	r := runBinary(t, sbgoBinary, append([]string{"report", "-o", page}, compareFixtures...)...)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	html, _ := os.ReadFile(page)
	for _, want := range []string{"<!DOCTYPE html>", `id="chart-sleepy-tps-threads"`, `id="chart-jitter-4t-percentiles"`, "<h3>max: maximum latency (ms), ratio to [1]</h3>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	r = runBinary(t, sbgoBinary, append([]string{"report", "--chart=sleepy-2t-tps", "--output=" + svg}, compareFixtures...)...)
	data, _ := os.ReadFile(svg)
	if r.code != 0 || !strings.Contains(string(data), "<svg") || !strings.Contains(string(data), "sleepy at 2 threads: tps") {
		t.Errorf("--chart: exit %d, %d bytes\n%s", r.code, len(data), r.stderr)
	}
}

// TestCompareMySQL is the acceptance: two labelled runs on
// MariaDB of oltp_read_only and oltp_read_write, each a sweep of 1, 2 and
// 4 threads, compare as 6 rows by 2 runs in every format, and the report
// of them renders in chromium.
func TestCompareMySQL(t *testing.T) {
	needMySQL(t)
	dir := t.TempDir()
	var files []string
	prepareOLTP(t, mysqlArgs)
	for _, label := range []string{"first", "second"} {
		for _, w := range []string{"oltp_read_only", "oltp_read_write"} {
			files = append(files, sweepRun(t, dir, mysqlArgs, w, label))
		}
	}
	rows, runs := checkFormats(t, "--metric=tps", files)
	if rows != 6 || runs != 2 {
		t.Errorf("%d rows and %d runs, want 6 and 2", rows, runs)
	}
	r := runBinary(t, sbgoBinary, append([]string{"compare", "--metric=tps,p95"}, files...)...)
	for _, want := range []string{"[1] first  [2] second  vs [1]", "MariaDB", "oltp_read_write        4"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, r.stdout)
		}
	}
	renderReport(t, dir, files)
}

// TestComparePgSQLAndMySQL: runs of one workload on PostgreSQL and on
// MariaDB stand side by side, in the same rows.
func TestComparePgSQLAndMySQL(t *testing.T) {
	needMySQL(t)
	needPgSQL(t)
	dir := t.TempDir()
	prepareOLTP(t, mysqlArgs)
	prepareOLTP(t, pgsqlArgs)
	files := []string{
		sweepRun(t, dir, mysqlArgs, "oltp_read_only", "mariadb"),
		sweepRun(t, dir, pgsqlArgs, "oltp_read_only", "postgresql"),
	}
	rows, runs := checkFormats(t, "--metric=qps", files)
	if rows != 3 || runs != 2 {
		t.Errorf("%d rows and %d runs, want 3 and 2", rows, runs)
	}
	r := runBinary(t, sbgoBinary, append([]string{"compare", "--format=csv", "--metric=tps"}, files...)...)
	for _, n := range []string{"1", "2", "4"} {
		if !regexp.MustCompile(`(?m)^tps,oltp_read_only,` + n + `,[0-9.]+,[0-9.]+,[0-9.]+$`).MatchString(r.stdout) {
			t.Errorf("no row of both servers at %s threads:\n%s", n, r.stdout)
		}
	}
	legend := runBinary(t, sbgoBinary, append([]string{"compare"}, files...)...).stdout
	if !regexp.MustCompile(`\[1\]  mariadb +[^ ]*MariaDB[^ ]* \(mysql 127.0.0.1:3306\)`).MatchString(legend) ||
		!regexp.MustCompile(`\[2\]  postgresql +[0-9.]+.* \(pgsql 127.0.0.1:5432\)`).MatchString(legend) {
		t.Errorf("the legend does not name both servers:\n%s", legend)
	}
	renderReport(t, dir, files)
}

// prepareOLTP makes the small table the comparison runs use, and drops
// it when the test ends.
func prepareOLTP(t *testing.T, conn []string) {
	t.Helper()
	wl := withArgs([]string{"oltp_read_write", "--tables=1", "--table-size=1000"}, conn...)
	runBinary(t, sbgoBinary, append(wl, "cleanup")...)
	if r := runBinary(t, sbgoBinary, append(wl, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: %s%s", r.stdout, r.stderr)
	}
	t.Cleanup(func() { runBinary(t, sbgoBinary, append(wl, "cleanup")...) })
}

// sweepRun runs workload at 1, 2 and 4 threads for a second each and
// returns its results file.
func sweepRun(t *testing.T, dir string, conn []string, workload, label string) string {
	t.Helper()
	path := filepath.Join(dir, label+"-"+workload+".json")
	args := withArgs(withArgs([]string{workload, "--tables=1", "--table-size=1000", "--threads=1,2,4", "--time=1",
		"--results-label=" + label, "--results-file=" + path}, wlTimedIgnore...), conn...)
	if r := runBinary(t, sbgoBinary, append(args, "run")...); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", workload, r.code, r.stdout, r.stderr)
	}
	return path
}

// renderReport writes the report of files and has chromium render it:
// no console message, and a picture that is not blank.
func renderReport(t *testing.T, dir string, files []string) {
	t.Helper()
	page := filepath.Join(dir, "report.html")
	if r := runBinary(t, sbgoBinary, append([]string{"report", "-o", page}, files...)...); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	browser := headless.Browser(t)
	png := filepath.Join(dir, "report.png")
	console, err := headless.Screenshot(browser, page, png, 1400, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if distinct, nonWhite, err := headless.Colors(png); err != nil || distinct < 50 || nonWhite < 0.02 {
		t.Errorf("the screenshot looks blank: %d colors, %.3f not white (%v)", distinct, nonWhite, err)
	}
}
