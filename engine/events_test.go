package engine

import (
	"math"
	"testing"
	"time"
)

// newTestEvents is a worker handle outside a run: no pacer, no latency
// histogram (--percentile=0), not locked to its thread.
func newTestEvents() *Events {
	st := &threadStats{}
	st.minNs.Store(math.MaxInt64)
	return &Events{run: &Run{}, stats: st}
}

// TestCountEachKind counts each kind once, and kinds outside the table:
// every kind lands in its own counter, and an out-of-range kind (a script
// may pass any number to ffi.C.sb_counter_inc) is ignored, not a panic.
func TestCountEachKind(t *testing.T) {
	e := newTestEvents()
	for c := Counter(-1); c <= numCounters; c++ {
		for range int(c) + 2 { // -1 once, CounterOther twice, ... numCounters 8 times
			e.Count(c)
		}
	}
	for c := range numCounters {
		if got, want := e.stats.counters[c].Load(), uint64(c)+2; got != want {
			t.Errorf("counter %d: %d, want %d", c, got, want)
		}
	}
}

// TestStopMeasuresFromStart: an event's latency is the time from Start to
// Stop, so it lies within the interval the test brackets around them. The
// test first waits until the clock reads 10 ms past clockBase: a sum in
// place of the difference then exceeds any bracket under 20 ms.
func TestStopMeasuresFromStart(t *testing.T) {
	for now() < int64(10*time.Millisecond) {
		time.Sleep(time.Millisecond)
	}
	e := newTestEvents()
	t0 := now()
	e.Start()
	e.Stop()
	t1 := now()
	st := e.stats
	sum, lo, hi := st.sumNs.Load(), st.minNs.Load(), st.maxNs.Load()
	if sum < 0 || sum > t1-t0 || lo != sum || hi != sum {
		t.Errorf("sum/min/max %d/%d/%d ns for an event within %d ns", sum, lo, hi, t1-t0)
	}
	if n := st.counters[CounterEvent].Load(); n != 1 {
		t.Errorf("%d events counted, want 1", n)
	}
}
