package engine

import (
	"strconv"
	"time"
)

// The run's deadline. When a run stops (the --time limit, the first
// SIGINT or SIGTERM, a failed worker), the workers finish the event they
// are in, as sysbench's do; but no wait on the database may outlive the
// run, so StopGrace after the stop whatever is still waiting is given up
// (cut): each event still in flight is counted as the driver's
// lost-connection error, with its latency up to that moment, and the
// run's context is cancelled, which closes the connections those events
// wait on. The worker of such an event skips thread_done; a worker inside
// thread_done has its calls fail; done() still runs, with its calls
// failing too. The report follows at once, with a warning that it is
// incomplete. docs/reliability.md ("Deadlines") has the rule and the
// figures.

// StopGrace is how long after the stop the workers may go on with the
// events they are in. It leaves cutSettle and the report within the
// second after the stop that the process has to end in.
const StopGrace = 800 * time.Millisecond

// cutSettle is how long the run waits, after the deadline, for workers
// whose calls it cancelled to return. A worker still busy then (a driver
// that does not honour its context, a script looping in Lua) is left
// running: the report does not wait for it, and the process ends after
// the report as after a forced shutdown.
const cutSettle = 100 * time.Millisecond

// ConnectionLoss is a workload that tells how its database driver
// reports a lost connection, which is what the run counts an abandoned
// event as. A workload without it (or without a driver) has its abandoned
// events counted under the code "abandoned", a fatal error.
type ConnectionLoss interface {
	// LostConnection returns the driver's lost-connection error: its
	// code as the results file counts errors (MySQL's "2013",
	// PostgreSQL's "08006"), its message, and whether the driver's
	// ignore list has it. It is called once, from a goroutine of the
	// run's own; ok is false when the workload uses no driver.
	LostConnection() (code, msg string, ignorable, ok bool)
}

// lostConnection is what an abandoned event counts as (ConnectionLoss).
type lostConnection struct {
	code, msg string
	ignorable bool
}

// workloadBox holds the run's workload in an atomic.Value, which takes
// one concrete type only.
type workloadBox struct{ w Workload }

// lostConnection asks the workload how an abandoned event is counted.
func (r *Run) lostConnection() lostConnection {
	l := lostConnection{code: "abandoned", msg: "abandoned at the run's deadline"}
	box, _ := r.workload.Load().(workloadBox)
	if cl, ok := box.w.(ConnectionLoss); ok {
		if code, msg, ignorable, ok := cl.LostConnection(); ok {
			l = lostConnection{code: code, msg: msg, ignorable: ignorable}
		}
	}
	return l
}

// armDeadline starts the clock of the deadline, once per run.
func (r *Run) armDeadline() {
	r.armOnce.Do(func() {
		r.cutTimer = time.AfterFunc(StopGrace, r.cut)
	})
}

// disarmDeadline makes sure the deadline never comes: Execute calls it
// when it returns, after its own report.
func (r *Run) disarmDeadline() {
	r.armOnce.Do(func() {})
	if r.cutTimer != nil {
		r.cutTimer.Stop()
	}
}

// cut is the deadline (see above). Each event still in flight is taken
// from its worker (Events.inflight: the worker's Stop then finds it gone
// and counts nothing) and counted here, with the atomics the reports
// read; then the run's context is cancelled. Only the error counts by
// code, which a worker keeps in a map of its own, are kept apart, in
// cutErrs, which only cut writes.
func (r *Run) cut() {
	r.cutOnce.Do(func() {
		lost := r.lostConnection()
		r.lost.Store(&lost)
		at := now()
		var n int64
		for _, ev := range r.events {
			if start := ev.inflight.Swap(0); start != 0 {
				r.countCut(ev, at-start, &lost)
				n++
			}
		}
		r.cutEvents.Store(n)
		r.cancel()
		close(r.cutDone)
	})
}

// countCut counts one abandoned event of ev's worker, ns long so far: an
// error (an ignored one if the driver's ignore list has the code), its
// latency in the maximum, the percentiles and the series, not in the
// events nor the average.
func (r *Run) countCut(ev *Events, ns int64, lost *lostConnection) {
	st := ev.stats
	if lost.ignorable {
		st.counters[CounterError].Add(1)
	}
	st.cutNs.Store(ns)
	if r.cfg.Percentile > 0 {
		ev.shard.Record(ns)
	}
	if r.coll != nil {
		r.coll.recordCut(ns)
		r.cutErrs.add(lost.code, lost.msg)
	}
}

// warnCut logs, once per run, that what ran after the deadline (a
// thread_done, done(), a thread_init) failed because of it; err is the
// first such failure. It does not fail the run.
func (r *Run) warnCut(what string, err error) {
	if r.cutWarned.Swap(true) {
		return
	}
	r.log.Logf(LevelWarning, "%s cut short at the run's deadline, %s after the stop: %s",
		what, formatGrace(), firstLine(err.Error()))
}

// warnAbandoned logs the warning that precedes the report of a run whose
// deadline abandoned events, and returns the exit code that abandonment
// gives: the lost-connection error is fatal unless ignored.
func (r *Run) warnAbandoned() int {
	n := r.cutEvents.Load()
	if n == 0 {
		return ExitOK
	}
	lost := r.lost.Load()
	kind, code := "fatal", ExitFailed
	if lost.ignorable {
		kind, code = "ignored", ExitOK
	}
	noun := "events"
	if n == 1 {
		noun = "event"
	}
	r.log.Logf(LevelWarning, "%d %s in flight abandoned %s after the run stopped (error %s, %s): the report below is incomplete",
		n, noun, formatGrace(), lost.code, kind)
	return code
}

// formatGrace is StopGrace as the warnings say it: "0.8 s".
func formatGrace() string {
	return strconv.FormatFloat(StopGrace.Seconds(), 'f', -1, 64) + " s"
}

// awaitOutcome is how the wait for the workers ended.
type awaitOutcome int

const (
	allReturned awaitOutcome = iota // every worker returned
	forcedOut                       // the --forced-shutdown alarm rang first
	leftBehind                      // the deadline passed, and some did not return
)

// settle waits, once the deadline has passed, cutSettle at most for done
// to be closed; false means it was not.
func settle(done <-chan struct{}) bool {
	t := time.NewTimer(cutSettle)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
