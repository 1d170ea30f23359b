package main

import (
	"runtime"
	"time"

	"sbgo/engine"
)

// run performs the run command: once, or once per thread count of a
// sweep (--threads=1,2,4), each step a complete run of its own (init,
// fresh workers and connections, the usual report). A sweep ends with
// its summary table. The results file, when --results-file asks for one,
// is written also after a failed or interrupted run.
func (inv *invocation) run() int {
	path := optionText(inv.opts, "results-file")
	started := time.Now()
	code, steps := inv.sweep(path != "" || inv.stepCount() > 1)
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

// stepCount is how many runs the command asks for: one per thread count.
func (inv *invocation) stepCount() int {
	return max(1, len(inv.general.ThreadSteps))
}

// sweep runs the steps in their order and returns the first failed
// step's exit code and the summary of every step that ran. A failed step
// ends the sweep unless --sweep-continue=on; an interrupt always does.
// Each step decides its own thread policy and collector pace, as a run
// of that many threads would.
func (inv *invocation) sweep(series bool) (int, []engine.RunSummary) {
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
		stepCode, r := runBenchmark(inv.script, &g, policy, inv.log, inv.sigs, series)
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
