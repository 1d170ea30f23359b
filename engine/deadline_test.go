package engine

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// stallWorkload stands for a database that stops answering: its events
// take a millisecond until stall is set, then the next event of each
// thread that stallThread lets stall waits for the worker's context, as a
// driver call does, and fails when it ends. It reports in SQL style, and
// tells the run its lost-connection error when lostCode is set.
type stallWorkload struct {
	stall       atomic.Bool
	stallThread func(tid int) bool // nil: every thread
	// ignoreCtx makes the stalled event deaf to its context: it waits
	// for release instead (a driver that does not honour the context).
	ignoreCtx bool
	release   chan struct{}
	// doneBlocks makes thread_done wait for the worker's context.
	doneBlocks bool
	// initBlocks makes thread_init wait for the worker's context (a
	// connect that hangs).
	initBlocks bool

	lostCode      string
	lostIgnorable bool

	stalled  atomic.Int64 // events that stalled
	finished atomic.Int64 // events counted (Stop called)
	doneErrs atomic.Int64 // thread_done calls that failed
	mainDone atomic.Bool  // done() ran
}

func (w *stallWorkload) SQLMode() bool { return true }

func (w *stallWorkload) LostConnection() (code, msg string, ignorable, ok bool) {
	return w.lostCode, "Lost connection", w.lostIgnorable, w.lostCode != ""
}

func (w *stallWorkload) Init(*Events) error { return nil }
func (w *stallWorkload) Done() error        { w.mainDone.Store(true); return nil }

func (w *stallWorkload) NewThread(id int, ev *Events) (Thread, error) {
	return &stallThread{w: w, ev: ev}, nil
}

type stallThread struct {
	w  *stallWorkload
	ev *Events
}

// errCancelled is what a stalled call fails with once its context ends.
var errCancelled = errors.New("lost connection: context canceled")

func (t *stallThread) Init() error {
	if t.w.initBlocks {
		<-t.ev.Context().Done()
		return errCancelled
	}
	return nil
}

func (t *stallThread) Run() error {
	for t.ev.More() {
		t.ev.Start()
		if t.w.stall.Load() && (t.w.stallThread == nil || t.w.stallThread(t.ev.ID())) {
			t.w.stalled.Add(1)
			if t.w.ignoreCtx {
				<-t.w.release
			} else {
				<-t.ev.Context().Done()
			}
			t.ev.Abandon()
			return errCancelled
		}
		time.Sleep(time.Millisecond)
		t.ev.Count(CounterRead)
		t.ev.Stop()
		t.w.finished.Add(1)
	}
	return nil
}

func (t *stallThread) Done() error {
	if t.w.doneBlocks {
		<-t.ev.Context().Done()
		t.w.doneErrs.Add(1)
		return errCancelled
	}
	return nil
}

func (t *stallThread) Close() {}

// runStall runs w with cfg; stallAfter after the start the database
// stops answering, and interruptAfter (when > 0) after the start the run
// is interrupted. It returns the run, the exit code and the output. The
// run must end on its own: a hang fails the test by the package timeout.
func runStall(t *testing.T, w *stallWorkload, cfg Config, stallAfter, interruptAfter time.Duration) (*Run, int, string) {
	t.Helper()
	if cfg.Percentile == 0 {
		cfg.Percentile = 95
	}
	cfg.ForcedShutdown = -1
	out := &lockedBuffer{}
	r := NewRun(cfg, NewLogger(out, 3))
	stallTimer := time.AfterFunc(stallAfter, func() { w.stall.Store(true) })
	defer stallTimer.Stop()
	if interruptAfter > 0 {
		it := time.AfterFunc(interruptAfter, r.Interrupt)
		defer it.Stop()
	}
	code := r.Execute(w)
	return r, code, out.String()
}

var (
	reportMax     = regexp.MustCompile(`(?m)^ +max: +([0-9.]+)$`)
	reportPct     = regexp.MustCompile(`(?m)^ +100th percentile: +([0-9.]+)$`)
	reportIgnored = regexp.MustCompile(`(?m)^ +ignored errors: +(\d+)`)
	reportEvents  = regexp.MustCompile(`(?m)^ +transactions: +(\d+)`)
)

// reportNumber reads the first number re finds in out.
func reportNumber(t *testing.T, re *regexp.Regexp, out string) float64 {
	t.Helper()
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %v in output:\n%s", re, out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDeadlineAbandonsStalledEvents: the database stops answering during
// a time-limited run. StopGrace after the time limit the two stalled
// events are abandoned and counted: the lost-connection error, fatal by
// default (exit 1, no ignored error), or ignored (exit 0); either way the
// report warns that it is incomplete and its maximum and percentile show
// the stall, which lasted at least StopGrace, while the transactions are
// the events that finished.
func TestDeadlineAbandonsStalledEvents(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ignorable bool
		code      int
		ignored   float64
		warning   string
	}{
		// 2013 is not in the ignore list: a fatal error.
		{"fatal", false, ExitFailed, 0, "WARNING: 2 events in flight abandoned 0.8 s after the run stopped (error 2013, fatal): the report below is incomplete"},
		// --mysql-ignore-errors=2013: two ignored errors, exit 0.
		{"ignored", true, ExitOK, 2, "WARNING: 2 events in flight abandoned 0.8 s after the run stopped (error 2013, ignored): the report below is incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &stallWorkload{lostCode: "2013", lostIgnorable: tc.ignorable}
			r, code, out := runStall(t, w, Config{Threads: 2, Time: 300 * time.Millisecond, Series: true, Percentile: 100}, 100*time.Millisecond, 0)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, out)
			}
			if !strings.Contains(out, tc.warning) {
				t.Errorf("output lacks %q:\n%s", tc.warning, out)
			}
			if strings.Index(out, tc.warning) > strings.Index(out, "SQL statistics:") {
				t.Errorf("the warning comes after the report:\n%s", out)
			}
			if got := reportNumber(t, reportIgnored, out); got != tc.ignored {
				t.Errorf("ignored errors %v, want %v", got, tc.ignored)
			}
			if got, want := reportNumber(t, reportEvents, out), float64(w.finished.Load()); got != want {
				t.Errorf("transactions %v, want the %v events that finished", got, want)
			}
			grace := float64(StopGrace / time.Millisecond)
			if got := reportNumber(t, reportMax, out); got < grace {
				t.Errorf("max latency %v ms hides a stall longer than %v ms", got, grace)
			}
			if got := reportNumber(t, reportPct, out); got < grace {
				t.Errorf("100th percentile %v ms: the stalled events are missing from the histogram", got)
			}
			s := r.Summary()
			if s.Complete || !strings.Contains(s.Reason, "2 events in flight abandoned") {
				t.Errorf("summary complete=%v reason %q, want incomplete with the abandoned events", s.Complete, s.Reason)
			}
			if len(s.Errors) != 1 || s.Errors[0].Code != "2013" || s.Errors[0].Count != 2 {
				t.Errorf("errors by code %+v, want 2 of 2013", s.Errors)
			}
			if max := s.Latency.Max(); max < int64(StopGrace) {
				t.Errorf("the results' latency maximum %v ns hides the stall", max)
			}
			if !w.mainDone.Load() {
				t.Error("done() was not called")
			}
		})
	}
}

// TestDeadlineOnInterrupt: an interrupt during a stall ends the run at
// its deadline, exit 1, with both warnings; a second interrupt brings
// the deadline forward.
func TestDeadlineOnInterrupt(t *testing.T) {
	w := &stallWorkload{lostCode: "08006", lostIgnorable: true}
	_, code, out := runStall(t, w, Config{Threads: 2}, 50*time.Millisecond, 150*time.Millisecond)
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"WARNING: the run stopped early (interrupted): the report below is incomplete",
		"WARNING: 2 events in flight abandoned 0.8 s after the run stopped (error 08006, ignored)",
		"General statistics:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	w = &stallWorkload{lostCode: "08006"}
	out2 := &lockedBuffer{}
	r := NewRun(Config{Threads: 1, Percentile: 95, ForcedShutdown: -1}, NewLogger(out2, 3))
	w.stall.Store(true)
	time.AfterFunc(50*time.Millisecond, func() { r.Interrupt(); r.Interrupt() })
	if code := r.Execute(w); code != ExitFailed {
		t.Errorf("exit %d after two interrupts, want 1", code)
	}
	if !strings.Contains(out2.String(), "1 event in flight abandoned") {
		t.Errorf("no abandoned event after two interrupts:\n%s", out2.String())
	}
}

// TestDeadlineWithoutDriver: a workload that cannot tell its
// lost-connection error has its abandoned event counted as a fatal
// "abandoned".
func TestDeadlineWithoutDriver(t *testing.T) {
	w := &stallWorkload{stallThread: func(tid int) bool { return tid == 0 }}
	_, code, out := runStall(t, w, Config{Threads: 2, Time: 200 * time.Millisecond}, 50*time.Millisecond, 0)
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "1 event in flight abandoned 0.8 s after the run stopped (error abandoned, fatal)"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	// Thread 1 finished its events: it ran thread_done and counted them.
	if got, want := reportNumber(t, reportEvents, out), float64(w.finished.Load()); got != want || got == 0 {
		t.Errorf("transactions %v, want the %v that finished", got, want)
	}
}

// TestDeadlineCutsThreadDone: thread_done still waiting at the deadline
// fails, which is logged once and does not fail the run; done() runs.
func TestDeadlineCutsThreadDone(t *testing.T) {
	w := &stallWorkload{doneBlocks: true, lostCode: "2013"}
	w.stall.Store(false)
	_, code, out := runStall(t, w, Config{Threads: 3, Time: 100 * time.Millisecond}, time.Hour, 0)
	if code != ExitOK {
		t.Errorf("exit %d, want 0:\n%s", code, out)
	}
	if n := w.doneErrs.Load(); n != 3 {
		t.Errorf("%d thread_done calls cut, want 3", n)
	}
	if got := strings.Count(out, "thread_done cut short at the run's deadline"); got != 1 {
		t.Errorf("the cut thread_done logged %d times, want once:\n%s", got, out)
	}
	if strings.Contains(out, "in flight abandoned") || strings.Contains(out, "FATAL") {
		t.Errorf("no event was abandoned, nothing failed:\n%s", out)
	}
	if !w.mainDone.Load() {
		t.Error("done() was not called")
	}
}

// TestDeadlineLeavesDeafWorkersBehind: a worker whose call does not end
// with its context is left running cutSettle after the deadline; the
// report is printed anyway, its event counted, and done() not called.
func TestDeadlineLeavesDeafWorkersBehind(t *testing.T) {
	w := &stallWorkload{ignoreCtx: true, release: make(chan struct{}), lostCode: "2013", lostIgnorable: true}
	defer close(w.release)
	_, code, out := runStall(t, w, Config{Threads: 2, Time: 200 * time.Millisecond}, 50*time.Millisecond, 0)
	if code != ExitOK {
		t.Errorf("exit %d, want 0 (the abandoned events' error is ignored):\n%s", code, out)
	}
	for _, want := range []string{
		"WARNING: 2 worker threads still busy at the run's deadline, 0.8 s after the stop: left running",
		"2 events in flight abandoned",
		"General statistics:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if w.mainDone.Load() {
		t.Error("done() ran while workers were still inside the script")
	}
}

// TestDeadlineEndsHangingInit: an interrupt while thread_init hangs on a
// connect ends the run at the deadline, exit 1, and names the
// interrupt rather than a failure.
func TestDeadlineEndsHangingInit(t *testing.T) {
	w := &stallWorkload{initBlocks: true}
	_, code, out := runStall(t, w, Config{Threads: 2, Time: 10 * time.Second}, time.Hour, 100*time.Millisecond)
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "WARNING: the run stopped early (interrupted): thread_init was cut short 0.8 s after the interrupt"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "FATAL") {
		t.Errorf("an interrupted init is not a failure:\n%s", out)
	}
}

// TestNoDeadlineAfterTheEvents: a run that ends by its event limit has
// no deadline: done() may take longer than StopGrace with its context
// alive, and events slower than it count as events.
func TestNoDeadlineAfterTheEvents(t *testing.T) {
	var ctxErr atomic.Value
	w := &doneWaiter{wait: StopGrace + 200*time.Millisecond, ctxErr: &ctxErr}
	out := &lockedBuffer{}
	code := NewRun(Config{Threads: 1, Events: 2, Percentile: 95, ForcedShutdown: -1}, NewLogger(out, 3)).Execute(w)
	if code != ExitOK {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	if err, _ := ctxErr.Load().(error); err != nil {
		t.Errorf("done()'s context ended (%v) in a run that had no deadline", err)
	}
}

// doneWaiter's done() takes wait, then records its context's error.
type doneWaiter struct {
	fakeWorkload
	wait   time.Duration
	ctx    context.Context
	ctxErr *atomic.Value
}

func (w *doneWaiter) Init(ev *Events) error { w.ctx = ev.Context(); return nil }
func (w *doneWaiter) Done() error {
	time.Sleep(w.wait)
	if err := w.ctx.Err(); err != nil {
		w.ctxErr.Store(err)
	}
	return nil
}
