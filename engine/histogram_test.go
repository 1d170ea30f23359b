package engine

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestLatencyBuckets checks the latency layout against the values given in
// spec §7 (bucket values as 1.0.20 prints them).
func TestLatencyBuckets(t *testing.T) {
	if got := latencyScale.mult; math.Abs(got-55.5354) > 1e-4 {
		t.Errorf("M = %v, want 55.5354", got)
	}
	tests := []struct {
		ms     float64
		bucket int
		value  string
	}{
		{2, 422, "1.996"},                 // 2 ms
		{2.11, 425, "2.106"},              // 2.11 ms
		{10, 512, "10.090"},               // 10 ms
		{0.001, 0, "0.001"},               // the minimum
		{0.0001, 0, "0.001"},              // below the minimum: clamped
		{0, 0, "0.001"},                   // zero: bucket 0
		{-5, 0, "0.001"},                  // negative: bucket 0
		{math.NaN(), 0, "0.001"},          // NaN: bucket 0
		{1e5, 1023, "100000.000"},         // the maximum
		{1e9, 1023, "100000.000"},         // above: clamped
		{math.Inf(1), 1023, "100000.000"}, // infinity: clamped to the top
	}
	for _, tt := range tests {
		i := latencyScale.bucket(tt.ms)
		if i != tt.bucket {
			t.Errorf("bucket(%v) = %d, want %d", tt.ms, i, tt.bucket)
			continue
		}
		if got := cFixed(latencyScale.value(i), 0, 3); got != tt.value {
			t.Errorf("value(%d) = %s, want %s", i, got, tt.value)
		}
	}
	// Every bucket value maps back to its own bucket, which the tests
	// rebuilding histograms from printed rows rely on.
	for i := range latencyBuckets {
		if got := latencyScale.bucket(latencyScale.value(i)); got != i {
			t.Errorf("bucket(value(%d)) = %d", i, got)
		}
	}
}

// TestHistogramReference is the check of spec §3.6 (tests/t/api_histogram.t):
// the rows are what sysbench 1.0.20's h:print() printed
// (testdata/sysbench-1.0.20/lua_histogram.txt, from a script calling
// sysbench.histogram.new(1000, 1, 10), the six updates and h:print()).
func TestHistogramReference(t *testing.T) {
	h := NewHistogram(1000, 1, 10)
	for _, v := range []float64{1, 2, 0, 10, 100, 5.001} {
		h.Update(v)
	}
	var out bytes.Buffer
	if err := h.Print(&out); err != nil {
		t.Fatal(err)
	}
	want := sysbenchOutput(t, "lua_histogram.txt", "       value")
	want = want[:strings.Index(want, "--- empty:")]
	if out.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", out.String(), want)
	}
	if h.Count() != 6 {
		t.Errorf("Count = %d, want 6", h.Count())
	}
}

// TestHistogramPrint checks the bar rounding and that an empty histogram
// prints nothing.
func TestHistogramPrint(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   string
	}{
		{
			// Nothing, not even the header.
			name: "empty",
		},
		{
			// 1 of 3 is 13.33 stars, rounded to 13; 2 of 3 is 26.67, to 27.
			name:   "rounding",
			values: []float64{1, 1, 1, 2, 2, 4},
			want: histogramHeader +
				"       1.000 |**************************************** 3\n" +
				"       2.001 |***************************              2\n" +
				"       3.996 |*************                            1\n",
		},
		{
			// A bucket under 1/80 of the largest has no star at all.
			name:   "tiny share",
			values: append(slices.Repeat([]float64{3}, 81), 7),
			want: histogramHeader +
				"       3.002 |**************************************** 81\n" +
				"       6.996 |                                         1\n",
		},
	}
	for _, tt := range tests {
		h := NewHistogram(1000, 1, 10)
		for _, v := range tt.values {
			h.Update(v)
		}
		var out bytes.Buffer
		if err := h.Print(&out); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%s: Print:\n%s\nwant:\n%s", tt.name, out.String(), tt.want)
		}
	}
}

// TestPercentileRule checks sysbench's percentile rule on small sets.
func TestPercentileRule(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		p      float64
		want   float64 // a value in the expected bucket
	}{
		{"empty: bucket 0", nil, 95, 1},
		{"p=0: bucket 0", []float64{5, 6, 7}, 0, 1},
		{"N=3, p=50: target 2", []float64{2, 5, 8}, 50, 5},
		{"N=3, p=95: target 3", []float64{2, 5, 8}, 95, 8},
		{"N=4, p=50: target 2", []float64{2, 5, 8, 9}, 50, 5},
		{"N=4, p=62.5: target 3 (2.5 rounds up)", []float64{2, 5, 8, 9}, 62.5, 8},
		{"N=4, p=12: target 0 hits bucket 0", []float64{2, 5, 8, 9}, 12, 1},
		{"N=4, p=13: target 1", []float64{2, 5, 8, 9}, 13, 2},
		{"N=10 in one bucket", slices.Repeat([]float64{3}, 10), 99, 3},
		{"p=100: the largest", []float64{2, 5, 9.5}, 100, 9.5},
	}
	for _, tt := range tests {
		h := NewHistogram(1000, 1, 10)
		for _, v := range tt.values {
			h.Update(v)
		}
		want := h.value(h.bucket(tt.want))
		if got := h.Percentile(tt.p); got != want {
			t.Errorf("%s: Percentile(%v) = %v, want %v", tt.name, tt.p, got, want)
		}
	}
	// Above 100 no bucket reaches the target: one past the last bucket, as
	// in sysbench.
	h := NewHistogram(10, 1, 10)
	h.Update(2)
	if got, want := h.Percentile(300), h.value(10); got != want {
		t.Errorf("Percentile(300) = %v, want %v", got, want)
	}
}

// maxRelativeError is the worst relative error of a bucket value: half a
// bucket, a factor exp(0.5/M) (about 0.9% for the latency layout, within
// sysbench's bucket ratio of 1.018).
var maxRelativeError = math.Exp(0.5/latencyScale.mult) - 1

// TestPercentilePrecision compares the histogram's percentiles of random
// latencies with the exact order statistic of the same rank.
func TestPercentilePrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 100, 10001} {
		// Log-uniform between 0.01 ms and 10 s, recorded as nanoseconds.
		ns := make([]int64, n)
		lh := NewLatencyHistogram(1)
		for i := range ns {
			ns[i] = int64(math.Exp(rng.Float64()*math.Log(1e6)) * 1e4)
			lh.Shard(0).Record(ns[i])
		}
		h := lh.Cumulative(false)
		slices.Sort(ns)
		for _, p := range []float64{1, 50, 90, 95, 99, 99.9, 100} {
			rank := int(math.Floor(float64(n)*p/100 + 0.5))
			if rank == 0 {
				continue // only bucket 0 can answer, tested above
			}
			exact := float64(ns[rank-1]) / 1e6
			got := h.Percentile(p)
			if rel := math.Abs(got-exact) / exact; rel > maxRelativeError+1e-12 {
				t.Errorf("n=%d p=%v: histogram %v, exact %v: error %.4f%% > %.4f%%",
					n, p, got, exact, rel*100, maxRelativeError*100)
			}
		}
	}
	if maxRelativeError > 0.018 {
		t.Errorf("bucket half-width %.4f exceeds sysbench's 1.8%%", maxRelativeError)
	}
}

// TestLatencyViews checks the intermediate, cumulative and checkpoint
// views of spec §7.
func TestLatencyViews(t *testing.T) {
	lh := NewLatencyHistogram(2)
	ms := func(v float64) int64 { return int64(v * 1e6) }
	bucketValue := func(v float64) float64 { return latencyScale.value(latencyScale.bucket(v)) }

	lh.Shard(0).Record(ms(1))
	lh.Shard(1).Record(ms(2))
	lh.Shard(1).Record(ms(4))
	if got, want := lh.Intermediate(95), bucketValue(4); got != want {
		t.Errorf("first interval p95 = %v, want %v", got, want)
	}
	// Nothing new: the lowest bucket, as sysbench reports an idle interval.
	if got, want := lh.Intermediate(95), latencyScale.value(0); got != want {
		t.Errorf("idle interval p95 = %v, want %v", got, want)
	}
	lh.Shard(0).Record(ms(0.5))
	if got, want := lh.Intermediate(95), bucketValue(0.5); got != want {
		t.Errorf("second interval p95 = %v, want %v (only the new value)", got, want)
	}
	lh.Shard(0).Record(ms(8)) // not yet read by an intermediate report
	c := lh.Cumulative(false)
	if c.Count() != 5 {
		t.Errorf("cumulative count = %d, want 5", c.Count())
	}
	if got, want := c.Percentile(100), bucketValue(8); got != want {
		t.Errorf("cumulative p100 = %v, want %v", got, want)
	}
	// A checkpoint returns the same and starts again.
	if got := lh.Cumulative(true).Count(); got != 5 {
		t.Errorf("checkpoint count = %d, want 5", got)
	}
	if got := lh.Cumulative(false).Count(); got != 0 {
		t.Errorf("count after checkpoint = %d, want 0", got)
	}
	// The 8 ms value was folded into the cumulative view, not left for
	// the next intermediate report.
	if got, want := lh.Intermediate(95), latencyScale.value(0); got != want {
		t.Errorf("interval after checkpoint = %v, want %v", got, want)
	}
	lh.Shard(1).Record(ms(3))
	lh.Intermediate(95)
	if got := lh.Cumulative(false).Count(); got != 1 {
		t.Errorf("count after one more value = %d, want 1", got)
	}
	// The snapshot is a copy: updating it leaves the view alone.
	snap := lh.Cumulative(false)
	snap.Update(1)
	if got := lh.Cumulative(false).Count(); got != 1 {
		t.Errorf("snapshot shares counts with the view")
	}
}

// TestLatencyConcurrent records from several workers while a reporter and
// a checkpointer read, and checks that no value is lost or counted twice.
// Run with -race.
func TestLatencyConcurrent(t *testing.T) {
	const workers, perWorker = 4, 20000
	lh := NewLatencyHistogram(workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			s := lh.Shard(w)
			for i := range perWorker {
				s.Record(int64(1000 + i%5000*1000))
			}
		})
	}
	done := make(chan struct{})
	var readers sync.WaitGroup
	var checkpointed uint64
	readers.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				lh.Intermediate(95)
			}
		}
	})
	readers.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				checkpointed += lh.Cumulative(true).Count()
			}
		}
	})
	wg.Wait()
	close(done)
	readers.Wait()
	total := checkpointed + lh.Cumulative(true).Count()
	if total != workers*perWorker {
		t.Errorf("counted %d values, recorded %d", total, workers*perWorker)
	}
}

// TestShardRecordAllocs: the per-event path must not allocate.
func TestShardRecordAllocs(t *testing.T) {
	s := NewLatencyHistogram(1).Shard(0)
	if n := testing.AllocsPerRun(1000, func() { s.Record(1234567) }); n != 0 {
		t.Errorf("Record allocates %v times per call", n)
	}
}

// TestHistogramMisuse checks the panics that guard against programming
// errors.
func TestHistogramMisuse(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"size 0", func() { NewHistogram(0, 1, 10) }},
		{"merge different layouts", func() { NewHistogram(10, 1, 10).Merge(NewHistogram(20, 1, 10)) }},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.f()
		}()
	}
}

// TestHistogramMergeReset checks Merge, Reset and Clone on plain histograms.
func TestHistogramMergeReset(t *testing.T) {
	a, b := NewHistogram(100, 1, 100), NewHistogram(100, 1, 100)
	a.Update(2)
	b.Update(50)
	b.Update(60)
	a.Merge(b)
	if a.Count() != 3 || a.Percentile(100) != a.value(a.bucket(60)) {
		t.Errorf("after Merge: count %d, p100 %v", a.Count(), a.Percentile(100))
	}
	c := a.Clone()
	a.Reset()
	if a.Count() != 0 || a.Percentile(50) != 1 {
		t.Errorf("after Reset: count %d, p50 %v", a.Count(), a.Percentile(50))
	}
	if c.Count() != 3 {
		t.Errorf("Clone shares counts: count %d", c.Count())
	}
}

func BenchmarkShardRecord(b *testing.B) {
	s := NewLatencyHistogram(1).Shard(0)
	b.ReportAllocs()
	ns := int64(1)
	for b.Loop() {
		s.Record(ns)
		ns = ns*7 + 13 // spread over the buckets
		if ns > 1e11 {
			ns = 1
		}
	}
}

// TestNsBucketsMatchTheLogarithm: the table lookup gives exactly the
// logarithmic formula's bucket, at every bucket boundary (and one ns on
// either side) and for random values over the whole range.
func TestNsBucketsMatchTheLogarithm(t *testing.T) {
	exact := func(ns int64) int { return latencyScale.bucket(float64(ns) / 1e6) }
	check := func(ns int64) {
		if got, want := latencyNs.bucket(ns), exact(ns); got != want {
			t.Fatalf("bucket(%d ns) = %d, want %d", ns, got, want)
		}
	}
	for i := 1; i < latencyBuckets; i++ {
		b := latencyNs.lower[i]
		check(b - 1)
		check(b)
		check(b + 1)
	}
	for _, ns := range []int64{-5, 0, 1, 999, 1000, 1e11, 1e12, 1 << 62, math.MaxInt64} {
		check(ns)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		// Log-uniform over 1 ns .. 1000 s.
		check(int64(math.Exp(rng.Float64() * math.Log(1e12))))
	}
}
