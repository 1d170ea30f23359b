package engine

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// LiveStats is a run's cumulative figures at one moment, for a reader that
// watches the run while it goes on (a metrics endpoint). Counts start at
// zero and only grow: they cover the measured run, from the end of the
// warm-up, like the results file's series.
type LiveStats struct {
	Events, Reads, Writes, Other, Errors, Reconnects uint64

	ThreadsRunning int

	// ErrorCodes are the failed statements by code, as in RunSummary.
	ErrorCodes []ErrorCount

	// Latency holds the latency of every event the collector has taken
	// from the workers so far (nil without Config.Series), and LatencySum
	// is their total in seconds. The collector takes them every few tens
	// of milliseconds, so Latency's count may trail Events by the events
	// of that moment, never lead it; once the workers have returned, the
	// two are equal, but for events that ended just as a warm-up did,
	// and for the events the run's deadline abandoned, which are in
	// Latency (not in LatencySum) and not in Events.
	Latency    *hdr.Histogram
	LatencySum float64
}

// Live reads the run's figures now; it may be called from any goroutine,
// at any time, as often as wanted. It costs the workers nothing: the
// counters are the per-worker atomics the reports read, the latencies a
// copy of the collector's histograms, taken under the lock that only the
// collector and readers take. It needs Config.Series: without it only
// ThreadsRunning is set.
func (r *Run) Live() LiveStats {
	s := LiveStats{ThreadsRunning: int(r.running.Load())}
	c := r.coll
	if c == nil {
		return s
	}
	// The latencies first, then the counters: an event is counted before
	// its latency is pushed, so the histogram never holds more events
	// than the counters say.
	c.mu.Lock()
	base, errBase := c.base, c.errBase
	s.Latency = c.total.Clone()
	if len(c.tracks) > 0 {
		s.Latency.Merge(c.tracks[0].h)
	}
	s.LatencySum = float64(c.sumNs) / 1e9
	c.mu.Unlock()
	if base == nil {
		// The measured run has not begun.
		return s
	}
	var st Stats
	sumCounters(&st, r.snapshots(), base)
	s.Events, s.Reads, s.Writes, s.Other = st.Events, st.Reads, st.Writes, st.Other
	s.Errors, s.Reconnects = st.Errors, st.Reconnects
	s.ErrorCodes = subtractErrors(mergeErrors(r.errs), errBase)
	return s
}

// subtractErrors takes the counts in base away from those in all, and
// leaves out the codes that have none left.
func subtractErrors(all, base []ErrorCount) []ErrorCount {
	if len(base) == 0 {
		return all
	}
	out := all[:0]
	for _, e := range all {
		for _, b := range base {
			if b.Code == e.Code {
				e.Count -= min(b.Count, e.Count)
			}
		}
		if e.Count > 0 {
			out = append(out, e)
		}
	}
	return out
}
