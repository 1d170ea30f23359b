package engine

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRingLosesNothing: a producer pushing far more values than the ring
// holds, against a slow consumer, gets every value through.
func TestRingLosesNothing(t *testing.T) {
	var closed atomic.Bool
	ring := newLatencyRing(256, &closed, make(chan struct{}, 1))
	const n = 100_000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(1); i <= n; i++ {
			ring.push(i)
		}
	}()
	var got, sum int64
	for got < n {
		ring.drain(func(v int64) { got++; sum += v })
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	if want := int64(n * (n + 1) / 2); got != n || sum != want {
		t.Errorf("drained %d values summing to %d, want %d summing to %d", got, sum, n, want)
	}
}

// TestRingClosedDrops: once the collector has stopped, a full ring drops
// values instead of blocking its worker for ever.
func TestRingClosedDrops(t *testing.T) {
	var closed atomic.Bool
	ring := newLatencyRing(256, &closed, make(chan struct{}, 1))
	for i := 0; i < 256; i++ {
		ring.push(1)
	}
	closed.Store(true)
	ring.push(2) // must return
}

// TestRingCapacity: between 256 and 16384, a power of two.
func TestRingCapacity(t *testing.T) {
	for _, tc := range []struct{ threads, want int }{
		{1, 16384},    // few workers: the largest ring
		{256, 16384},  // 1<<22/256 = 16384
		{1000, 8192},  // rounded up to a power of two
		{4096, 1024},  // 1<<22/4096
		{100000, 256}, // many workers: the smallest ring
	} {
		if got := ringCapacity(tc.threads); got != tc.want {
			t.Errorf("%d threads: %d, want %d", tc.threads, got, tc.want)
		}
	}
}

// seriesRun runs w with Series on and returns the summary.
func seriesRun(t *testing.T, cfg Config, w Workload) (int, RunSummary) {
	t.Helper()
	cfg.Series, cfg.Percentile, cfg.ForcedShutdown = true, 95, -1
	r := NewRun(cfg, NewLogger(&lockedBuffer{}, 3))
	code := r.Execute(w)
	return code, r.Summary()
}

// TestSeriesAddsUp: the per-second points and the intervals add up to the
// totals of the report, and the histograms hold every event.
func TestSeriesAddsUp(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	code, s := seriesRun(t, Config{Threads: 4, Time: 2500 * time.Millisecond, ReportInterval: time.Second}, w)
	if code != ExitOK || !s.Complete || s.Totals == nil {
		t.Fatalf("code %d, summary %+v", code, s)
	}
	if len(s.Seconds) != 3 || len(s.Intervals) != 3 {
		t.Errorf("%d seconds and %d intervals, want 3 each", len(s.Seconds), len(s.Intervals))
	}
	for name, points := range map[string][]SeriesPoint{"seconds": s.Seconds, "intervals": s.Intervals} {
		var events, reads, hist uint64
		for _, p := range points {
			events += p.Events
			reads += p.Reads
			hist += uint64(p.Latency.TotalCount())
		}
		if events != s.Totals.Events || reads != s.Totals.Reads || hist != events {
			t.Errorf("%s: %d events, %d reads, %d latencies; totals %d events, %d reads",
				name, events, reads, hist, s.Totals.Events, s.Totals.Reads)
		}
	}
	if got := uint64(s.Latency.TotalCount()); got != s.Totals.Events {
		t.Errorf("the histogram holds %d latencies for %d events", got, s.Totals.Events)
	}
	// Min is the low end of its HDR bucket (3 significant digits), which
	// may lie just below the value recorded.
	if min := s.Latency.Min(); min < int64(time.Millisecond) && !s.Latency.ValuesAreEquivalent(min, int64(time.Millisecond)) {
		t.Errorf("min latency %d ns below the 1 ms sleep", min)
	}
}

// TestSeriesErrors: errors by code are summed across workers, with the
// first message; a failed run is incomplete with its reason.
func TestSeriesErrors(t *testing.T) {
	w := &fakeWorkload{}
	w.count = func(ev *Events) {
		ev.Count(CounterError)
		ev.CountError("1213", "deadlock")
	}
	w.event = func(tid, n int) (bool, error) {
		if n > 10 {
			return false, errors.New("boom")
		}
		return false, nil
	}
	code, s := seriesRun(t, Config{Threads: 2}, w)
	if code != ExitFailed || s.Complete || s.Reason != "boom" {
		t.Errorf("code %d, complete %v, reason %q", code, s.Complete, s.Reason)
	}
	if s.Totals == nil || len(s.Errors) != 1 || s.Errors[0] != (ErrorCount{"1213", s.Totals.Errors, "deadlock"}) || s.Totals.Errors < 10 {
		t.Errorf("errors %+v, want all the report's errors as 1213", s.Errors)
	}
}

// TestSeriesOff: without Series the workers have no ring.
func TestSeriesOff(t *testing.T) {
	r := NewRun(Config{Threads: 2, Events: 10, Percentile: 95, ForcedShutdown: -1}, NewLogger(&lockedBuffer{}, 3))
	if r.Execute(&fakeWorkload{}) != ExitOK {
		t.Fatal("run failed")
	}
	if s := r.Summary(); s.Latency != nil || s.Seconds != nil || !s.Complete {
		t.Errorf("summary without Series: %+v", s)
	}
}

// BenchmarkShardRecordSeries is the series' per-event cost: a push into
// the worker's ring, with a collector draining it into an HDR histogram
// as the run's does.
func BenchmarkShardRecordSeries(b *testing.B) {
	var closed atomic.Bool
	wake := make(chan struct{}, 1)
	ring := newLatencyRing(ringCapacity(1), &closed, wake)
	h := newSeriesHistogram()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(collectEvery):
			case <-wake:
			}
			ring.drain(func(ns int64) { recordClamped(h, ns) })
		}
	}()
	defer close(done)
	b.ReportAllocs()
	ns := int64(1)
	for b.Loop() {
		ring.push(ns)
		ns = ns*7 + 13
		if ns > 1e11 {
			ns = 1
		}
	}
	closed.Store(true)
}

// TestSweepSummary: the summary table has one aligned line per step, with
// each step's rates and percentiles (HDR's highest equivalent values,
// within 0.1 %), and marks the steps that did not
// finish or never ran.
func TestSweepSummary(t *testing.T) {
	h := newSeriesHistogram()
	for i := int64(1); i <= 100; i++ {
		h.RecordValue(i * 1e6) // 1..100 ms
	}
	done := SweepRowOf(RunSummary{Threads: 2, Complete: true, Latency: h,
		Totals: &Stats{TimeInterval: 2, Events: 300, Reads: 1000, Writes: 400, Other: 200, Errors: 3}})
	cut := SweepRowOf(RunSummary{Threads: 4, Totals: &Stats{TimeInterval: 1, Events: 10}})
	never := SweepRowOf(RunSummary{Threads: 8})
	var b strings.Builder
	WriteSweepSummary(&b, []SweepRow{done, cut, never})
	want := "Thread sweep summary:\n" +
		"  threads          tps          qps   p95 (ms)   p99 (ms)   max (ms)   errors\n" +
		"        2       150.00       800.00      95.03      99.02     100.01        3\n" +
		"        4        10.00         0.00       0.00       0.00       0.00        0  (incomplete)\n" +
		"        8            -            -          -          -          -        -  (did not run)\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
