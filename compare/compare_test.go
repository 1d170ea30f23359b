package compare

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/<name>.golden, or rewrites the
// file with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compare -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// fixtures are the recorded runs (testdata/record.sh): two labelled runs
// of two workloads each, and an unlabelled run interrupted in its
// second step.
var fixtures = []string{
	"testdata/fast-sleepy.json", "testdata/fast-jitter.json",
	"testdata/slow-sleepy.json", "testdata/slow-jitter.json",
	"testdata/interrupted.json",
}

func readFixtures(t *testing.T, paths ...string) []File {
	t.Helper()
	files, errs := Read(paths)
	for _, err := range errs {
		t.Fatal(err)
	}
	return files
}

func newTable(t *testing.T, baseline int, paths ...string) *Table {
	t.Helper()
	tab, err := New(readFixtures(t, paths...), baseline)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func write(t *testing.T, tab *Table, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, tab, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGolden locks every layout of the fixtures' comparison.
func TestGolden(t *testing.T) {
	all, _ := ParseMetrics([]string{"tps,p95", "errors"})
	for _, c := range []struct {
		name     string
		format   Format
		metrics  []Metric
		baseline int
		ratio    RatioStyle
	}{
		{"text_tps", Text, nil, 0, Times},         // the default: tps, ratios to run 1
		{"text_all", Text, all, 0, Times},         // several metrics, a block each
		{"text_percent", Text, nil, 1, Percent},   // baseline run 2, ratios in percent
		{"markdown_all", Markdown, all, 0, Times}, // the same blocks as markdown tables
		{"csv_all", CSV, all, 0, Times},           // one CSV table, plain numbers
		{"json_all", JSON, all, 0, Times},         // structured, null for a missing step
	} {
		t.Run(c.name, func(t *testing.T) {
			metrics := c.metrics
			if metrics == nil {
				metrics, _ = ParseMetrics(nil)
			}
			tab := newTable(t, c.baseline, fixtures...)
			checkGolden(t, c.name, write(t, tab, Options{Format: c.format, Metrics: metrics, Ratio: c.ratio}))
		})
	}
}

// TestPairing: a cell holds only the step of its own workload and thread
// count; a run without one has none, whatever the other runs hold.
func TestPairing(t *testing.T) {
	tab := newTable(t, 0, fixtures...)
	tps := Metrics[0]
	for _, c := range []struct {
		run  int
		key  Key
		want bool
	}{
		{0, Key{"sleepy", 4}, true},  // run 1 swept sleepy to 4 threads
		{1, Key{"sleepy", 4}, false}, // run 2 stopped at 2
		{1, Key{"jitter", 1}, false}, // run 2 swept jitter from 2
		{1, Key{"jitter", 4}, true},  // ... to 4
		{0, Key{"jitter", 4}, false}, // which run 1 never ran
		{2, Key{"sleepy", 2}, true},  // the interrupted step is there, marked
		{2, Key{"sleepy", 4}, false}, // the step after it never ran
		{2, Key{"jitter", 2}, false}, // run 3 has no jitter at all
	} {
		_, ok := tab.Cell(tps, c.run, c.key)
		if ok != c.want {
			t.Errorf("run %d, %v: cell %v, want %v", c.run+1, c.key, ok, c.want)
		}
	}
	if len(tab.Runs) != 3 || len(tab.Keys) != 6 {
		t.Errorf("%d runs and %d rows, want 3 and 6", len(tab.Runs), len(tab.Keys))
	}
	c, _ := tab.Cell(tps, 2, Key{"sleepy", 2})
	if c.Complete {
		t.Error("the interrupted step's cell is complete")
	}
	base, _ := tab.Cell(tps, 0, Key{"sleepy", 1})
	other, _ := tab.Cell(tps, 1, Key{"sleepy", 1})
	if base.HasRatio || !other.HasRatio || other.Ratio != other.Value/base.Value {
		t.Errorf("ratios: baseline %+v, other %+v", base, other)
	}
}

// TestRunsByLabel: files of one label form one column whatever their
// order; unlabelled files are columns of their own, headed by their
// names, or their paths where two names are the same.
func TestRunsByLabel(t *testing.T) {
	files := readFixtures(t, "testdata/slow-jitter.json", "testdata/fast-sleepy.json", "testdata/interrupted.json", "testdata/slow-sleepy.json")
	twin := File{Path: "elsewhere/interrupted.json", Doc: files[2].Doc}
	tab, err := New(append(files, twin), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Runs {
		got = append(got, r.Header)
	}
	want := []string{"2 ms sleeps", "1 ms sleeps", "testdata/interrupted.json", "elsewhere/interrupted.json"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("headers %q, want %q", got, want)
	}
	if n := len(tab.Runs[0].Files); n != 2 {
		t.Errorf("the 2 ms run has %d files, want 2", n)
	}
	if w := tab.Workloads(); strings.Join(w, ",") != "jitter,sleepy" {
		t.Errorf("workloads in order %q, want jitter first: it came first", w)
	}
}

// TestDuplicateStep: two files of one run that hold the same workload
// and thread count are an error naming both, never a silent pick.
func TestDuplicateStep(t *testing.T) {
	files := readFixtures(t, "testdata/fast-sleepy.json", "testdata/fast-sleepy.json")
	files[1].Path = "copy.json"
	_, err := New(files, 0)
	if err == nil {
		t.Fatal("no error for two sleepy steps of 1 thread in one run")
	}
	for _, part := range []string{"testdata/fast-sleepy.json", "copy.json", "sleepy at 1 thread", `"1 ms sleeps"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
}

// TestBadFiles: every file that cannot be used is one error line naming
// it; the good ones are read all the same.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"schema_version": 99, "steps": []}`), 0o644)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("tps went up\nthen down\n"), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"name": "a package.json"}`), 0o644)
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"schema_version": 1, "steps": [{"threads": "many"}]}`), 0o644)
	missing := filepath.Join(dir, "missing.json")
	files, errs := Read([]string{newer, "testdata/fast-sleepy.json", text, other, broken, missing})
	if len(files) != 1 || files[0].Path != "testdata/fast-sleepy.json" {
		t.Errorf("read %d files, want the one good one", len(files))
	}
	for i, c := range []struct{ path, why string }{
		{newer, "schema version 99 is not supported"}, // a newer schema
		{text, "not an sbgo results file"},            // not JSON
		{other, "not an sbgo results file"},           // JSON of something else
		{broken, "not an sbgo results file"},          // a results file of wrong types
		{missing, "no such file"},                     // unreadable
	} {
		if i >= len(errs) {
			t.Fatalf("%d errors, want 5: %v", len(errs), errs)
		}
		msg := errs[i].Error()
		if !strings.Contains(msg, c.path) || !strings.Contains(msg, c.why) || strings.Contains(msg, "\n") {
			t.Errorf("error %q: want one line naming %s and %q", msg, c.path, c.why)
		}
	}
}

// TestSourcesDiffer: a workload run from two different sources is noted
// under the tables.
func TestSourcesDiffer(t *testing.T) {
	files := readFixtures(t, "testdata/fast-sleepy.json", "testdata/slow-sleepy.json")
	edited := *files[1].Doc
	edited.Script.SHA256 = strings.Repeat("0", 64)
	files[1].Doc = &edited
	tab, err := New(files, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := write(t, tab, Options{Format: Text, Metrics: Metrics[:1]})
	if !strings.Contains(out, "sleepy: the runs ran different sources of the script") {
		t.Errorf("no note of the edited script:\n%s", out)
	}
	same := newTable(t, 0, "testdata/fast-sleepy.json", "testdata/slow-sleepy.json")
	if out := write(t, same, Options{Format: Text, Metrics: Metrics[:1]}); strings.Contains(out, "different sources") {
		t.Errorf("a note for one and the same script:\n%s", out)
	}
}

// TestOptionErrors: bad option values are errors that say what is
// accepted.
func TestOptionErrors(t *testing.T) {
	if _, err := New(readFixtures(t, fixtures...), 3); err == nil || !strings.Contains(err.Error(), "--baseline=4: there are 3 runs") {
		t.Errorf("baseline 4 of 3 runs: %v", err)
	}
	if _, err := ParseMetrics([]string{"tps,p50"}); err == nil || !strings.Contains(err.Error(), `unknown metric "p50"`) {
		t.Errorf("metric p50: %v", err)
	}
	if _, err := ParseFormat("html"); err == nil {
		t.Error("format html accepted")
	}
	if _, err := ParseRatioStyle("fraction"); err == nil {
		t.Error("ratio style fraction accepted")
	}
	m, err := ParseMetrics([]string{"qps, max", "p99"})
	if err != nil || len(m) != 3 || m[0].Name != "qps" || m[1].Name != "max" || m[2].Name != "p99" {
		t.Errorf("qps, max and p99: %v %v", m, err)
	}
}

// TestJSONCells: the JSON layout holds the numbers themselves, null for a
// missing step and no ratio in the baseline's column.
func TestJSONCells(t *testing.T) {
	tab := newTable(t, 0, fixtures...)
	var doc jsonDoc
	if err := json.Unmarshal([]byte(write(t, tab, Options{Format: JSON, Metrics: Metrics[:1]})), &doc); err != nil {
		t.Fatal(err)
	}
	row := doc.Metrics[0].Rows[1] // sleepy at 2 threads
	s, _ := tab.Step(0, Key{"sleepy", 2})
	want := float64(s.Step.Totals.Transactions) / s.Step.Totals.TotalTime
	if row.Threads != 2 || row.Cells[0].Value != want || row.Cells[0].Ratio != nil {
		t.Errorf("baseline cell %+v, want value %v and no ratio", row.Cells[0], want)
	}
	if c := row.Cells[2]; c == nil || c.Complete || c.Ratio == nil {
		t.Errorf("interrupted cell %+v, want incomplete with a ratio", c)
	}
	if doc.Metrics[0].Rows[2].Cells[1] != nil {
		t.Error("run 2 has a cell for sleepy at 4 threads")
	}
}
