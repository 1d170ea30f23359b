package engine

import (
	"context"
	"sync/atomic"
	"time"

	"sbgo/internal/sched"
)

// Counter names one of the per-thread counters that sysbench keeps
// (spec §2.8). The values are those of sysbench's sb_counter_type, which
// scripts reach through ffi.C.SB_CNT_*.
type Counter int

const (
	CounterOther Counter = iota
	CounterRead
	CounterWrite
	CounterEvent
	CounterError
	CounterReconnect
	// CounterAmbiguousCommit is sbgo's own: COMMITs whose session was
	// lost after they were sent, so that the client cannot know whether
	// they committed (db.Error.InDoubt). Not one of sysbench's, so
	// scripts cannot reach it through ffi.C.sb_counter_inc.
	CounterAmbiguousCommit
	numCounters
)

// threadStats is what one worker accumulates. Only its own worker writes
// it; the reporter reads it concurrently, so every field is atomic. The
// atomics are uncontended (one writer, an occasional reader), so an update
// costs a locked add on a cache line no other core writes. The padding
// keeps neighbouring workers' stats off each other's cache lines.
type threadStats struct {
	counters [numCounters]atomic.Uint64
	// The latency timer: the total, min and max (ns) of the events counted
	// in counters[CounterEvent].
	sumNs atomic.Int64
	minNs atomic.Int64
	maxNs atomic.Int64
	// cutNs is the latency, up to the run's deadline, of the event the
	// run abandoned in this worker (see Run.cut), 0 for none. It is not
	// in the timer above: the event did not finish, so it is in the
	// maximum and the percentiles only.
	cutNs atomic.Int64
	_     [64]byte
}

// snapshot is a copy of one thread's stats at one moment; reports are the
// difference of two snapshots, so nothing is ever reset under a worker.
type snapshot struct {
	counters [numCounters]uint64
	sumNs    int64
}

// timed is the number of events whose latency the snapshot covers.
func (s *snapshot) timed() uint64 { return s.counters[CounterEvent] }

func (t *threadStats) snapshot() snapshot {
	var s snapshot
	for i := range t.counters {
		s.counters[i] = t.counters[i].Load()
	}
	s.sumNs = t.sumNs.Load()
	return s
}

// Events is one worker's handle on the run: sysbench's sb_more_events,
// sb_event_start, sb_event_stop and sb_counter_inc. It belongs to one
// goroutine; its methods are the per-event path and do not allocate or
// take a lock.
type Events struct {
	run   *Run
	id    int
	stats *threadStats
	shard *LatencyShard
	// ring and errs are nil unless Config.Series is set.
	ring  *latencyRing
	errs  *errorCounts
	start int64 // monotonic ns (see now) when the event started
	// queued is the arrival time of the event being run in --rate mode:
	// its latency counts from the arrival, so it includes the queue wait.
	queued int64
	// yieldAt is when a worker that owns its OS thread next passes
	// through the scheduler (see lockedYieldEvery); 0 for other workers.
	yieldAt int64
	// locked tells whether that worker is locked to its thread
	// (runtime.LockOSThread, see ThreadPolicy.Locked).
	locked bool
	// ctx is the worker's own child of the run's context (see Context).
	ctx    context.Context
	cancel context.CancelFunc
	// inflight is the start (see now) of the event in progress, 0
	// between events. Start stores it and Stop takes it back; the run's
	// deadline takes it instead from an event still in progress then,
	// and counts that event itself (Run.cut), so each event is counted
	// by exactly one of them.
	inflight atomic.Int64
}

// clockBase anchors now: time.Since reads only the monotonic clock (one
// vDSO call), where time.Now reads the wall clock too.
var clockBase = time.Now()

// now is the monotonic time in nanoseconds since clockBase.
func now() int64 { return int64(time.Since(clockBase)) }

// ID is the worker's thread id (sysbench.tid).
func (e *Events) ID() int { return e.id }

// More reports whether the worker should start another event. It checks,
// in sysbench's order, the error flag, the time limit, the event limit and,
// with --rate, waits for the next arrival.
func (e *Events) More() bool {
	r := e.run
	if r.stopping.Load() {
		if r.timeUp.Load() {
			r.log.Logf(LevelInfo, "Time limit exceeded, exiting...")
		}
		return false
	}
	if r.eventLimit > 0 && !r.warming.Load() {
		if r.eventsStarted.Add(1) > r.eventLimit {
			r.log.Logf(LevelInfo, "Event limit exceeded, exiting...")
			return false
		}
	}
	if r.pacer != nil {
		at, ok := r.pacer.next(r.stopCh)
		if !ok {
			return false
		}
		e.queued = int64(at.Sub(clockBase))
	}
	return true
}

// Start starts the latency timer of an event.
func (e *Events) Start() {
	if e.run.pacer != nil {
		e.start = e.queued
	} else {
		e.start = now()
	}
	e.inflight.Store(max(e.start, 1))
}

// Stop ends the event: it counts one event and records its latency,
// unless the run's deadline has abandoned and counted it already.
func (e *Events) Stop() {
	if e.inflight.Swap(0) == 0 {
		e.Abandon()
		return
	}
	ns := now() - e.start
	st := e.stats
	st.counters[CounterEvent].Add(1)
	st.sumNs.Add(ns)
	if ns < st.minNs.Load() {
		st.minNs.Store(ns)
	}
	if ns > st.maxNs.Load() {
		st.maxNs.Store(ns)
	}
	if e.run.cfg.Percentile > 0 {
		e.shard.Record(ns)
	}
	if e.ring != nil && !e.run.warming.Load() {
		e.ring.push(ns)
	}
	if e.run.pacer != nil {
		e.run.pacer.done()
	}
}

// Abandon leaves an event without counting it, as sysbench does when
// event() returns a truthy value.
func (e *Events) Abandon() {
	e.inflight.Store(0)
	if e.run.pacer != nil {
		e.run.pacer.done()
	}
}

// Count adds one to counter c. The SQL bindings call it once per
// statement, which makes it the point where a worker that owns its OS
// thread lets the scheduler start its next time slice (see
// lockedYieldEvery).
func (e *Events) Count(c Counter) {
	if c >= 0 && c < numCounters {
		e.stats.counters[c].Add(1)
	}
	if e.yieldAt != 0 {
		if t := now(); t >= e.yieldAt {
			e.yieldAt = t + lockedYieldEvery
			sched.YieldThread(e.locked)
		}
	}
}

// CountError records one failed statement by its code (a MySQL errno in
// decimal, a PostgreSQL SQLSTATE) for the results file; the first message
// of each code is kept. It costs nothing unless Config.Series is set, and
// the bindings call it besides Count(CounterError), on the error path only.
func (e *Events) CountError(code, msg string) {
	if e.errs != nil {
		e.errs.add(code, msg)
	}
}

// Recording tells whether the run keeps the series CountError feeds, so
// that a binding builds an error's code only when it is wanted.
func (e *Events) Recording() bool { return e.errs != nil }

// Stopping reports whether the run is ending; long loops in bindings
// (retries, reconnects) check it so they never outlive --time.
func (e *Events) Stopping() bool { return e.run.stopping.Load() }

// Done is closed when the run stops starting events.
func (e *Events) Done() <-chan struct{} { return e.run.stopCh }

// Context is the run's context, which the bindings pass to every database
// call: it is cancelled when the run abandons the work in flight (its
// deadline, StopGrace after the stop; a forced shutdown; a second
// interrupt; the end of Run.Execute), not when it merely stops starting
// events (Done). Each worker has a child of its
// own, made once, so a binding may keep it for the worker's life, and a
// driver that registers on it per call (context.AfterFunc) takes no lock
// another worker takes.
func (e *Events) Context() context.Context { return e.ctx }

// lockedYieldEvery is how often a worker that owns its OS thread passes
// through the scheduler of its own accord (see Events.Count): just within
// the runtime's 10 ms time slice, so that sysmon never preempts it between
// statements shorter than 2 ms, and no more often: yields every 2 ms cost
// more than they kept.
//
// Why yield at all: such a worker waits for its server in raw read(2)
// calls and keeps its processor all the while, so sysmon sees one
// goroutine running for ever and preempts it every 10 ms: a signal that
// cuts the read short and, for a locked worker, a hand-off through a
// second thread. With these yields client CPU per oltp_read_only
// transaction went from 1.46 to 0.92 times sysbench's
// (docs/performance.md, "Passes through the scheduler"). The yield itself
// is sched.YieldThread.
const lockedYieldEvery = int64(8 * time.Millisecond)
