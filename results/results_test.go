package results

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sbgo/results/schema"
)

// example is a document with every field set, as a run of two steps
// would leave it.
func example(t *testing.T) *Document {
	t.Helper()
	step := func(threads int, base int64) Step {
		h := NewHistogram()
		for i := int64(1); i <= 1000; i++ {
			Record(h, base+i*1000)
		}
		lat, err := Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.FixedZone("CET", 3600))
		return Step{
			Threads: threads, Complete: true, Start: start, End: start.Add(2 * time.Second),
			Totals: Totals{Transactions: 1000, Events: 1000, Reads: 14000, Writes: 4000, Other: 2000,
				IgnoredErrors: 1, TotalTime: 2, EventsAvg: 1000 / float64(threads), ExecTimeAvg: 1.9},
			Latency: lat,
			Errors:  []ErrorCount{{Code: "1213", Count: 1, Message: "Deadlock found"}},
			Seconds: []Point{
				{Time: 1, Seconds: 1, Events: 500, Reads: 7000, Writes: 2000, Other: 1000, Threads: threads, P50: 0.5, P95: 0.9, P99: 1, Max: 1, Histogram: lat.Histogram},
				{Time: 2, Seconds: 1, Events: 500, Reads: 7000, Writes: 2000, Other: 1000, Errors: 1, Threads: threads, P50: 0.5, P95: 0.9, P99: 1, Max: 1},
			},
		}
	}
	return &Document{
		SchemaVersion: SchemaVersion, Tool: Tool{Name: "sbgo", Version: "0.1.0"}, Label: "MariaDB 10.11",
		Complete: true, CommandLine: []string{"sbgo", "oltp_read_write", "--mysql-password=***", "run"},
		Script:  Script{Name: "oltp_read_write", SHA256: strings.Repeat("ab", 32)},
		Options: map[string]string{"threads": "1,2", "mysql-password": Masked},
		Start:   time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 2, 10, 0, 5, 0, time.UTC),
		Host:   Host{Name: "client", OS: "linux", Arch: "amd64", CPUs: 2},
		Server: &Server{Driver: "mysql", Version: "10.11.19-MariaDB", Host: "127.0.0.1", Port: 3306},
		Steps:  []Step{step(1, 0), step(2, 500_000)},
	}
}

// TestDocumentRoundTrip: a written document validates against the schema
// and reads back equal, its histograms giving the same percentiles.
func TestDocumentRoundTrip(t *testing.T) {
	doc := example(t)
	doc.Steps[1].Totals.AmbiguousCommits = 2 // only when some commit was in doubt
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, doc, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(data); err != nil {
		t.Fatalf("the written document does not validate: %v\n%s", err, data)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Start.Equal(doc.Start) || back.Label != doc.Label || len(back.Steps) != 2 {
		t.Fatalf("read back %+v", back)
	}
	if back.Steps[1].Totals.AmbiguousCommits != 2 || strings.Count(string(data), `"ambiguous_commits"`) != 1 {
		t.Errorf("ambiguous commits: %d read back, want 2, and the key in step 2 only:\n%s",
			back.Steps[1].Totals.AmbiguousCommits, data)
	}
	for i, s := range back.Steps {
		h, err := DecodeHistogram(s.Latency.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range s.Latency.Percentiles {
			if again.Percentiles[k] != v {
				t.Errorf("step %d: p%s is %v in the file and %v from its histogram", i, k, v, again.Percentiles[k])
			}
		}
		if s.Latency.Min > s.Latency.Percentiles["50"] || s.Latency.Percentiles["99.99"] > s.Latency.Max {
			t.Errorf("step %d: percentiles outside min..max: %+v", i, s.Latency)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files left beside the results file: %v", entries)
	}
}

// TestEmptyListsAreArrays: a run without errors or points writes [] and
// {}, which the schema requires, and Marshal leaves its argument as it was.
func TestEmptyListsAreArrays(t *testing.T) {
	doc := example(t)
	doc.Steps[0].Errors, doc.Steps[0].Seconds, doc.Options, doc.CommandLine = nil, nil, nil, nil
	data, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if doc.Steps[0].Errors != nil || doc.Options != nil {
		t.Error("Marshal changed its argument")
	}
}

// TestSchemaRefuses: the schema catches documents that are not results.
func TestSchemaRefuses(t *testing.T) {
	for _, tc := range []struct{ name, json string }{
		{"no steps", `{"schema_version":1,"tool":{"name":"sbgo","version":"1"},"complete":true,"command_line":[],"script":{"name":"x"},"options":{},"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:00Z","host":{"name":"h","os":"linux","arch":"amd64","cpus":1}}`},
		{"bad time", `{"schema_version":1,"tool":{"name":"sbgo","version":"1"},"complete":true,"command_line":[],"script":{"name":"x"},"options":{},"start":"yesterday","end":"2026-01-01T00:00:00Z","host":{"name":"h","os":"linux","arch":"amd64","cpus":1},"steps":[]}`},
		{"unknown field", `{"schema_version":1,"extra":1}`},
		{"not an object", `[1,2]`},
	} {
		if err := schema.Validate([]byte(tc.json)); err == nil {
			t.Errorf("%s: validates", tc.name)
		}
	}
}

// TestUnmarshalErrors: bad input gives one line naming the problem.
func TestUnmarshalErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "tps: 12.5", "not an sbgo results file"},
		{"other JSON", `{"name":"x"}`, "not an sbgo results file"},
		{"newer schema", `{"schema_version":2}`, "results schema version 2 is not supported (this sbgo reads up to 1)"},
		{"version zero", `{"schema_version":0}`, "results schema version 0 is not supported"},
		{"wrong types", `{"schema_version":1,"steps":"x"}`, "not an sbgo results file"},
	} {
		_, err := Unmarshal([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
	if _, err := Unmarshal([]byte(`{"name":"x"}`)); !errors.Is(err, ErrNotResults) {
		t.Errorf("%v is not ErrNotResults", err)
	}
}

// TestWriteFileKeepsOldContentOnFailure: a results file that cannot be
// written leaves what was at its path.
func TestWriteFileKeepsOldContentOnFailure(t *testing.T) {
	if err := WriteFile(filepath.Join(t.TempDir(), "missing", "r.json"), example(t), nil); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if os.Geteuid() != 0 { // root writes into read-only directories
		if err := WriteFile(path, example(t), nil); err == nil {
			t.Error("writing into a read-only directory succeeded")
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("the old content became %q", b)
		}
	}
}

// TestWriteStdout: "-" writes the document to the given writer, between
// the markers, and ReadFile finds it in a log around other output.
func TestWriteStdout(t *testing.T) {
	var b strings.Builder
	if err := WriteFile("-", example(t), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	doc, ok := strings.CutPrefix(out, BeginMarker)
	if doc, ok2 := strings.CutSuffix(doc, EndMarker); !ok || !ok2 || schema.Validate([]byte(doc)) != nil {
		t.Fatalf("not a valid document between the markers:\n%s", out)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, log, want string // want: "" for a document read back
	}{
		{"report before", "sysbench 1.0.20\n\nGeneral statistics:\n" + out, ""},
		{"alone", out, ""},
		{"output after", "Threads started!\n" + out + "script says bye\n", ""},
		{"two", out + out, "the log holds 2 results documents; give each its own file"},
		{"cut short", out[:len(out)/2], "the results document in the log is cut short (no end marker)"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".log")
		if err := os.WriteFile(path, []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadFile(path)
		switch {
		case tc.want == "" && (err != nil || d.Label != "MariaDB 10.11"):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || err.Error() != path+": "+tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// exactPercentile is the nearest-rank percentile of sorted values.
func exactPercentile(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// TestPercentilesPrecise: a spread of latencies from 1 ms to 1 s gives
// every reported percentile within 0.1 % of the exact one.
func TestPercentilesPrecise(t *testing.T) {
	h := NewHistogram()
	var values []int64
	for i := int64(0); i < 100_000; i++ {
		v := 1_000_000 + (i*7919)%1_000_000*999 // 1 ms to ~1 s, shuffled
		values = append(values, v)
		Record(h, v)
	}
	slices.Sort(values)
	lat, err := Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ReportedPercentiles {
		exact := float64(exactPercentile(values, p)) / 1e6
		if got := lat.Percentiles[PercentileKey(p)]; math.Abs(got-exact)/exact > 0.001 {
			t.Errorf("p%v: %v ms, exact %v ms (%.3f %% off)", p, got, exact, 100*math.Abs(got-exact)/exact)
		}
	}
}

// TestMergeIsTheUnion: merging two runs' histograms gives the percentiles
// of all their latencies together, exactly as one histogram of both.
func TestMergeIsTheUnion(t *testing.T) {
	a, b, both := NewHistogram(), NewHistogram(), NewHistogram()
	for i := int64(1); i <= 5000; i++ {
		Record(a, i*2_000) // 2 µs .. 10 ms
		Record(both, i*2_000)
	}
	for i := int64(1); i <= 1000; i++ {
		Record(b, 50_000_000+i*10_000) // 50 .. 60 ms
		Record(both, 50_000_000+i*10_000)
	}
	ea, _ := EncodeHistogram(a)
	eb, _ := EncodeHistogram(b)
	merged, err := Merge(ea, eb)
	if err != nil {
		t.Fatal(err)
	}
	if merged.TotalCount() != 6000 || !merged.Equals(both) {
		t.Fatalf("merged %d values, not the same histogram as both runs' values", merged.TotalCount())
	}
	m, _ := Summarize(merged)
	if p := m.Percentiles["90"]; p < 50 || p > 60 {
		t.Errorf("p90 of the union is %v ms, want within b's 50-60 ms", p)
	}
	if _, err := Merge("not base64!"); err == nil {
		t.Error("merging garbage succeeded")
	}
}

// TestRecordClamps: values outside 1 µs .. 1 h are kept at the bounds.
func TestRecordClamps(t *testing.T) {
	h := NewHistogram()
	Record(h, 1)
	Record(h, 5*3600*1e9)
	if h.TotalCount() != 2 || h.Min() > lowestNs || float64(h.Max()) < highestNs*0.999 {
		t.Errorf("count %d, min %d, max %d", h.TotalCount(), h.Min(), h.Max())
	}
}

// TestMasking: secrets are masked wherever an option can carry one.
func TestMasking(t *testing.T) {
	args := MaskArgs([]string{"sbgo", "--mysql-password=pw1", "--pgsql_password=pw2", "--mysql-user=root",
		"--api-token=tok", "--mysql-password", "oltp_read_write", "run"})
	want := []string{"sbgo", "--mysql-password=***", "--pgsql_password=***", "--mysql-user=root",
		"--api-token=***", "--mysql-password", "oltp_read_write", "run"}
	if !slices.Equal(args, want) {
		t.Errorf("MaskArgs: %q\nwant %q", args, want)
	}
	opts := MaskOptions(map[string]string{"mysql-password": "pw", "pgsql-password": "", "threads": "4"})
	if opts["mysql-password"] != Masked || opts["pgsql-password"] != "" || opts["threads"] != "4" {
		t.Errorf("MaskOptions: %v", opts)
	}
}
