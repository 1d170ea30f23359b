package engine

// Stats is one report's numbers, the fields of the Lua stat table that
// sysbench passes to report hooks (spec §3.7). Counts are for the interval
// the report covers, not rates; times and latencies are in seconds.
type Stats struct {
	ThreadsRunning int
	TimeInterval   float64 // seconds since the previous report of the same kind
	TimeTotal      float64 // seconds since "Threads started!" (minus warm-up)
	LatencyPct     float64 // the --percentile latency, seconds

	Events, Reads, Writes, Other, Errors, Reconnects uint64
	// AmbiguousCommits counts CounterAmbiguousCommit: commits whose
	// outcome the client never learnt (docs/reliability.md, "Outages").
	AmbiguousCommits uint64

	QueueLength, Concurrency int // only with --rate

	// Cumulative reports only: from the merged per-thread timers.
	LatencyMin, LatencyMax, LatencyAvg, LatencySum float64

	// Cumulative reports only: per-thread event counts and busy time
	// (seconds) for the "Threads fairness" block.
	ThreadEvents []uint64
	ThreadTime   []float64
}

// Fairness is the report's "Threads fairness" numbers: the average and
// standard deviation of the events per thread and of the time per thread
// (seconds).
func (s *Stats) Fairness() (eventsAvg, eventsStddev, timeAvg, timeStddev float64) {
	return fairness(s)
}
