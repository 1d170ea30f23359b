package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"sbgo/results"
)

// Metric is one figure of a step, one block of the comparison.
type Metric struct {
	Name string // as --metric names it
	// Title says what the figure is, in a block's heading.
	Title string
	// Decimals is how the value is printed: 2 for rates and
	// milliseconds, 0 for counts.
	Decimals int
	value    func(*results.Step) (float64, bool)
}

// Metrics are the figures a table can show, as the sweep summary of a
// run shows them: tps and qps over the step's total time, percentiles and
// max from its HDR histogram, errors the ignored errors.
var Metrics = []Metric{
	{"tps", "transactions per second", 2, tps},
	{"qps", "queries per second", 2, qps},
	{"p95", "95th percentile latency (ms)", 2, percentile("95")},
	{"p99", "99th percentile latency (ms)", 2, percentile("99")},
	{"max", "maximum latency (ms)", 2, maxLatency},
	{"errors", "ignored errors", 0, errorCount},
}

// MetricNames is the list of metric names, for messages and help.
func MetricNames() string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// ParseMetrics reads --metric values: names, each possibly a
// comma-separated list. None at all means tps.
func ParseMetrics(values []string) ([]Metric, error) {
	var out []Metric
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			m, err := metricByName(strings.TrimSpace(name))
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		out = Metrics[:1]
	}
	return out, nil
}

func metricByName(name string) (Metric, error) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q (one of %s)", name, MetricNames())
}

// Value is the metric of step; false when the step has none (no time
// measured, no latency recorded).
func (m Metric) Value(s *results.Step) (float64, bool) { return m.value(s) }

// Format prints a value of the metric.
func (m Metric) Format(v float64) string { return strconv.FormatFloat(v, 'f', m.Decimals, 64) }

func tps(s *results.Step) (float64, bool) {
	return perSecond(s.Totals.Transactions, s.Totals.TotalTime)
}

func qps(s *results.Step) (float64, bool) {
	return perSecond(s.Totals.Queries(), s.Totals.TotalTime)
}

func perSecond(n uint64, seconds float64) (float64, bool) {
	if seconds <= 0 {
		return 0, false
	}
	return float64(n) / seconds, true
}

func percentile(key string) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		v, ok := s.Latency.Percentiles[key]
		return v, ok && s.Latency.Count > 0
	}
}

func maxLatency(s *results.Step) (float64, bool) {
	return s.Latency.Max, s.Latency.Count > 0
}

func errorCount(s *results.Step) (float64, bool) {
	return float64(s.Totals.IgnoredErrors), true
}

// RatioStyle is how a cell's ratio to the baseline is written.
type RatioStyle int

const (
	// Times writes value / baseline: "1.23x".
	Times RatioStyle = iota
	// Percent writes the difference in percent: "+23 %".
	Percent
)

// ParseRatioStyle reads --ratio: "x" or "percent".
func ParseRatioStyle(s string) (RatioStyle, error) {
	switch s {
	case "x", "times":
		return Times, nil
	case "%", "percent":
		return Percent, nil
	}
	return 0, fmt.Errorf("unknown ratio style %q (x or percent)", s)
}

// Format writes ratio r (value / baseline) in the style.
func (rs RatioStyle) Format(r float64) string {
	if rs == Percent {
		return fmt.Sprintf("%+.0f %%", (r-1)*100)
	}
	return fmt.Sprintf("%.2fx", r)
}

// Cell is one value of the table with its ratio to the baseline's value
// at the same key.
type Cell struct {
	Value float64
	// Ratio is Value / the baseline's; HasRatio is false in the
	// baseline's own column and where the baseline has no value or 0.
	Ratio    float64
	HasRatio bool
	// Complete is false when the step did not run to its end.
	Complete bool
}

// Cell is metric m of run at key k; false when the run has no such step
// or the step no such figure.
func (t *Table) Cell(m Metric, run int, k Key) (Cell, bool) {
	s, ok := t.Step(run, k)
	if !ok {
		return Cell{}, false
	}
	v, ok := m.Value(s.Step)
	if !ok {
		return Cell{}, false
	}
	c := Cell{Value: v, Complete: s.Step.Complete}
	if run == t.Baseline {
		return c, true
	}
	if base, ok := t.Step(t.Baseline, k); ok {
		if bv, ok := m.Value(base.Step); ok && bv != 0 && !math.IsNaN(bv) {
			c.Ratio, c.HasRatio = v/bv, true
		}
	}
	return c, true
}
