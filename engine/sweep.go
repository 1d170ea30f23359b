package engine

import (
	"fmt"
	"io"
)

// SweepRow is one step of a thread sweep as its summary table shows it.
type SweepRow struct {
	Threads            int
	TPS, QPS           float64
	P95, P99, Max      float64 // milliseconds; 0 without a latency histogram
	Errors             uint64  // ignored errors, as the report counts them
	Complete, HasTotal bool
}

// SweepRowOf is the summary of one step, from its run's summary.
func SweepRowOf(s RunSummary) SweepRow {
	row := SweepRow{Threads: s.Threads, Complete: s.Complete}
	if t := s.Totals; t != nil && t.TimeInterval > 0 {
		row.HasTotal = true
		row.TPS = float64(t.Events) / t.TimeInterval
		row.QPS = float64(t.Reads+t.Writes+t.Other) / t.TimeInterval
		row.Errors = t.Errors
	}
	if h := s.Latency; h != nil && h.TotalCount() > 0 {
		ms := func(ns int64) float64 { return float64(ns) / 1e6 }
		row.P95, row.P99, row.Max = ms(h.ValueAtPercentile(95)), ms(h.ValueAtPercentile(99)), ms(h.Max())
	}
	return row
}

// WriteSweepSummary writes the table that ends a thread sweep's output:
// one line per step that ran, in the order they ran. A step that did not
// finish is marked; one that never started shows dashes.
func WriteSweepSummary(w io.Writer, rows []SweepRow) {
	fmt.Fprintln(w, "Thread sweep summary:")
	fmt.Fprintf(w, "%9s %12s %12s %10s %10s %10s %8s\n", "threads", "tps", "qps", "p95 (ms)", "p99 (ms)", "max (ms)", "errors")
	for _, r := range rows {
		if !r.HasTotal {
			fmt.Fprintf(w, "%9d %12s %12s %10s %10s %10s %8s  (did not run)\n", r.Threads, "-", "-", "-", "-", "-", "-")
			continue
		}
		mark := ""
		if !r.Complete {
			mark = "  (incomplete)"
		}
		fmt.Fprintf(w, "%9d %12.2f %12.2f %10.2f %10.2f %10.2f %8d%s\n", r.Threads, r.TPS, r.QPS, r.P95, r.P99, r.Max, r.Errors, mark)
	}
	fmt.Fprintln(w)
}
