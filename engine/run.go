package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Workload is a loaded script. NewThread is the heavy call, made once per
// worker in that worker's goroutine; everything the Thread does afterwards
// happens in that goroutine too.
//
// Optional capabilities are optional interfaces, discovered with a type
// assertion: MainState (init/done), SQLReporter (the report style) and
// ReportHooks (report_intermediate / report_cumulative).
type Workload interface {
	NewThread(id int, ev *Events) (Thread, error)
}

// Thread is one worker: sysbench's thread_init, thread_run, thread_done.
// Run loops while ev.More() and returns when the worker should stop.
type Thread interface {
	Init() error
	Run() error
	Done() error
	Close()
}

// MainState is a workload with init() and done() in its main state.
// Init receives the handle of thread 0's counters: as in sysbench, what
// the main state runs (in init()) counts as thread 0's.
type MainState interface {
	Init(ev *Events) error // init(), then the check that event() exists
	Done() error           // done(), called even after a failed run
}

// SQLReporter tells whether any SQL driver was created, which switches
// the reports to sysbench's SQL style (spec §2.8).
type SQLReporter interface {
	SQLMode() bool
}

// ReportHooks is a workload whose script replaces the built-in reports.
type ReportHooks interface {
	// HasHooks tells which hooks the script defined when it was loaded.
	HasHooks() (intermediate, cumulative bool)
	// NewReporter makes the state the report goroutine runs hooks in.
	NewReporter(tid int) (Reporter, error)
	// ReportCumulative runs the final report_cumulative in the main state.
	ReportCumulative(s *Stats) error
}

// Reporter runs report hooks in a state of its own (one goroutine).
type Reporter interface {
	ReportIntermediate(s *Stats) error
	ReportCumulative(s *Stats) error
	Close()
}

// Config is what a run needs from the general options.
type Config struct {
	Threads           int
	Events            uint64        // 0: no limit
	Time              time.Duration // 0: no limit
	Warmup            time.Duration
	Rate              float64 // events per second; 0: unlimited
	ReportInterval    time.Duration
	Checkpoints       []time.Duration // ascending
	ForcedShutdown    time.Duration   // after Time; < 0: off
	ThreadInitTimeout time.Duration
	Histogram         bool
	Percentile        int
	Debug             bool
	Seed              uint64 // 0: seeded from the clock

	// LatencyTap, when set, receives every measured event's latency in
	// ns, in the collector's goroutine (with Series): a test mode that
	// checks the histograms against the raw values.
	LatencyTap func(ns int64)

	// StartAt, when set, is the instant the run phase starts (after
	// thread_init), so that clients started at different moments measure
	// the same window; workers ready after it fail the run instead.
	StartAt time.Time

	// Series keeps what a results file needs (Run.Summary): every
	// latency in an HDR histogram, per-second points and errors by code.
	// Off, it costs the per-event path nothing.
	Series bool

	// ThreadPolicy is how the workers use OS threads and Go's processors
	// (see DecideThreadPolicy); the zero value shares the processors the
	// usual way.
	ThreadPolicy ThreadPolicy
}

// Exit codes, as sysbench's (spec §1.14).
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitForced = 2
)

// Run is one execution of the run command.
type Run struct {
	cfg Config
	log *Logger

	threads []*threadStats
	latency *LatencyHistogram
	pacer   *pacer

	eventLimit    uint64
	eventsStarted atomic.Uint64
	warming       atomic.Bool
	timeUp        atomic.Bool  // the --time limit stopped the run
	running       atomic.Int64 // threads_running

	// stopping is read by every worker before each event; stopCh is closed
	// at the same moment so that blocked waits (the --rate queue) wake up.
	stopping atomic.Bool
	stopCh   chan struct{}
	stopOnce sync.Once

	// ctx is the run's context (Events.Context), cancelled when the run
	// gives up on the work in flight (cut, abandon).
	ctx    context.Context
	cancel context.CancelFunc

	// events are the workers' handles, made with the run.
	events []*Events

	// The deadline (deadline.go): armed by the first stop, cut runs
	// StopGrace later, counts the events it abandons in cutEvents (as
	// lost), cancels ctx and closes cutDone. cutErrs is its own errors by
	// code (with Config.Series), the last of errs.
	armOnce   sync.Once
	cutTimer  *time.Timer
	cutOnce   sync.Once
	cutDone   chan struct{}
	cutEvents atomic.Int64
	lost      atomic.Pointer[lostConnection]
	cutWarned atomic.Bool
	cutErrs   *errorCounts

	failed      atomic.Bool  // a worker failed: exit 1
	interrupted atomic.Bool  // Interrupt was called
	reason      atomic.Value // string: why the run stopped early
	start       time.Time    // "Threads started!" plus the warm-up
	startMu     sync.Mutex   // guards start until the workers are released
	baseline    []snapshot   // cumulative report baseline (start or last checkpoint)
	runBase     []snapshot   // the counters at the start of the measured run
	baselineAt  time.Time
	reportMu    sync.Mutex // serialises checkpoints and the final report
	workersDone chan struct{}
	workload    atomic.Value // workloadBox, set by Execute
	skipDone    bool         // the run ended without calling done()

	// With Config.Series: the collector, the workers' errors by code,
	// and the final report's numbers and time.
	coll    *collector
	errs    []*errorCounts
	joined  bool // every worker returned: errs may be read
	final   *Stats
	finalAt time.Time
	whole   *Stats // the whole run's final counts, after checkpoints

}

// NewRun prepares a run; Execute performs it.
func NewRun(cfg Config, log *Logger) *Run {
	r := &Run{
		cfg:         cfg,
		log:         log,
		eventLimit:  cfg.Events,
		stopCh:      make(chan struct{}),
		workersDone: make(chan struct{}),
		cutDone:     make(chan struct{}),
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.threads = make([]*threadStats, cfg.Threads)
	for i := range r.threads {
		r.threads[i] = newThreadStats()
	}
	r.latency = NewLatencyHistogram(cfg.Threads)
	if cfg.Rate > 0 {
		r.pacer = newPacer(cfg.Rate)
	}
	if cfg.Series {
		r.coll = newCollector(r)
		r.errs = make([]*errorCounts, cfg.Threads+1)
		for i := range r.errs {
			r.errs[i] = &errorCounts{}
		}
		r.cutErrs = r.errs[cfg.Threads]
	}
	r.events = make([]*Events, cfg.Threads)
	for i := range r.events {
		ev := &Events{run: r, id: i, stats: r.threads[i], shard: r.latency.Shard(i)}
		if r.coll != nil {
			ev.ring, ev.errs = r.coll.rings[i], r.errs[i]
		}
		ev.ctx, ev.cancel = context.WithCancel(r.ctx)
		r.events[i] = ev
	}
	return r
}

func newThreadStats() *threadStats {
	t := &threadStats{}
	t.minNs.Store(math.MaxInt64)
	return t
}

// stop makes every worker finish its current event and start no other,
// and arms the run's deadline (deadline.go). It is idempotent, so a
// second Ctrl-C or a failure during shutdown is harmless.
func (r *Run) stop(reason string) {
	r.halt(reason)
	r.armDeadline()
}

// halt is stop without the deadline, for the ends that report at once:
// every worker has returned, or a forced shutdown.
func (r *Run) halt(reason string) {
	r.stopOnce.Do(func() {
		if reason != "" {
			r.reason.Store(reason)
		}
		r.stopping.Store(true)
		close(r.stopCh)
	})
}

// Interrupt stops the run early (the first SIGINT): workers finish their
// current event until the deadline, and the report printed is marked
// incomplete. A second Interrupt brings the deadline forward to now.
func (r *Run) Interrupt() {
	if r.interrupted.Swap(true) {
		r.cut()
		return
	}
	r.stop("interrupted")
}

// abandon gives up on the work in flight without counting it, once the
// report is out: it cancels the run's context, so that the database
// calls the workers may still wait in return at once with an error, and
// disarms the deadline.
func (r *Run) abandon() {
	r.halt("")
	r.disarmDeadline()
	r.cancel()
}

// abandoned reports whether the run's context is cancelled: by the
// deadline, or by abandon.
func (r *Run) abandoned() bool { return r.ctx.Err() != nil }

// Execute runs the workload and prints the run-mode block, the reports and
// any fatal messages through the logger. It returns the process exit code.
//
// Once it returns, the run's context is cancelled: after a forced shutdown
// or a thread_init timeout, workers still inside a database call stop
// waiting.
func (r *Run) Execute(w Workload) int {
	defer r.abandon()
	r.workload.Store(workloadBox{w})
	main, _ := w.(MainState)
	if main != nil {
		ev := &Events{run: r, id: 0, stats: r.threads[0], shard: r.latency.Shard(0), ctx: r.ctx}
		if err := main.Init(ev); err != nil {
			r.logFailure("init()", err)
			return ExitFailed
		}
	}
	code := r.execute(w)
	// As in sysbench, done() is not called when the workers failed to
	// start, nor after a forced shutdown (workers may still be inside the
	// script).
	if main != nil && !r.skipDone {
		if err := main.Done(); err != nil {
			if r.abandoned() {
				r.warnCut("done()", err)
			} else {
				r.log.Logf(LevelFatal, "%s", err)
			}
		}
	}
	return code
}

// logFailure logs what failed before the workers ran, as FATAL, unless
// the deadline of an interrupted run cut it short (cutByInterrupt).
func (r *Run) logFailure(what string, err error) {
	if !r.cutByInterrupt(what) {
		r.log.Logf(LevelFatal, "%s", err)
	}
}

// cutByInterrupt reports whether the deadline of an interrupted run has
// passed, and then says that it cut what short: the interrupt, not a
// failure, is what ended the run.
func (r *Run) cutByInterrupt(what string) bool {
	if !r.abandoned() || !r.interrupted.Load() {
		return false
	}
	r.log.Logf(LevelWarning, "the run stopped early (interrupted): %s was cut short %s after the interrupt", what, formatGrace())
	return true
}

// execute is the run between init() and done(): the report states, the
// workers and their start barrier, the warm-up, the measured run, the
// join and the final report. It returns the exit code.
func (r *Run) execute(w Workload) int {
	cfg := r.cfg
	r.printRunMode()

	if want := cfg.ThreadPolicy.Procs; want > runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(want))
	}

	reps, ok := r.newReportStates(w)
	if !ok {
		return ExitFailed
	}
	g := r.startWorkers(w)
	if code, ok := r.awaitInit(g); !ok {
		r.skipDone = true
		reps.close()
		return code
	}
	if !r.awaitStartAt(g) {
		reps.close()
		return ExitFailed
	}
	timers := r.release(g)
	if r.coll != nil {
		r.coll.begin()
	}

	reportersDone := make(chan struct{})
	reporters := r.startReporters(reps, reportersDone)
	switch r.awaitWorkers(g, timers) {
	case forcedOut:
		r.skipDone = true
		return r.forcedShutdown(reps.hooks, reps.hasCumul)
	case leftBehind:
		// Reported as after a forced shutdown's alarm: the process ends
		// with those workers still inside the script, and done() is
		// not called.
		r.skipDone = true
	default:
		r.joined = true
	}
	r.halt("")
	if r.coll != nil {
		r.coll.end()
	}
	close(reportersDone)
	reporters.Wait()
	r.log.Logf(LevelInfo, "Done.\n")

	code := r.exitCode()
	r.finalReport(reps.hooks, reps.hasCumul)
	return code
}

// reportStates are the script's report hooks and the Lua states the
// report goroutines run them in: none without hooks, one per report
// goroutine (intermediate, checkpoints) that the options start.
type reportStates struct {
	hooks              ReportHooks
	hasInter, hasCumul bool
	inter, check       Reporter
}

// close closes the states no report goroutine has taken over.
func (s *reportStates) close() {
	for _, rep := range []Reporter{s.inter, s.check} {
		if rep != nil {
			rep.Close()
		}
	}
}

// newReportStates makes the report goroutines' states before the workers
// are started, as sysbench makes its report threads' states before the
// workers': the script's top level runs there too, hooks or not. It logs
// a failure and returns false.
func (r *Run) newReportStates(w Workload) (*reportStates, bool) {
	s := &reportStates{}
	s.hooks, _ = w.(ReportHooks)
	if s.hooks != nil {
		s.hasInter, s.hasCumul = s.hooks.HasHooks()
	}
	r.log.Logf(LevelNotice, "Initializing worker threads...\n")
	if s.hooks == nil {
		return s, true
	}
	newReporter := func() (Reporter, bool) {
		rep, err := s.hooks.NewReporter(r.cfg.Threads)
		if err != nil {
			r.log.Logf(LevelFatal, "%s", err)
			return nil, false
		}
		return rep, true
	}
	var ok bool
	if r.cfg.ReportInterval > 0 {
		if s.inter, ok = newReporter(); !ok {
			return nil, false
		}
	}
	if len(r.cfg.Checkpoints) > 0 {
		if s.check, ok = newReporter(); !ok {
			s.close()
			return nil, false
		}
	}
	return s, true
}

// workerGroup is the workers' start barrier and join.
type workerGroup struct {
	released   chan struct{}  // closed when the workers may run events
	ready      sync.WaitGroup // done as each worker is past thread_init
	joined     sync.WaitGroup // done as each worker returns
	initFailed atomic.Bool    // a worker failed to start or in thread_init
}

// startWorkers starts the worker goroutines. Each one builds its state and
// runs thread_init, then waits at the start barrier until released.
func (r *Run) startWorkers(w Workload) *workerGroup {
	g := &workerGroup{released: make(chan struct{})}
	g.ready.Add(r.cfg.Threads)
	g.joined.Add(r.cfg.Threads)
	for _, ev := range r.events {
		go r.worker(w, ev, &g.ready, &g.joined, g.released, &g.initFailed)
	}
	return g
}

// awaitInit waits until every worker is at the start barrier, for at most
// --thread-init-timeout. When one failed it stops them all and waits for
// them. false means the run cannot start, with the exit code: on a
// timeout the workers are left where they are, as sysbench leaves them.
func (r *Run) awaitInit(g *workerGroup) (int, bool) {
	initDone := make(chan struct{})
	go func() { g.ready.Wait(); close(initDone) }()
	initTimeout := r.cfg.ThreadInitTimeout
	if initTimeout <= 0 {
		initTimeout = 30 * time.Second
	}
	select {
	case <-initDone:
	case <-time.After(initTimeout):
		r.log.Logf(LevelFatal, "Worker threads failed to initialize within %d seconds!", int(initTimeout/time.Second))
		return ExitForced, false
	case <-r.cutDone:
		if !settle(initDone) {
			r.log.Logf(LevelFatal, "Worker threads still initializing at the run's deadline, %s after the stop", formatGrace())
			return ExitFailed, false
		}
	}
	if g.initFailed.Load() {
		r.halt("thread initialization failed")
		close(g.released)
		g.joined.Wait()
		if !r.cutByInterrupt("thread_init") {
			r.log.Logf(LevelFatal, "Thread initialization failed!")
		}
		return ExitFailed, false
	}
	return ExitOK, true
}

// awaitStartAt holds the workers at the start barrier until
// Config.StartAt, or an interrupt. Workers that were ready only after it
// cannot measure the window the other clients measure: the run then
// stops before it starts, its workers are joined, and false is returned.
func (r *Run) awaitStartAt(g *workerGroup) bool {
	at := r.cfg.StartAt
	if at.IsZero() {
		return true
	}
	wait := time.Until(at)
	if wait < 0 {
		r.stop("the workers were ready after --start-at")
		close(g.released)
		g.joined.Wait()
		r.log.Logf(LevelFatal, "--start-at=%s passed %.3f s before the workers were ready: this client would not measure the same window as the others",
			at.Format(time.RFC3339Nano), -wait.Seconds())
		return false
	}
	r.log.Logf(LevelNotice, "Waiting %.3f s for --start-at=%s...\n", wait.Seconds(), at.Format(time.RFC3339Nano))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.stopCh:
	}
	return true
}

// release starts the clock, the time limit and the --rate generator,
// lets the workers go and runs the warm-up. It returns the time limit's
// timer, if any.
//
// The start barrier is the subtle spot. Until close(g.released) only this
// goroutine touches start, baseline and warming, and the close publishes
// them to the workers (a receive from a closed channel happens after the
// close). warming is set before the close so that no warm-up event counts
// against --events. From the close on, the workers run events while this
// goroutine still writes: the end of the warm-up moves start forward and
// resets the baseline and the histograms in one startMu section, so that
// a checkpoint or cumulative report never pairs the new start with the old
// baseline. The report goroutines start only after that (startReporters),
// so their deadlines count from the start the measured run has.
func (r *Run) release(g *workerGroup) []*time.Timer {
	r.markStart()
	timers := r.startLimits()
	if r.cfg.Warmup > 0 {
		r.warming.Store(true)
	}
	close(g.released)
	r.warmup()
	return timers
}

// markStart records the start of the run: "Threads started!", when the
// counters' baseline is taken. The counters are not reset: what init()
// and thread_init() ran counts, as in sysbench.
func (r *Run) markStart() {
	cfg := r.cfg
	if cfg.ReportInterval > 0 {
		r.log.Logf(LevelDebug, "Reporting thread started")
	}
	if len(cfg.Checkpoints) > 0 {
		r.log.Logf(LevelDebug, "Checkpoints report thread started")
	}
	if cfg.Rate > 0 {
		r.log.Logf(LevelDebug, "Event generating thread started")
	}
	r.startMu.Lock()
	r.start = time.Now()
	r.running.Store(int64(cfg.Threads))
	r.baseline = make([]snapshot, cfg.Threads)
	r.runBase = r.baseline
	r.baselineAt = r.start
	r.startMu.Unlock()
	r.log.Logf(LevelNotice, "Threads started!\n")
}

// startLimits arms the --time limit, which counts from the start and so
// is W + --time with a warm-up, and starts the --rate generator.
func (r *Run) startLimits() []*time.Timer {
	cfg := r.cfg
	var timers []*time.Timer
	if cfg.Time > 0 {
		timers = append(timers, time.AfterFunc(cfg.Warmup+cfg.Time, func() {
			r.timeUp.Store(true)
			r.stop("")
		}))
	}
	if cfg.Rate > 0 {
		start := r.start
		go func() {
			if !r.pacer.generate(start, cfg.Seed+1, r.stopCh) {
				r.log.Logf(LevelFatal, "%s", errQueueFull)
				r.failed.Store(true)
				r.stop("the --rate event queue is full")
			}
		}()
	}
	return timers
}

// warmup waits out --warmup-time (or a stop), then starts the statistics
// afresh: the start moves to now, as do the baseline and the histograms.
func (r *Run) warmup() {
	warmup := r.cfg.Warmup
	if warmup <= 0 {
		return
	}
	r.log.Logf(LevelNotice, "Warming up for %d seconds...\n", int(warmup/time.Second))
	select {
	case <-time.After(warmup):
	case <-r.stopCh:
	}
	r.startMu.Lock()
	r.start = r.start.Add(warmup)
	r.resetBaseline(time.Now())
	r.runBase = r.baseline
	r.latency.Cumulative(true)
	r.latency.Intermediate(float64(r.cfg.Percentile))
	r.startMu.Unlock()
	r.warming.Store(false)
}

// startReporters starts the intermediate and checkpoint report goroutines
// the options ask for; they return when done is closed.
func (r *Run) startReporters(s *reportStates, done <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	if r.cfg.ReportInterval > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.intermediateLoop(s.inter, s.hasInter, done)
		}()
	}
	if len(r.cfg.Checkpoints) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.checkpointLoop(s.check, s.hasCumul, done)
		}()
	}
	return &wg
}

// awaitWorkers waits for every worker to return and stops the timers. It
// returns forcedOut when the --forced-shutdown alarm rings first, and
// leftBehind when workers are still busy cutSettle after the run's
// deadline. Then those workers and the report goroutines are left
// running: the process exits right after the report, as sysbench's does
// after a forced shutdown.
func (r *Run) awaitWorkers(g *workerGroup, timers []*time.Timer) awaitOutcome {
	cfg := r.cfg
	allJoined := make(chan struct{})
	go func() { g.joined.Wait(); close(allJoined) }()

	var forced <-chan time.Time
	if cfg.Time > 0 && cfg.ForcedShutdown >= 0 {
		t := time.NewTimer(cfg.Warmup + cfg.Time + cfg.ForcedShutdown)
		timers = append(timers, t)
		forced = t.C
	}
	select {
	case <-allJoined:
	case <-forced:
		return forcedOut
	case <-r.cutDone:
		if !settle(allJoined) {
			r.log.Logf(LevelWarning, "%d worker threads still busy at the run's deadline, %s after the stop: left running",
				r.running.Load(), formatGrace())
			return leftBehind
		}
	}
	for _, t := range timers {
		t.Stop()
	}
	return allReturned
}

// exitCode is the exit code of a run whose workers returned (or were
// left behind at the deadline); a run that stopped early says why before
// its (incomplete) report, and so does one whose deadline abandoned
// events.
func (r *Run) exitCode() int {
	code := ExitOK
	if r.failed.Load() || r.interrupted.Load() {
		code = ExitFailed
		r.log.Logf(LevelWarning, "the run stopped early (%s): the report below is incomplete", r.earlyStopReason())
	}
	if r.warnAbandoned() != ExitOK {
		code = ExitFailed
	}
	return code
}

// earlyStopReason is why a run stopped early, as its warning says.
func (r *Run) earlyStopReason() string {
	reason, _ := r.reason.Load().(string)
	if reason == "" {
		reason = "a worker failed"
	}
	return reason
}

// worker is one worker goroutine: state, thread_init, barrier, loop,
// thread_done.
//
// After the run's deadline a worker whose call was cancelled returns
// without reporting its failure: the deadline has counted its event.
func (r *Run) worker(w Workload, ev *Events, ready, joined *sync.WaitGroup, released chan struct{}, initFailed *atomic.Bool) {
	defer joined.Done()
	defer ev.cancel()
	if p := r.cfg.ThreadPolicy; p.OwnThreads {
		if ev.locked = p.Locked; ev.locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		ev.yieldAt = now() + lockedYieldEvery
	}
	r.log.Logf(LevelDebug, "Worker thread (#%d) started", ev.id)
	th, err := w.NewThread(ev.id, ev)
	if err == nil {
		err = th.Init()
	}
	if err == nil {
		r.log.Logf(LevelDebug, "Worker thread (#%d) initialized", ev.id)
	}
	if err != nil {
		if !r.abandoned() {
			r.log.Logf(LevelFatal, "%s", err)
		}
		initFailed.Store(true)
	}
	ready.Done()
	<-released
	if err != nil {
		if th != nil {
			th.Close()
		}
		return
	}
	defer r.running.Add(-1)
	defer th.Close()
	err = th.Run()
	if r.abandoned() {
		// What failed was the call the run gave up on: nothing to report.
		return
	}
	if err != nil {
		r.log.Logf(LevelFatal, "%s", err)
		r.failed.Store(true)
		r.stop(firstLine(err.Error()))
		return
	}
	if err := th.Done(); err != nil {
		if r.abandoned() {
			r.warnCut("thread_done", err)
			return
		}
		r.log.Logf(LevelFatal, "%s", err)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// printRunMode prints the "Running the test with following options" block.
func (r *Run) printRunMode() {
	cfg := r.cfg
	l := r.log
	l.Logf(LevelNotice, "Running the test with following options:")
	l.Logf(LevelNotice, "Number of threads: %d", cfg.Threads)
	if cfg.Warmup > 0 {
		l.Logf(LevelNotice, "Warmup time: %ds", int(cfg.Warmup/time.Second))
	}
	if cfg.Rate > 0 {
		l.Logf(LevelNotice, "Target transaction rate: %s/sec", formatRate(cfg.Rate))
	}
	if cfg.ReportInterval > 0 {
		l.Logf(LevelNotice, "Report intermediate results every %d second(s)", int(cfg.ReportInterval/time.Second))
	}
	if len(cfg.Checkpoints) > 0 {
		parts := make([]string, len(cfg.Checkpoints))
		for i, c := range cfg.Checkpoints {
			parts[i] = fmt.Sprint(int(c / time.Second))
		}
		l.Logf(LevelNotice, "Report checkpoint(s) at %s seconds", strings.Join(parts, ", "))
	}
	if cfg.Debug {
		l.Logf(LevelNotice, "Debug mode enabled.\n")
	}
	if cfg.Seed == 0 {
		l.Logf(LevelNotice, "Initializing random number generator from current time\n")
	} else {
		l.Logf(LevelNotice, "Initializing random number generator from seed (%d).\n", cfg.Seed)
	}
	if cfg.Time > 0 && cfg.ForcedShutdown >= 0 {
		l.Logf(LevelNotice, "Forcing shutdown in %d seconds\n", int((cfg.Time+cfg.ForcedShutdown+cfg.Warmup)/time.Second))
	}
	l.Logf(LevelNotice, "")
}

func formatRate(r float64) string {
	if r == math.Trunc(r) {
		return fmt.Sprint(int64(r))
	}
	return fmt.Sprint(r)
}

// resetBaseline makes the next cumulative report start at t.
func (r *Run) resetBaseline(t time.Time) {
	r.baseline = r.snapshots()
	r.baselineAt = t
	for _, st := range r.threads {
		st.minNs.Store(math.MaxInt64)
		st.maxNs.Store(0)
	}
}

func (r *Run) snapshots() []snapshot {
	s := make([]snapshot, len(r.threads))
	for i, t := range r.threads {
		s[i] = t.snapshot()
	}
	return s
}

// sumCounters fills the counter fields of s with cur minus prev.
func sumCounters(s *Stats, cur, prev []snapshot) {
	var c [numCounters]uint64
	for i := range cur {
		for k := range c {
			c[k] += cur[i].counters[k] - prev[i].counters[k]
		}
	}
	s.Events = c[CounterEvent]
	s.Reads = c[CounterRead]
	s.Writes = c[CounterWrite]
	s.Other = c[CounterOther]
	s.Errors = c[CounterError]
	s.Reconnects = c[CounterReconnect]
	s.AmbiguousCommits = c[CounterAmbiguousCommit]
}

// elapsed is the time since the start of the measured run.
func (r *Run) elapsed(now time.Time) float64 {
	r.startMu.Lock()
	defer r.startMu.Unlock()
	return now.Sub(r.start).Seconds()
}

// intermediateLoop prints (or hands to the hook) one report every
// --report-interval. Deadlines are multiples of the interval from the
// start, so reports do not drift; missed ones are skipped.
func (r *Run) intermediateLoop(rep Reporter, hasHook bool, done <-chan struct{}) {
	if rep != nil {
		defer rep.Close()
	}
	interval := r.cfg.ReportInterval
	r.startMu.Lock()
	start := r.start
	r.startMu.Unlock()
	prev := r.snapshots()
	prevAt := time.Now()
	for k := int64(1); ; k++ {
		deadline := start.Add(time.Duration(k) * interval)
		d := time.Until(deadline)
		if d < 0 {
			// Missed: skip to the next deadline in the future.
			k += int64(-d / interval)
			continue
		}
		select {
		case <-done:
			return
		case <-time.After(d):
		}
		select {
		case <-done:
			return
		default:
		}
		now := time.Now()
		cur := r.snapshots()
		s := r.intermediateStats(now, prevAt, cur, prev)
		prev, prevAt = cur, now
		if hasHook {
			if err := rep.ReportIntermediate(s); err != nil {
				r.log.Logf(LevelFatal, "%s", err)
			}
			continue
		}
		WriteIntermediate(r.log, s, r.sqlMode(), r.cfg.Percentile, r.pacer != nil)
	}
}

// intermediateStats are the statistics of one intermediate report: the
// counters from prev to cur over the time since prevAt, and the
// intermediate histogram, which the call resets.
func (r *Run) intermediateStats(now, prevAt time.Time, cur, prev []snapshot) *Stats {
	s := &Stats{
		ThreadsRunning: int(r.running.Load()),
		TimeInterval:   now.Sub(prevAt).Seconds(),
		TimeTotal:      r.elapsed(now),
		LatencyPct:     r.latency.Intermediate(float64(r.cfg.Percentile)) / 1000,
	}
	sumCounters(s, cur, prev)
	if r.pacer != nil {
		s.QueueLength = len(r.pacer.queue)
		s.Concurrency = int(r.pacer.concurrency.Load())
	}
	return s
}

// sqlMode tells whether the reports use sysbench's SQL style.
func (r *Run) sqlMode() bool {
	box, _ := r.workload.Load().(workloadBox)
	if s, ok := box.w.(SQLReporter); ok {
		return s.SQLMode()
	}
	return false
}

// checkpointLoop prints a full report at each --report-checkpoints time
// and resets the cumulative statistics.
func (r *Run) checkpointLoop(rep Reporter, hasHook bool, done <-chan struct{}) {
	if rep != nil {
		defer rep.Close()
	}
	r.startMu.Lock()
	start := r.start
	r.startMu.Unlock()
	for _, cp := range r.cfg.Checkpoints {
		d := time.Until(start.Add(cp))
		if d < 0 {
			continue
		}
		select {
		case <-done:
			return
		case <-time.After(d):
		}
		r.reportMu.Lock()
		now := time.Now()
		r.log.Timestamped("[ %.0fs ] Checkpoint report:", r.elapsed(now))
		s := r.cumulativeStats(now, true)
		if hasHook {
			if err := rep.ReportCumulative(s); err != nil {
				r.log.Logf(LevelFatal, "%s", err)
			}
		} else {
			WriteCumulative(r.log, s, r.sqlMode(), r.cfg.Percentile)
		}
		r.reportMu.Unlock()
	}
}

// cumulativeStats builds the stats since the baseline; with reset the
// baseline moves to now (a checkpoint).
func (r *Run) cumulativeStats(now time.Time, reset bool) *Stats {
	cur := r.snapshots()
	r.startMu.Lock()
	s := &Stats{
		ThreadsRunning: int(r.running.Load()),
		TimeInterval:   now.Sub(r.baselineAt).Seconds(),
		TimeTotal:      now.Sub(r.start).Seconds(),
	}
	base := r.baseline
	r.startMu.Unlock()
	sumCounters(s, cur, base)
	h := r.latency.Cumulative(reset)
	if r.cfg.Percentile > 0 {
		s.LatencyPct = h.Percentile(float64(r.cfg.Percentile)) / 1000
	}
	r.sumLatency(s, cur, base)
	if reset {
		r.startMu.Lock()
		r.baseline = cur
		r.baselineAt = now
		r.startMu.Unlock()
		for _, st := range r.threads {
			st.minNs.Store(math.MaxInt64)
			st.maxNs.Store(0)
		}
	}
	return s
}

// sumLatency fills the latency timer fields of s, overall and per
// thread, with the events from base to cur.
func (r *Run) sumLatency(s *Stats, cur, base []snapshot) {
	var timed uint64
	var sumNs int64
	minNs, maxNs := int64(math.MaxInt64), int64(0)
	s.ThreadEvents = make([]uint64, len(cur))
	s.ThreadTime = make([]float64, len(cur))
	for i, t := range r.threads {
		n := cur[i].timed() - base[i].timed()
		ns := cur[i].sumNs - base[i].sumNs
		s.ThreadEvents[i] = n
		s.ThreadTime[i] = float64(ns) / 1e9
		timed += n
		sumNs += ns
		if n > 0 {
			minNs = min(minNs, t.minNs.Load())
			maxNs = max(maxNs, t.maxNs.Load())
		}
		// An event the deadline abandoned shows in the maximum, not in
		// the events nor the average.
		maxNs = max(maxNs, t.cutNs.Load())
	}
	if timed > 0 {
		s.LatencyMin = float64(minNs) / 1e9
		s.LatencyAvg = float64(sumNs) / float64(timed) / 1e9
	}
	s.LatencyMax = float64(maxNs) / 1e9
	s.LatencySum = float64(sumNs) / 1e9
}

// finalReport prints the histogram (if asked) and the cumulative report,
// or runs the script's report_cumulative hook in the main state.
func (r *Run) finalReport(hooks ReportHooks, hasHook bool) {
	r.reportMu.Lock()
	defer r.reportMu.Unlock()
	now := time.Now()
	if r.cfg.Histogram {
		PrintLatencyHistogram(r.log, r.latency.Cumulative(false))
	}
	timers := r.threadTimers()
	s := r.cumulativeStats(now, true)
	s.ThreadsRunning = 0
	r.final, r.finalAt = s, now
	r.keepWholeRun(now)
	if hasHook {
		if err := hooks.ReportCumulative(s); err != nil {
			r.log.Logf(LevelFatal, "%s", err)
		}
		return
	}
	WriteCumulative(r.log, s, r.sqlMode(), r.cfg.Percentile)
	if r.cfg.Debug {
		WriteThreadDebug(r.log, timers)
	}
}

// keepWholeRun keeps the whole measured run's counts for Summary when
// checkpoints have reset the final report's to the last one.
func (r *Run) keepWholeRun(now time.Time) {
	if r.coll == nil || len(r.cfg.Checkpoints) == 0 {
		return
	}
	cur := r.snapshots()
	r.startMu.Lock()
	s := &Stats{TimeTotal: now.Sub(r.start).Seconds()}
	base := r.runBase
	r.startMu.Unlock()
	s.TimeInterval = s.TimeTotal
	sumCounters(s, cur, base)
	// The per-thread minimum and maximum are the last checkpoint's; the
	// results file takes the run's from its histogram.
	r.sumLatency(s, cur, base)
	r.whole = s
}

// threadTimers are the per-thread latency timers since the baseline, for
// --debug's per-thread statistics.
func (r *Run) threadTimers() []ThreadTimer {
	cur := r.snapshots()
	timers := make([]ThreadTimer, len(cur))
	for i, st := range r.threads {
		n := cur[i].timed() - r.baseline[i].timed()
		sum := float64(cur[i].sumNs-r.baseline[i].sumNs) / 1e9
		t := ThreadTimer{Events: n, Sum: sum}
		if n > 0 {
			t.Min = float64(st.minNs.Load()) / 1e9
			t.Max = float64(st.maxNs.Load()) / 1e9
			t.Avg = sum / float64(n)
		}
		timers[i] = t
	}
	return timers
}

// forcedShutdown is sysbench's --forced-shutdown alarm: events still
// running are counted as finished now, the report is printed, and the
// process is to exit with code 2 while those workers are still busy. As in
// sysbench, no histogram is printed, and the unfinished-events lines come
// between the SQL block and the general statistics (or not at all when a
// report_cumulative hook replaces the report). Execute abandons the
// workers once the report is out, so that what they do then (a statement
// failing, a reconnect) cannot change its numbers.
func (r *Run) forcedShutdown(hooks ReportHooks, hasHook bool) int {
	r.halt("forced shutdown")
	r.log.Logf(LevelFatal, "The --max-time limit has expired, forcing shutdown...")
	// The time limit passed long ago, so a worker still running is inside
	// an event (or its thread_done): that event is unfinished.
	unfinished := int(r.running.Load())
	if r.coll != nil {
		r.coll.end()
	}
	r.reportMu.Lock()
	defer r.reportMu.Unlock()
	now := time.Now()
	s := r.cumulativeStats(now, true)
	s.ThreadsRunning = 0
	r.final, r.finalAt = s, now
	r.keepWholeRun(now)
	if hasHook {
		if err := hooks.ReportCumulative(s); err != nil {
			r.log.Logf(LevelFatal, "%s", err)
		}
		return ExitForced
	}
	if r.sqlMode() {
		WriteSQLStatistics(r.log, s)
	}
	if unfinished > 0 {
		r.log.Logf(LevelNotice, "")
		r.log.Logf(LevelNotice, "Number of unfinished transactions on forced shutdown: %d", unfinished)
	}
	WriteGeneralStatistics(r.log, s, r.cfg.Percentile)
	return ExitForced
}

// ErrorReason returns why the run stopped early, if it did.
func (r *Run) ErrorReason() error {
	if reason, ok := r.reason.Load().(string); ok && reason != "" {
		return errors.New(reason)
	}
	return nil
}
