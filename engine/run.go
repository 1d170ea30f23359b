package engine

import (
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

	failed      atomic.Bool  // a worker failed: exit 1
	interrupted atomic.Bool  // Interrupt was called
	reason      atomic.Value // string: why the run stopped early
	start       time.Time    // "Threads started!" plus the warm-up
	startMu     sync.Mutex   // guards start until the workers are released
	baseline    []snapshot   // cumulative report baseline (start or last checkpoint)
	baselineAt  time.Time
	reportMu    sync.Mutex // serialises checkpoints and the final report
	workersDone chan struct{}
	workload    Workload
	skipDone    bool // the run ended without calling done()
}

// NewRun prepares a run; Execute performs it.
func NewRun(cfg Config, log *Logger) *Run {
	r := &Run{
		cfg:         cfg,
		log:         log,
		eventLimit:  cfg.Events,
		stopCh:      make(chan struct{}),
		workersDone: make(chan struct{}),
	}
	r.threads = make([]*threadStats, cfg.Threads)
	for i := range r.threads {
		r.threads[i] = newThreadStats()
	}
	r.latency = NewLatencyHistogram(cfg.Threads)
	if cfg.Rate > 0 {
		r.pacer = newPacer(cfg.Rate)
	}
	return r
}

func newThreadStats() *threadStats {
	t := &threadStats{}
	t.minNs.Store(math.MaxInt64)
	return t
}

// stop makes every worker finish its current event and start no other.
// It is idempotent, so a second Ctrl-C or a failure during shutdown is
// harmless.
func (r *Run) stop(reason string) {
	r.stopOnce.Do(func() {
		if reason != "" {
			r.reason.Store(reason)
		}
		r.stopping.Store(true)
		close(r.stopCh)
	})
}

// Interrupt stops the run early (the first SIGINT): workers finish their
// current event, and the report printed is marked incomplete.
func (r *Run) Interrupt() {
	r.interrupted.Store(true)
	r.stop("interrupted")
}

// Execute runs the workload and prints the run-mode block, the reports and
// any fatal messages through the logger. It returns the process exit code.
func (r *Run) Execute(w Workload) int {
	r.workload = w
	main, _ := w.(MainState)
	if main != nil {
		ev := &Events{run: r, id: 0, stats: r.threads[0], shard: r.latency.Shard(0)}
		if err := main.Init(ev); err != nil {
			r.log.Logf(LevelFatal, "%s", err)
			return ExitFailed
		}
	}
	code := r.execute(w)
	// As in sysbench, done() is not called when the workers failed to
	// start, nor after a forced shutdown (workers may still be inside the
	// script).
	if main != nil && !r.skipDone {
		if err := main.Done(); err != nil {
			r.log.Logf(LevelFatal, "%s", err)
		}
	}
	return code
}

func (r *Run) execute(w Workload) int {
	cfg := r.cfg
	r.printRunMode()

	if want := cfg.ThreadPolicy.Procs; want > runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(want))
	}

	hooks, _ := w.(ReportHooks)
	var hasInter, hasCumul bool
	if hooks != nil {
		hasInter, hasCumul = hooks.HasHooks()
	}

	r.log.Logf(LevelNotice, "Initializing worker threads...\n")

	// The report goroutines' states are made first, as sysbench makes its
	// report threads' states before the workers': the script's top level
	// runs there too, hooks or not.
	var interRep, checkRep Reporter
	newReporter := func() (Reporter, bool) {
		rep, err := hooks.NewReporter(cfg.Threads)
		if err != nil {
			r.log.Logf(LevelFatal, "%s", err)
			return nil, false
		}
		return rep, true
	}
	if hooks != nil && cfg.ReportInterval > 0 {
		var ok bool
		if interRep, ok = newReporter(); !ok {
			return ExitFailed
		}
	}
	if hooks != nil && len(cfg.Checkpoints) > 0 {
		var ok bool
		if checkRep, ok = newReporter(); !ok {
			if interRep != nil {
				interRep.Close()
			}
			return ExitFailed
		}
	}

	closeReporters := func() {
		for _, rep := range []Reporter{interRep, checkRep} {
			if rep != nil {
				rep.Close()
			}
		}
	}

	// Workers start, build their state and run thread_init, then wait at
	// the start barrier (released) until every one of them is ready.
	released := make(chan struct{})
	var ready sync.WaitGroup
	var initFailed atomic.Bool
	var joined sync.WaitGroup
	ready.Add(cfg.Threads)
	joined.Add(cfg.Threads)
	for i := 0; i < cfg.Threads; i++ {
		ev := &Events{run: r, id: i, stats: r.threads[i], shard: r.latency.Shard(i)}
		go r.worker(w, ev, &ready, &joined, released, &initFailed)
	}

	initDone := make(chan struct{})
	go func() { ready.Wait(); close(initDone) }()
	initTimeout := cfg.ThreadInitTimeout
	if initTimeout <= 0 {
		initTimeout = 30 * time.Second
	}
	select {
	case <-initDone:
	case <-time.After(initTimeout):
		r.log.Logf(LevelFatal, "Worker threads failed to initialize within %d seconds!", int(initTimeout/time.Second))
		r.skipDone = true
		closeReporters()
		return ExitForced
	}
	if initFailed.Load() {
		r.stop("thread initialization failed")
		close(released)
		joined.Wait()
		r.log.Logf(LevelFatal, "Thread initialization failed!")
		r.skipDone = true
		closeReporters()
		return ExitFailed
	}

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
	// The counters are not reset here: what init() and thread_init() ran
	// counts, as in sysbench.
	r.baseline = make([]snapshot, cfg.Threads)
	r.baselineAt = r.start
	r.startMu.Unlock()
	r.log.Logf(LevelNotice, "Threads started!\n")

	// The time limit counts from here; with a warm-up it is W + --time.
	var timers []*time.Timer
	if cfg.Time > 0 {
		timers = append(timers, time.AfterFunc(cfg.Warmup+cfg.Time, func() {
			r.timeUp.Store(true)
			r.stop("")
		}))
	}
	if cfg.Rate > 0 {
		go func() {
			if !r.pacer.generate(r.start, cfg.Seed+1, r.stopCh) {
				r.log.Logf(LevelFatal, "%s", errQueueFull)
				r.failed.Store(true)
				r.stop("the --rate event queue is full")
			}
		}()
	}

	reportersDone := make(chan struct{})
	var reporters sync.WaitGroup
	if cfg.Warmup > 0 {
		r.warming.Store(true)
	}
	close(released)

	if cfg.Warmup > 0 {
		r.log.Logf(LevelNotice, "Warming up for %d seconds...\n", int(cfg.Warmup/time.Second))
		select {
		case <-time.After(cfg.Warmup):
		case <-r.stopCh:
		}
		r.startMu.Lock()
		r.start = r.start.Add(cfg.Warmup)
		r.resetBaseline(time.Now())
		r.latency.Cumulative(true)
		r.latency.Intermediate(float64(cfg.Percentile))
		r.startMu.Unlock()
		r.warming.Store(false)
	}

	if cfg.ReportInterval > 0 {
		reporters.Add(1)
		go func() {
			defer reporters.Done()
			r.intermediateLoop(interRep, hasInter, reportersDone)
		}()
	}
	if len(cfg.Checkpoints) > 0 {
		reporters.Add(1)
		go func() {
			defer reporters.Done()
			r.checkpointLoop(checkRep, hasCumul, reportersDone)
		}()
	}

	allJoined := make(chan struct{})
	go func() { joined.Wait(); close(allJoined) }()

	var forced <-chan time.Time
	if cfg.Time > 0 && cfg.ForcedShutdown >= 0 {
		t := time.NewTimer(cfg.Warmup + cfg.Time + cfg.ForcedShutdown)
		timers = append(timers, t)
		forced = t.C
	}
	select {
	case <-allJoined:
	case <-forced:
		r.skipDone = true
		return r.forcedShutdown(hooks, hasCumul)
	}
	for _, t := range timers {
		t.Stop()
	}
	r.stop("")
	close(reportersDone)
	reporters.Wait()
	r.log.Logf(LevelInfo, "Done.\n")

	code := ExitOK
	if r.failed.Load() || r.interrupted.Load() {
		code = ExitFailed
	}
	if code != ExitOK || r.interrupted.Load() {
		reason, _ := r.reason.Load().(string)
		if reason == "" {
			reason = "a worker failed"
		}
		r.log.Logf(LevelWarning, "the run stopped early (%s): the report below is incomplete", reason)
	}
	r.finalReport(hooks, hasCumul)
	return code
}

// worker is one worker goroutine: state, thread_init, barrier, loop,
// thread_done.
func (r *Run) worker(w Workload, ev *Events, ready, joined *sync.WaitGroup, released chan struct{}, initFailed *atomic.Bool) {
	defer joined.Done()
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
		r.log.Logf(LevelFatal, "%s", err)
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
	if err := th.Run(); err != nil {
		r.log.Logf(LevelFatal, "%s", err)
		r.failed.Store(true)
		r.stop(firstLine(err.Error()))
		return
	}
	if err := th.Done(); err != nil {
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

// sqlMode tells whether the reports use sysbench's SQL style.
func (r *Run) sqlMode() bool {
	if s, ok := r.workload.(SQLReporter); ok {
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
	}
	if timed > 0 {
		s.LatencyMin = float64(minNs) / 1e9
		s.LatencyMax = float64(maxNs) / 1e9
		s.LatencyAvg = float64(sumNs) / float64(timed) / 1e9
	}
	s.LatencySum = float64(sumNs) / 1e9
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
// report_cumulative hook replaces the report).
func (r *Run) forcedShutdown(hooks ReportHooks, hasHook bool) int {
	r.stop("forced shutdown")
	r.log.Logf(LevelFatal, "The --max-time limit has expired, forcing shutdown...")
	// The time limit passed long ago, so a worker still running is inside
	// an event (or its thread_done): that event is unfinished.
	unfinished := int(r.running.Load())
	r.reportMu.Lock()
	defer r.reportMu.Unlock()
	s := r.cumulativeStats(time.Now(), true)
	s.ThreadsRunning = 0
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
