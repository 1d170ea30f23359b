// Package engine runs a sysbench-style benchmark as a library: the option
// table and sysbench's argument grammar, the run phases, the workers and
// their limits (--time, --events, --rate, --warmup-time, --forced-shutdown),
// per-thread counters and latency histograms, the run's deadline (no wait
// on the database outlives the run: deadline.go), and the intermediate and
// final reports. It imports nothing else of sbgo but internal/sched (the pass
// through the scheduler it shares with sockconn): the script side plugs in
// through the Workload and Thread interfaces.
package engine
