package engine

import (
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestLiveWhileRunning: read from another goroutine during a run, Live's
// counts only grow, the histogram never holds more events than the
// counters count, errors by code come in as they happen, and once the
// run is over every figure equals the final report's.
func TestLiveWhileRunning(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	w.count = func(ev *Events) {
		ev.Count(CounterWrite)
		ev.Count(CounterError)
		ev.CountError("1213", "deadlock")
	}
	r := NewRun(Config{Threads: 3, Time: 1500 * time.Millisecond, Series: true, ForcedShutdown: -1}, NewLogger(&lockedBuffer{}, 3))
	var reads []LiveStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				reads = append(reads, r.Live())
			}
		}
	}()
	code := r.Execute(w)
	close(stop)
	wg.Wait()
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	checkLiveReads(t, reads)
	end := r.Live()
	tot := r.Summary().Totals
	if end.Events != tot.Events || end.Writes != tot.Writes || end.Errors != tot.Errors || end.ThreadsRunning != 0 {
		t.Errorf("after the run: %+v; report totals %+v", end, tot)
	}
	if n := uint64(end.Latency.TotalCount()); n != end.Events {
		t.Errorf("after the run the histogram holds %d latencies for %d events", n, end.Events)
	}
	if want := []ErrorCount{{"1213", tot.Errors, "deadlock"}}; !reflect.DeepEqual(end.ErrorCodes, want) {
		t.Errorf("errors by code %+v, want %+v", end.ErrorCodes, want)
	}
	// Each event sleeps 1 ms: the latencies add up to at least that.
	if min := float64(end.Events) * 1e-3; end.LatencySum < min {
		t.Errorf("latency sum %v s for %d events of 1 ms", end.LatencySum, end.Events)
	}
}

// checkLiveReads checks reads taken in order during one run.
func checkLiveReads(t *testing.T, reads []LiveStats) {
	t.Helper()
	var grew bool
	for i, s := range reads {
		hist := uint64(0)
		if s.Latency != nil {
			hist = uint64(s.Latency.TotalCount())
		}
		if hist > s.Events {
			t.Errorf("read %d: %d latencies for %d events", i, hist, s.Events)
		}
		if i == 0 {
			continue
		}
		p := reads[i-1]
		if s.Events < p.Events || s.Writes < p.Writes || s.Errors < p.Errors || hist < uint64(p.Latency.TotalCount()) {
			t.Errorf("read %d went back: %+v after %+v", i, s, p)
		}
		grew = grew || s.Events > p.Events && s.Writes > p.Writes && len(s.ErrorCodes) == 1
	}
	if !grew {
		t.Errorf("no read saw the run grow in %d reads", len(reads))
	}
}

// TestLiveWarmup: what the warm-up ran is not counted, as in the report.
func TestLiveWarmup(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	w.count = func(ev *Events) {
		ev.Count(CounterError)
		ev.CountError("40P01", "deadlock detected")
	}
	r := NewRun(Config{Threads: 2, Time: time.Second, Warmup: time.Second, Series: true, ForcedShutdown: -1}, NewLogger(&lockedBuffer{}, 3))
	read := make(chan LiveStats, 1)
	timer := time.AfterFunc(500*time.Millisecond, func() { read <- r.Live() })
	defer timer.Stop()
	if code := r.Execute(w); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	during := <-read
	if during.Events != 0 || during.ThreadsRunning != 2 || during.ErrorCodes != nil {
		t.Errorf("during the warm-up: %+v, want no counts and 2 threads", during)
	}
	// The warm-up's errors come off by code; an error in flight as the
	// warm-up ends (one per thread at most) may fall on either side.
	end, tot := r.Live(), r.Summary().Totals
	if end.Events != tot.Events || len(end.ErrorCodes) != 1 || end.ErrorCodes[0].Count+2 < tot.Errors || end.ErrorCodes[0].Count > tot.Errors+2 {
		t.Errorf("after the run: %d events, errors %+v; the report: %d events, %d errors",
			end.Events, end.ErrorCodes, tot.Events, tot.Errors)
	}
}

// TestLiveSeriesOff: without Series, Live has the threads and no
// latencies.
func TestLiveSeriesOff(t *testing.T) {
	r := NewRun(Config{Threads: 2, Events: 10, ForcedShutdown: -1}, NewLogger(&lockedBuffer{}, 3))
	if r.Execute(&fakeWorkload{}) != ExitOK {
		t.Fatal("run failed")
	}
	if s := r.Live(); s.Latency != nil || s.ErrorCodes != nil {
		t.Errorf("Live without Series: %+v", s)
	}
}

// TestSubtractErrors: the warm-up's errors come off by code.
func TestSubtractErrors(t *testing.T) {
	for _, tc := range []struct {
		name            string
		all, base, want []ErrorCount
	}{
		{"no base: all as they are", []ErrorCount{{"1", 3, "a"}}, nil, []ErrorCount{{"1", 3, "a"}}},
		{"base taken off its own code only", []ErrorCount{{"1", 3, "a"}, {"2", 5, "b"}}, []ErrorCount{{"2", 1, "b"}},
			[]ErrorCount{{"1", 3, "a"}, {"2", 4, "b"}}},
		{"a code seen only in the warm-up is left out", []ErrorCount{{"1", 2, "a"}, {"2", 5, "b"}}, []ErrorCount{{"1", 2, "a"}},
			[]ErrorCount{{"2", 5, "b"}}},
	} {
		if got := subtractErrors(tc.all, tc.base); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestLiveOpenSecond: a latency the collector has taken counts at once,
// before the second it falls in is closed.
func TestLiveOpenSecond(t *testing.T) {
	r := NewRun(Config{Threads: 1, Series: true}, NewLogger(&lockedBuffer{}, 3))
	r.markStart()
	r.coll.begin()
	defer r.coll.end()
	r.threads[0].counters[CounterEvent].Add(1)
	r.coll.rings[0].push(2_000_000)
	r.coll.collect()
	s := r.Live()
	if s.Events != 1 || s.Latency.TotalCount() != 1 || s.LatencySum != 0.002 {
		t.Errorf("%d events, %d latencies summing to %v s; want 1 of 0.002 s", s.Events, s.Latency.TotalCount(), s.LatencySum)
	}
}
