package engine

import (
	"bytes"
	"errors"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockedBuffer collects a run's output from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fakeWorkload is a Go workload: event is called once per event.
type fakeWorkload struct {
	event   func(tid int, n int) (stop bool, err error)
	initErr func(tid int) error
	sleepy  time.Duration // each event sleeps this long
	// count, when set, counts the event's statement in place of
	// ev.Count(CounterRead).
	count    func(ev *Events)
	started  atomic.Int64 // events started, across threads
	finished atomic.Int64 // events counted (Stop called)
}

type fakeThread struct {
	w  *fakeWorkload
	ev *Events
}

func (w *fakeWorkload) NewThread(id int, ev *Events) (Thread, error) {
	return &fakeThread{w: w, ev: ev}, nil
}

func (t *fakeThread) Init() error {
	if t.w.initErr != nil {
		return t.w.initErr(t.ev.ID())
	}
	return nil
}

func (t *fakeThread) Run() error {
	for n := 1; t.ev.More(); n++ {
		t.ev.Start()
		t.w.started.Add(1)
		if t.w.sleepy > 0 {
			time.Sleep(t.w.sleepy)
		}
		if t.w.event != nil {
			stop, err := t.w.event(t.ev.ID(), n)
			if err != nil {
				t.ev.Abandon()
				return err
			}
			if stop {
				t.ev.Abandon()
				return nil
			}
		}
		if t.w.count != nil {
			t.w.count(t.ev)
		} else {
			t.ev.Count(CounterRead)
		}
		t.ev.Stop()
		t.w.finished.Add(1)
	}
	return nil
}

func (t *fakeThread) Done() error { return nil }
func (t *fakeThread) Close()      {}

// execute runs w with cfg and returns the exit code and the output.
func execute(t *testing.T, cfg Config, w Workload) (int, string) {
	t.Helper()
	if cfg.Percentile == 0 {
		cfg.Percentile = 95
	}
	if cfg.ForcedShutdown == 0 {
		cfg.ForcedShutdown = -1
	}
	out := &lockedBuffer{}
	code := NewRun(cfg, NewLogger(out, 3)).Execute(w)
	return code, out.String()
}

var eventsLine = regexp.MustCompile(`total number of events:\s+([0-9]+)`)

// reportedEvents sums the "total number of events" of every report in out
// (checkpoints and the final one).
func reportedEvents(t *testing.T, out string) int64 {
	t.Helper()
	var sum int64
	ms := eventsLine.FindAllStringSubmatch(out, -1)
	if len(ms) == 0 {
		t.Fatalf("no report in output:\n%s", out)
	}
	for _, m := range ms {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	return sum
}

func TestEventLimitIsExact(t *testing.T) {
	w := &fakeWorkload{}
	code, out := execute(t, Config{Threads: 4, Events: 1000}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got := reportedEvents(t, out); got != 1000 {
		t.Errorf("reported %d events, want exactly 1000", got)
	}
	if got := w.finished.Load(); got != 1000 {
		t.Errorf("ran %d events, want exactly 1000", got)
	}
}

func TestTimeLimitStopsTheRun(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	code, out := execute(t, Config{Threads: 2, Time: 200 * time.Millisecond}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got, want := reportedEvents(t, out), w.finished.Load(); got != want {
		t.Errorf("reported %d events, ran %d", got, want)
	}
	if !strings.Contains(out, "Threads started!") || !strings.Contains(out, "Threads fairness:") {
		t.Errorf("missing report blocks:\n%s", out)
	}
}

func TestTruthyEventReturnStopsOnlyThatThreadUncounted(t *testing.T) {
	// Thread 0 stops at its first event; thread 1 runs to the time limit.
	var calls [2]atomic.Int64
	w := &fakeWorkload{sleepy: time.Millisecond, event: func(tid, n int) (bool, error) {
		calls[tid].Add(1)
		return tid == 0, nil
	}}
	code, out := execute(t, Config{Threads: 2, Time: 200 * time.Millisecond}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := calls[0].Load(); n != 1 {
		t.Errorf("thread 0 ran %d events after returning true, want 1", n)
	}
	// Thread 0's event is not counted: every counted event is thread 1's.
	if got, want := reportedEvents(t, out), calls[1].Load(); got != want || got == 0 {
		t.Errorf("reported %d events, thread 1 ran %d", got, want)
	}
}

func TestWorkerFailurePrintsIncompleteReportAndFails(t *testing.T) {
	w := &fakeWorkload{event: func(tid, n int) (bool, error) {
		if tid == 1 && n == 3 {
			return false, errors.New("`thread_run' function failed: x.lua:3: boom")
		}
		return false, nil
	}, sleepy: time.Millisecond}
	code, out := execute(t, Config{Threads: 3}, w) // no limits: only the failure ends it
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	for _, want := range []string{
		"FATAL: `thread_run' function failed: x.lua:3: boom",
		"WARNING: the run stopped early (`thread_run' function failed: x.lua:3: boom): the report below is incomplete",
		"General statistics:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got, want := reportedEvents(t, out), w.finished.Load(); got != want {
		t.Errorf("reported %d events, ran %d: counts lost", got, want)
	}
}

func TestThreadInitFailure(t *testing.T) {
	w := &fakeWorkload{initErr: func(tid int) error {
		if tid == 2 {
			return errors.New("`thread_init' function failed: x.lua:1: no")
		}
		return nil
	}}
	code, out := execute(t, Config{Threads: 3, Events: 10}, w)
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"FATAL: `thread_init' function failed: x.lua:1: no", "FATAL: Thread initialization failed!"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "General statistics") || w.started.Load() != 0 {
		t.Errorf("a run that failed to initialize must not run events or report:\n%s", out)
	}
}

// phasedWorkload is a fakeWorkload with init()/done() and report hooks,
// to follow which phases a run that cannot start goes through.
type phasedWorkload struct {
	fakeWorkload
	newReporterErr func(n int) error // for the nth report state, from 1
	reporters      atomic.Int64      // report states made
	closed         atomic.Int64      // report states closed
	doneCalled     atomic.Bool
}

type closeCounter struct{ closed *atomic.Int64 }

func (c closeCounter) ReportIntermediate(*Stats) error { return nil }
func (c closeCounter) ReportCumulative(*Stats) error   { return nil }
func (c closeCounter) Close()                          { c.closed.Add(1) }

func (w *phasedWorkload) Init(*Events) error            { return nil }
func (w *phasedWorkload) Done() error                   { w.doneCalled.Store(true); return nil }
func (w *phasedWorkload) HasHooks() (bool, bool)        { return true, true }
func (w *phasedWorkload) ReportCumulative(*Stats) error { return nil }
func (w *phasedWorkload) NewReporter(int) (Reporter, error) {
	n := int(w.reporters.Add(1))
	if w.newReporterErr != nil {
		if err := w.newReporterErr(n); err != nil {
			return nil, err
		}
	}
	return closeCounter{&w.closed}, nil
}

func TestThreadInitTimeout(t *testing.T) {
	// One thread_init never returns within the timeout.
	block := make(chan struct{})
	defer close(block)
	w := &phasedWorkload{fakeWorkload: fakeWorkload{initErr: func(tid int) error {
		if tid == 1 {
			<-block
		}
		return nil
	}}}
	cfg := Config{Threads: 2, Events: 10, ThreadInitTimeout: 100 * time.Millisecond,
		ReportInterval: time.Second, Checkpoints: []time.Duration{time.Second}}
	code, out := execute(t, cfg, w)
	if code != ExitForced {
		t.Errorf("exit %d, want %d", code, ExitForced)
	}
	if !strings.Contains(out, "FATAL: Worker threads failed to initialize within 0 seconds!") {
		t.Errorf("no timeout message:\n%s", out)
	}
	// As in sysbench, done() is not called and nothing is reported; the
	// report states made before the workers are closed.
	if w.doneCalled.Load() || strings.Contains(out, "General statistics") || w.started.Load() != 0 {
		t.Errorf("done() called or events run after an init timeout:\n%s", out)
	}
	if made, closed := w.reporters.Load(), w.closed.Load(); made != 2 || closed != 2 {
		t.Errorf("%d report states made, %d closed; want 2 and 2", made, closed)
	}
}

func TestReportStateFailure(t *testing.T) {
	// The checkpoints' report state fails after the intermediate one was made.
	w := &phasedWorkload{newReporterErr: func(n int) error {
		if n == 2 {
			return errors.New("report state: x.lua:1: no")
		}
		return nil
	}}
	cfg := Config{Threads: 2, Events: 10, ReportInterval: time.Second, Checkpoints: []time.Duration{time.Second}}
	code, out := execute(t, cfg, w)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if !strings.Contains(out, "FATAL: report state: x.lua:1: no") {
		t.Errorf("no failure message:\n%s", out)
	}
	if strings.Contains(out, "Threads started!") || w.started.Load() != 0 {
		t.Errorf("workers started after a report state failed:\n%s", out)
	}
	if closed := w.closed.Load(); closed != 1 {
		t.Errorf("%d report states closed, want the one made", closed)
	}
}

func TestForcedShutdown(t *testing.T) {
	// One thread stuck in an event far longer than --time + the grace.
	w := &fakeWorkload{sleepy: 3 * time.Second}
	code, out := execute(t, Config{Threads: 1, Time: 200 * time.Millisecond, ForcedShutdown: 100 * time.Millisecond}, w)
	if code != ExitForced {
		t.Errorf("exit %d, want %d", code, ExitForced)
	}
	for _, want := range []string{
		"FATAL: The --max-time limit has expired, forcing shutdown...",
		"Number of unfinished transactions on forced shutdown: 1",
		"General statistics:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestInterruptPrintsReportMarkedIncomplete(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	out := &lockedBuffer{}
	r := NewRun(Config{Threads: 2, Percentile: 95, ForcedShutdown: -1}, NewLogger(out, 3))
	time.AfterFunc(150*time.Millisecond, r.Interrupt)
	code := r.Execute(w)
	r.Interrupt() // idempotent: a late second call is harmless
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	text := out.String()
	if !strings.Contains(text, "WARNING: the run stopped early (interrupted): the report below is incomplete") {
		t.Errorf("no incomplete marker:\n%s", text)
	}
	if got, want := reportedEvents(t, text), w.finished.Load(); got != want {
		t.Errorf("reported %d events, ran %d", got, want)
	}
}

func TestRateQueueFull(t *testing.T) {
	// Workers far slower than the arrivals: the queue overflows.
	w := &fakeWorkload{sleepy: 50 * time.Millisecond}
	code, out := execute(t, Config{Threads: 1, Rate: 2e9, Time: 5 * time.Second}, w)
	if code != ExitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "FATAL: "+errQueueFull) {
		t.Errorf("no queue-full message:\n%s", out)
	}
}

func TestRateLimitsEvents(t *testing.T) {
	w := &fakeWorkload{}
	code, out := execute(t, Config{Threads: 2, Rate: 200, Time: 500 * time.Millisecond}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// Poisson arrivals at 200/s for 0.5 s: about 100, never thousands.
	if got := reportedEvents(t, out); got > 400 {
		t.Errorf("%d events at --rate=200 in 0.5 s: the rate is not applied", got)
	}
	if !strings.Contains(out, "Target transaction rate: 200/sec") {
		t.Errorf("run-mode block lacks the rate:\n%s", out)
	}
}

// TestRateLatencyCountsFromArrival: with --rate, an event's latency runs
// from its arrival, not from when a worker picks it up, so a run whose
// workers fall behind reports the queueing (no coordinated omission).
// Arrivals come at 400/s, the one worker manages 50/s: the n-th event
// waits about n*17.5 ms, and the 50 events average some 450 ms against
// 20 ms of work. Timed from the pick-up the average would be the 20 ms;
// the bound of 5x sits far from both, and a slow machine only adds wait.
func TestRateLatencyCountsFromArrival(t *testing.T) {
	const work = 20 * time.Millisecond
	w := &fakeWorkload{sleepy: work}
	code, out := execute(t, Config{Threads: 1, Rate: 400, Events: 50}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	m := regexp.MustCompile(`avg:\s+([0-9.]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no average latency in the report:\n%s", out)
	}
	avg, _ := strconv.ParseFloat(m[1], 64)
	if bound := 5 * float64(work) / float64(time.Millisecond); avg < bound {
		t.Errorf("average latency %.2f ms for %v events arriving faster than they run, want above %.0f ms: the queue wait is not counted\n%s", avg, work, bound, out)
	}
}

func TestCheckpointsAndFinalReportAddUp(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	code, out := execute(t, Config{Threads: 2, Time: 400 * time.Millisecond,
		Checkpoints: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := strings.Count(out, "Checkpoint report:"); n != 2 {
		t.Errorf("%d checkpoint reports, want 2:\n%s", n, out)
	}
	// Each report covers the time since the previous one: together they
	// count every event exactly once.
	if got, want := reportedEvents(t, out), w.finished.Load(); got != want {
		t.Errorf("reports add up to %d events, ran %d", got, want)
	}
}

func TestIntermediateReports(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	code, out := execute(t, Config{Threads: 1, Time: 450 * time.Millisecond, ReportInterval: 100 * time.Millisecond}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := regexp.MustCompile(`(?m)^\[ [0-9]+s \] thds: 1 eps: [0-9.]+ lat \(ms,95%\): [0-9.]+$`).FindAllString(out, -1)
	if len(lines) < 2 {
		t.Errorf("want at least 2 intermediate lines, got %d:\n%s", len(lines), out)
	}
}

func TestWarmupIsNotCounted(t *testing.T) {
	w := &fakeWorkload{sleepy: time.Millisecond}
	cfg := Config{Threads: 1, Time: 200 * time.Millisecond, Warmup: 200 * time.Millisecond}
	code, out := execute(t, cfg, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "Warming up for") {
		t.Errorf("no warm-up line:\n%s", out)
	}
	// Events of the warm-up are not in the report.
	if got, ran := reportedEvents(t, out), w.finished.Load(); got >= ran {
		t.Errorf("reported %d of %d events: the warm-up was counted", got, ran)
	}
	m := regexp.MustCompile(`total time:\s+([0-9.]+)s`).FindStringSubmatch(out)
	if total, _ := strconv.ParseFloat(m[1], 64); total >= 0.4 {
		t.Errorf("total time %.4fs includes the warm-up", total)
	}
}

func TestLatencyIsMeasured(t *testing.T) {
	w := &fakeWorkload{sleepy: 2 * time.Millisecond}
	code, out := execute(t, Config{Threads: 1, Events: 20}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// Each event sleeps at least 2 ms: min and the percentile are at
	// least that (the percentile to within its bucket's 1.8 %).
	for _, field := range []string{"min", "95th percentile"} {
		m := regexp.MustCompile(field + `:\s+([0-9.]+)`).FindStringSubmatch(out)
		v, _ := strconv.ParseFloat(m[1], 64)
		if v < 2*0.98 {
			t.Errorf("%s latency %.2f ms for 2 ms events", field, v)
		}
	}
	// min <= avg <= max, and none absurd: a timer that runs backwards or
	// a minimum or maximum never updated breaks the order. (10 s is far
	// above any 2 ms event on a loaded machine.)
	var lat [3]float64
	for i, field := range []string{"min", "avg", "max"} {
		m := regexp.MustCompile(`(?m)^\s+` + field + `:\s+([0-9.]+)`).FindStringSubmatch(out)
		lat[i], _ = strconv.ParseFloat(m[1], 64)
	}
	if !(lat[0] <= lat[1] && lat[1] <= lat[2] && lat[2] < 10000) {
		t.Errorf("latency min/avg/max %v ms for 2 ms events:\n%s", lat, out)
	}
}

// TestWorkersLockedOnlyWhenFew: workers that own OS threads are locked to
// them up to lockedWorkersPerCPU per CPU, and beyond that they are not,
// yet pass through the scheduler all the same.
func TestWorkersLockedOnlyWhenFew(t *testing.T) {
	for _, threads := range []int{2, lockedWorkersPerCPU*runtime.NumCPU() + 1} {
		var mu sync.Mutex
		locked := map[bool]int{} // Events.locked -> events
		yielding := 0            // events of workers with a yield time
		w := &fakeWorkload{count: func(ev *Events) {
			mu.Lock()
			defer mu.Unlock()
			locked[ev.locked]++
			if ev.yieldAt != 0 {
				yielding++
			}
		}}
		code, out := execute(t, Config{Threads: threads, Events: uint64(2 * threads), ThreadPolicy: ownThreads(threads)}, w)
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		want := threads <= lockedWorkersPerCPU*runtime.NumCPU()
		if len(locked) != 1 || locked[want] == 0 {
			t.Errorf("%d workers: events by locked state %v, want all locked=%v", threads, locked, want)
		}
		if total := locked[true] + locked[false]; yielding != total {
			t.Errorf("%d workers: %d of %d events from workers without a yield time", threads, total-yielding, total)
		}
	}
}
