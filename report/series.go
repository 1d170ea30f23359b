package report

import (
	"math"

	"gonum.org/v1/plot/plotter"

	"sbgo/compare"
	"sbgo/results"
)

// minPointSeconds is the shortest per-second point a time chart shows: the
// last point of a step covers only the remainder of the run, often a few
// milliseconds, and its rate would be a spike of a handful of events.
const minPointSeconds = 0.5

// overTime is one figure of a step's per-second points against the
// point's end; points without the figure are left out.
func overTime(s *results.Step, figure func(results.Point) (float64, bool)) plotter.XYs {
	var xys plotter.XYs
	for _, p := range s.Seconds {
		if p.Seconds < minPointSeconds {
			continue
		}
		if y, ok := figure(p); ok {
			xys = append(xys, plotter.XY{X: p.Time, Y: y})
		}
	}
	return xys
}

func pointTPS(p results.Point) (float64, bool) { return p.TPS(), true }

// pointP95 is the point's 95th percentile, when an event ended in it.
func pointP95(p results.Point) (float64, bool) { return p.P95, p.Events > 0 }

func pointErrors(p results.Point) (float64, bool) { return float64(p.Errors) / p.Seconds, true }

func pointReconnects(p results.Point) (float64, bool) {
	return float64(p.Reconnects) / p.Seconds, true
}

// hasFailures tells whether any point of the step counted errors or
// reconnects.
func hasFailures(s *results.Step) bool {
	for _, p := range s.Seconds {
		if p.Errors > 0 || p.Reconnects > 0 {
			return true
		}
	}
	return false
}

// overThreads is metric m of run against the thread counts of workload,
// one point per step the run has.
func overThreads(t *compare.Table, m compare.Metric, run int, workload string) plotter.XYs {
	var xys plotter.XYs
	for _, k := range t.Keys {
		if k.Workload != workload {
			continue
		}
		if c, ok := t.Cell(m, run, k); ok {
			xys = append(xys, plotter.XY{X: float64(k.Threads), Y: c.Value})
		}
	}
	return xys
}

// Percentile charts run from 0 to 99.999 %: x is 1/(1-q) for the
// fraction q, from 1 to maxInverse, on a log scale, as HdrHistogram's
// plots draw them; percentileSteps points per decade.
const (
	maxInverse      = 1e5
	percentileSteps = 40
)

// percentileCurve is the latency (ms) at each percentile of the step's
// histogram, up to the highest percentile its count resolves (beyond
// 1/(1-q) = count every value is the maximum), ending at the maximum. A
// step without a histogram has no curve.
func percentileCurve(s *results.Step) (plotter.XYs, error) {
	if s.Latency.Histogram == "" {
		return nil, nil
	}
	h, err := results.DecodeHistogram(s.Latency.Histogram)
	if err != nil || h.TotalCount() == 0 {
		return nil, err
	}
	limit := math.Min(maxInverse, float64(h.TotalCount()))
	var xys plotter.XYs
	for i := 0; ; i++ {
		x := math.Pow(10, float64(i)/percentileSteps)
		if x >= limit {
			break
		}
		q := 100 * (1 - 1/x)
		xys = append(xys, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(q)) / 1e6})
	}
	return append(xys, plotter.XY{X: limit, Y: float64(h.Max()) / 1e6}), nil
}
