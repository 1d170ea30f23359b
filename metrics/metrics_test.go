package metrics

import (
	"reflect"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"sbgo/engine"
)

// histogramOf records ns values in the run's layout.
func histogramOf(ns ...int64) *hdr.Histogram {
	h := hdr.New(1_000, 3_600_000_000_000, 3)
	for _, v := range ns {
		h.RecordValue(v)
	}
	return h
}

func TestClassicBuckets(t *testing.T) {
	bounds := []float64{0.001, 0.01, 0.1}
	for _, tc := range []struct {
		name string
		ns   []int64
		want map[float64]uint64
	}{
		{"empty: every bucket zero", nil, map[float64]uint64{0.001: 0, 0.01: 0, 0.1: 0}},
		{"cumulative: each bucket holds those below it",
			[]int64{500_000, 5_000_000, 5_000_000, 50_000_000},
			map[float64]uint64{0.001: 1, 0.01: 3, 0.1: 4}},
		{"above the last bound: only in +Inf (the count)", []int64{2_000_000_000},
			map[float64]uint64{0.001: 0, 0.01: 0, 0.1: 0}},
		{"a value on a bound is in its bucket", []int64{1_000_000, 10_000_000},
			map[float64]uint64{0.001: 1, 0.01: 2, 0.1: 2}},
	} {
		if got := classicBuckets(hdrBins(histogramOf(tc.ns...)), bounds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNativeBuckets(t *testing.T) {
	for _, tc := range []struct {
		name string
		ns   []int64
		want map[int]int64
	}{
		{"1 s is the upper bound of bucket 0", []int64{1_000_000_000}, map[int]int64{0: 1}},
		{"2 s is the upper bound of bucket 8", []int64{2_000_000_000}, map[int]int64{8: 1}},
		{"1.5 s: log2 1.5 = 0.585, times 8 rounded up", []int64{1_500_000_000}, map[int]int64{5: 1}},
		{"1 ms: log2 0.001 = -9.966, times 8 rounded up", []int64{1_000_000, 1_000_000}, map[int]int64{-79: 2}},
		{"empty: no bucket", nil, map[int]int64{}},
	} {
		if got := nativeBuckets(hdrBins(histogramOf(tc.ns...)), NativeSchema); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fakeSource hands out fixed figures.
type fakeSource struct{ s engine.LiveStats }

func (f fakeSource) Live() engine.LiveStats { return f.s }

// gather collects src's metrics through a registry, which checks them
// against their descriptors.
func gather(t *testing.T, src Source) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(src))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// TestCollect: each figure of the snapshot under its name and labels,
// and one histogram with both classic and native buckets.
func TestCollect(t *testing.T) {
	src := fakeSource{engine.LiveStats{
		Events: 7, Reads: 70, Writes: 20, Other: 14, Reconnects: 2, ThreadsRunning: 4,
		ErrorCodes: []engine.ErrorCount{{Code: "1213", Count: 3, Message: "Deadlock found"}, {Code: "40P01", Count: 1}},
		Latency:    histogramOf(2_000_000, 2_000_000, 3_000_000, 3_000_000, 3_000_000, 40_000_000, 40_000_000),
		LatencySum: 0.093,
	}}
	fams := gather(t, src)
	type sample struct {
		name, label string
		value       float64
	}
	var got []sample
	for _, name := range []string{"sbgo_events_total", "sbgo_queries_total", "sbgo_errors_total", "sbgo_reconnects_total", "sbgo_threads_running"} {
		for _, m := range fams[name].GetMetric() {
			label := ""
			if ls := m.GetLabel(); len(ls) == 1 {
				label = ls[0].GetName() + "=" + ls[0].GetValue()
			}
			got = append(got, sample{name, label, m.GetCounter().GetValue() + m.GetGauge().GetValue()})
		}
	}
	want := []sample{
		{"sbgo_events_total", "", 7},
		{"sbgo_queries_total", "kind=other", 14}, {"sbgo_queries_total", "kind=read", 70}, {"sbgo_queries_total", "kind=write", 20},
		{"sbgo_errors_total", "code=1213", 3}, {"sbgo_errors_total", "code=40P01", 1},
		{"sbgo_reconnects_total", "", 2},
		{"sbgo_threads_running", "", 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	h := fams["sbgo_latency_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 7 || h.GetSampleSum() != 0.093 || h.GetSchema() != NativeSchema || len(h.GetBucket()) != len(Buckets) {
		t.Fatalf("histogram: %v", h)
	}
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == 0.0025 && b.GetCumulativeCount() != 2 || b.GetUpperBound() == 0.05 && b.GetCumulativeCount() != 7 {
			t.Errorf("bucket le=%v holds %d", b.GetUpperBound(), b.GetCumulativeCount())
		}
	}
	// Three native buckets (2, 3 and 40 ms), counts as deltas: 2, 3, 2.
	var spans uint32
	for _, s := range h.GetPositiveSpan() {
		spans += s.GetLength()
	}
	var n int64
	for _, d := range h.GetPositiveDelta() {
		n += d
	}
	if len(h.GetPositiveSpan()) != 3 || spans != 3 || !reflect.DeepEqual(h.GetPositiveDelta(), []int64{2, 1, -1}) || n != 2 {
		t.Errorf("native spans %v, deltas %v", h.GetPositiveSpan(), h.GetPositiveDelta())
	}
}

// TestCollectBeforeTheRun: zero counts, no error series and an empty
// histogram are valid metrics; without a histogram there is none.
func TestCollectBeforeTheRun(t *testing.T) {
	fams := gather(t, fakeSource{engine.LiveStats{Latency: histogramOf()}})
	if fams["sbgo_errors_total"] != nil || fams["sbgo_latency_seconds"].GetMetric()[0].GetHistogram().GetSampleCount() != 0 {
		t.Errorf("before the run: %v", fams)
	}
	if fams := gather(t, fakeSource{}); fams["sbgo_latency_seconds"] != nil || fams["sbgo_events_total"] == nil {
		t.Errorf("without latencies: %v", fams)
	}
}
