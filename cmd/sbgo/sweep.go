package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"sbgo/engine"
	"sbgo/metrics"
)

// run performs the run command: once, or once per thread count of a
// sweep (--threads=1,2,4), each step a complete run of its own (init,
// fresh workers and connections, the usual report). A sweep ends with
// its summary table. It serves live metrics when --prometheus asks for
// them, and writes the results file when --results-file asks for one:
// also after a failed or interrupted run.
func (inv *invocation) run() int {
	if err := lateStart(inv.startAt, time.Now()); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return 1
	}
	path := optionText(inv.opts, "results-file")
	ln, code := inv.listenMetrics()
	if code != 0 {
		return code
	}
	var live stepSource
	if ln != nil {
		srv := metrics.Serve(ln, &live)
		defer srv.Close()
	}
	tap, closeTap, err := latencyDump(os.Getenv(latencyDumpEnv))
	if err != nil {
		inv.log.Logf(engine.LevelFatal, "%s: %s", latencyDumpEnv, err)
		return 1
	}
	defer closeTap()
	started := time.Now()
	code, steps := inv.sweep(path != "" || ln != nil || inv.stepCount() > 1 || tap != nil, &live, tap)
	if inv.stepCount() > 1 {
		rows := make([]engine.SweepRow, len(steps))
		for i, s := range steps {
			rows[i] = engine.SweepRowOf(s)
		}
		engine.WriteSweepSummary(inv.stdout, rows)
	}
	if path == "" {
		return code
	}
	if wcode := inv.writeResults(path, steps, started); wcode != 0 && code == engine.ExitOK {
		code = wcode
	}
	return code
}

// stepSource is what the live metrics read: the run of the step in
// progress, or the last one between steps. Each step's counters start
// from zero, which Prometheus sees as a counter reset.
type stepSource struct{ run atomic.Pointer[engine.Run] }

// Live is the current step's figures; none before the first step.
func (s *stepSource) Live() engine.LiveStats {
	if r := s.run.Load(); r != nil {
		return r.Live()
	}
	return engine.LiveStats{}
}

// stepCount is how many runs the command asks for: one per thread count.
func (inv *invocation) stepCount() int {
	return max(1, len(inv.general.ThreadSteps))
}

// sweep runs the steps in their order and returns the first failed
// step's exit code and the summary of every step that ran. A failed step
// ends the sweep unless --sweep-continue=on; an interrupt always does.
// Each step decides its own thread policy and collector pace, as a run
// of that many threads would; live shows the step in progress.
func (inv *invocation) sweep(series bool, live *stepSource, tap func(int64)) (int, []engine.RunSummary) {
	threads := inv.general.ThreadSteps
	if threads == nil {
		threads = []int{inv.general.Threads}
	}
	value, _ := inv.opts.Lookup(engine.SweepOption)
	keepGoing := inv.opts.Flag("sweep-continue")
	code := engine.ExitOK
	var steps []engine.RunSummary
	for i, n := range threads {
		g, policy := *inv.general, inv.policy
		if i > 0 {
			value.SetStep(n)
			g.Threads = n
			policy = decideThreadPolicy(inv.opts, n, runtime.NumCPU())
			tuneGC(n)
		}
		cfg := runConfig(&g, policy, series)
		cfg.LatencyTap = tap
		if i == 0 {
			// Only the first step can be lined up with other clients:
			// each next one starts when this client's previous one ends.
			cfg.StartAt = inv.startAt
		}
		r := engine.NewRun(cfg, inv.log)
		live.run.Store(r)
		stepCode := runBenchmark(r, inv.script, policy, inv.sigs)
		s := r.Summary()
		steps = append(steps, s)
		if stepCode != engine.ExitOK && code == engine.ExitOK {
			code = stepCode
		}
		if s.Interrupted || (stepCode != engine.ExitOK && !keepGoing) {
			break
		}
	}
	return code, steps
}

// latencyDumpEnv names a file that receives every measured latency, in
// ns, one per line: a test mode that checks the results file's
// histograms (and sbgo merge's) against the raw values.
const latencyDumpEnv = "SBGO_LATENCY_DUMP"

// latencyDump opens the dump file, when path is set: the tap to give the
// runs and the function that flushes and closes it.
func latencyDump(path string) (func(int64), func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriter(f)
	var buf []byte
	tap := func(ns int64) {
		buf = strconv.AppendInt(buf[:0], ns, 10)
		w.Write(append(buf, '\n'))
	}
	return tap, func() { w.Flush(); f.Close() }, nil
}
