package results

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"sbgo/results/schema"
)

// client is a one-step document of a client whose events took the given
// latencies (ns), spread over seconds points of one second each, the last
// one a remainder of 2 ms; it started offset after t0.
func client(t *testing.T, id int, threads int, offset time.Duration, latencies []int64, seconds int) *Document {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	start := t0.Add(offset)
	whole := NewHistogram()
	var points []Point
	per := len(latencies) / seconds
	for s := range seconds + 1 {
		h := NewHistogram()
		lo, hi := s*per, min((s+1)*per, len(latencies))
		if s == seconds {
			hi = len(latencies)
		}
		for _, v := range latencies[lo:hi] {
			Record(h, v)
			Record(whole, v)
		}
		p := Point{Time: float64(s + 1), Seconds: 1, Events: uint64(hi - lo), Reads: uint64(10 * (hi - lo)), Threads: threads}
		if s == seconds {
			p.Time, p.Seconds, p.Threads = float64(seconds)+0.002, 0.002, 0
		}
		if h.TotalCount() > 0 {
			if err := p.SetLatency(h); err != nil {
				t.Fatal(err)
			}
		}
		points = append(points, p)
	}
	lat, err := Summarize(whole)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(len(latencies))
	end := start.Add(time.Duration(seconds)*time.Second + 2*time.Millisecond)
	return &Document{
		SchemaVersion: SchemaVersion, Tool: Tool{Name: "sbgo", Version: "0.1.0"}, Label: "k8s",
		Complete: true, CommandLine: []string{"sbgo", "oltp_read_only", "--client-id=" + string(rune('0'+id)), "run"},
		Script:  Script{Name: "oltp_read_only", SHA256: strings.Repeat("cd", 32)},
		Options: map[string]string{"threads": "4", "client-id": string(rune('0' + id)), "results-file": "-", "report-interval": "0"},
		Start:   start, End: end, ClientID: &id,
		Host: Host{Name: "pod-" + string(rune('a'+id)), OS: "linux", Arch: "amd64", CPUs: 2},
		Steps: []Step{{
			Threads: threads, Complete: true, Start: start, End: end,
			Totals: Totals{Transactions: n, Events: n, Reads: 10 * n, TotalTime: end.Sub(start).Seconds(),
				EventsAvg: float64(n) / float64(threads), EventsStddev: float64(id), ExecTimeAvg: 2, ExecTimeStddev: 0.01},
			Latency: lat, Errors: []ErrorCount{{Code: "1213", Count: uint64(id + 1), Message: "Deadlock"}},
			Seconds: points,
		}},
	}
}

// fixed is n latencies of v ns each.
func fixed(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestMergeDocumentsKnownLatencies: three clients whose events took 1 ms,
// 5 ms and 40 ms merge into one document whose percentiles are those of
// all the latencies together, whose counts are the sums and whose seconds
// line up by wall-clock time.
func TestMergeDocumentsKnownLatencies(t *testing.T) {
	parts := []Source{
		{"a.json", client(t, 0, 4, 0, fixed(600, 1_000_000), 3)},
		{"b.json", client(t, 1, 4, 3*time.Millisecond, fixed(300, 5_000_000), 3)},
		{"c.json", client(t, 2, 2, 5*time.Millisecond, fixed(100, 40_000_000), 3)},
	}
	m, err := MergeDocuments(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings for windows 5 ms apart: %q", m.Warnings)
	}
	d := m.Doc
	data, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(data); err != nil {
		t.Fatalf("the merged document does not validate: %v", err)
	}
	s := d.Steps[0]
	if s.Threads != 10 || s.Totals.Transactions != 1000 || s.Totals.Reads != 10_000 || s.Latency.Count != 1000 {
		t.Errorf("threads %d, transactions %d, reads %d, latencies %d; want 10, 1000, 10000, 1000",
			s.Threads, s.Totals.Transactions, s.Totals.Reads, s.Latency.Count)
	}
	// 60 % at 1 ms, 30 % at 5 ms, 10 % at 40 ms (each within HDR's 0.1 %).
	for key, want := range map[string]float64{"50": 1, "90": 5, "95": 40, "99.99": 40} {
		if got := s.Latency.Percentiles[key]; math.Abs(got-want)/want > 0.001 {
			t.Errorf("p%s = %v ms, want %v", key, got, want)
		}
	}
	if len(s.Errors) != 1 || s.Errors[0].Count != 6 {
		t.Errorf("errors %+v, want one code counted 1+2+3 times", s.Errors)
	}
	if len(s.Seconds) != 4 {
		t.Fatalf("%d seconds, want 3 and the remainder: %+v", len(s.Seconds), s.Seconds)
	}
	var events uint64
	for i, p := range s.Seconds[:3] {
		events += p.Events
		if p.Time != float64(i+1) || p.Seconds != 1 || p.Threads != 10 || p.Events != 333 {
			t.Errorf("second %d: %+v, want t=%d, 1 s, 10 threads, 200+100+33 events", i+1, p, i+1)
		}
	}
	if events+s.Seconds[3].Events != 1000 || s.Seconds[3].Seconds != 0.002 {
		t.Errorf("the seconds add up to %d events, the remainder lasts %v s", events+s.Seconds[3].Events, s.Seconds[3].Seconds)
	}
	if !d.Start.Equal(parts[0].Doc.Start) || !d.End.Equal(parts[2].Doc.End) || d.Host.CPUs != 6 || len(d.Parts) != 3 {
		t.Errorf("window %v..%v, %d CPUs, %d parts", d.Start, d.End, d.Host.CPUs, len(d.Parts))
	}
	if *d.Parts[1].ClientID != 1 || d.Parts[2].Host.Name != "pod-c" || d.Parts[2].Transactions != 100 {
		t.Errorf("parts %+v", d.Parts)
	}
	if _, ok := d.Options["client-id"]; ok || slices.Contains(d.CommandLine, "--client-id=0") || d.ClientID != nil {
		t.Errorf("the merged document keeps a client's id: %v %q", d.Options, d.CommandLine)
	}
}

// TestMergePooledFairness: the merged threads-fairness figures are those
// of all the threads as one population.
func TestMergePooledFairness(t *testing.T) {
	a, b := client(t, 0, 2, 0, fixed(10, 1e6), 1), client(t, 1, 2, 0, fixed(10, 1e6), 1)
	// a's threads ran 4 and 6 events, b's 9 and 11: mean 7.5, population
	// stddev sqrt(((3.5²+1.5²+1.5²+3.5²)/4) = 2.6926.
	a.Steps[0].Totals.EventsAvg, a.Steps[0].Totals.EventsStddev = 5, 1
	b.Steps[0].Totals.EventsAvg, b.Steps[0].Totals.EventsStddev = 10, 1
	m, err := MergeDocuments([]Source{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Doc.Steps[0].Totals.EventsStddev; math.Abs(got-math.Sqrt(7.25)) > 1e-9 {
		t.Errorf("events stddev %v, want %v", got, math.Sqrt(7.25))
	}
}

// TestMergeAlignsByWallClock: a client that started two seconds late has
// its first second counted in the merged third.
func TestMergeAlignsByWallClock(t *testing.T) {
	a := client(t, 0, 1, 0, fixed(400, 1e6), 4)
	b := client(t, 1, 1, 2*time.Second+10*time.Millisecond, fixed(400, 1e6), 4)
	m, err := MergeDocuments([]Source{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, p := range m.Doc.Steps[0].Seconds {
		got = append(got, p.Events)
	}
	// a: 100 100 100 100 + 0 (remainder); b shifted by two seconds.
	want := []uint64{100, 100, 200, 200, 100, 100, 0}
	if !slices.Equal(got, want) {
		t.Errorf("events per merged second %v, want %v", got, want)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "overlap by 33.") {
		t.Errorf("warnings %q, want one about a 2 of 6 s overlap", m.Warnings)
	}
}

// TestMergeRefuses: parts of different scripts or options are refused
// with one line naming the difference; per-client options may differ.
func TestMergeRefuses(t *testing.T) {
	base := func() *Document { return client(t, 0, 4, 0, fixed(10, 1e6), 1) }
	for _, tc := range []struct {
		name   string
		change func(*Document)
		want   string // "" when the merge must succeed
	}{
		// Another source of the same script name.
		{"script source", func(d *Document) { d.Script.SHA256 = strings.Repeat("ef", 32) }, "a.json and b.json ran different scripts (oltp_read_only cdcdcdcdcdcd, oltp_read_only efefefefefef)"},
		{"script", func(d *Document) { d.Script.Name = "oltp_read_write" }, "ran different scripts"},
		{"option value", func(d *Document) { d.Options["threads"] = "8" }, `a.json and b.json ran with different options: --threads is "4" in one and "8" in the other`},
		{"option only in one", func(d *Document) { d.Options["tables"] = "2" }, `--tables is "" in one and "2" in the other`},
		// Each client has its own id, file and label.
		{"per-client options", func(d *Document) {
			d.Options["client-id"], d.Options["results-file"], d.Options["results-label"] = "7", "/tmp/x.json", "other"
		}, ""},
	} {
		b := base()
		tc.change(b)
		_, err := MergeDocuments([]Source{{"a.json", base()}, {"b.json", b}})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
	if _, err := MergeDocuments(nil); err == nil {
		t.Error("merging nothing succeeded")
	}
}

// TestMergeIncompletePart: a part that failed makes the merged document
// incomplete, naming the part.
func TestMergeIncompletePart(t *testing.T) {
	a, b := client(t, 0, 1, 0, fixed(10, 1e6), 1), client(t, 1, 1, 0, fixed(10, 1e6), 1)
	b.Complete, b.Reason = false, "interrupted"
	b.Steps[0].Complete, b.Steps[0].Reason = false, "interrupted"
	m, err := MergeDocuments([]Source{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Doc; d.Complete || d.Reason != "b: interrupted" || d.Steps[0].Complete {
		t.Errorf("complete %v (%q), step complete %v", d.Complete, d.Reason, d.Steps[0].Complete)
	}
}
