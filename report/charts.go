package report

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"sbgo/compare"
	"sbgo/results"
)

// Chart is one chart of the report.
type Chart struct {
	// Name is the chart's id in the page and for --chart:
	// "WORKLOAD-tps-threads", "WORKLOAD-THREADSt-p95", ...
	Name    string
	Title   string
	Caption string
	// draw builds the plot, with an in-chart legend when legend is set
	// (a standalone chart); in the page, one key serves every chart.
	draw func(legend bool) (*plot.Plot, error)
}

// Section is the charts of one workload: those over thread counts (for a
// sweep), then a row per thread count.
type Section struct {
	Workload string
	Sweep    []Chart
	Steps    []StepCharts
}

// StepCharts are the charts of one workload at one thread count.
type StepCharts struct {
	Threads int
	Charts  []Chart
}

// Sections are the report's charts, one section per workload in the
// table's order.
func Sections(t *compare.Table) []Section {
	var out []Section
	for _, w := range t.Workloads() {
		sec := Section{Workload: w}
		counts := threadCounts(t, w)
		if len(counts) > 1 {
			sec.Sweep = sweepCharts(t, w, counts)
		}
		for _, n := range counts {
			sec.Steps = append(sec.Steps, StepCharts{Threads: n, Charts: stepCharts(t, compare.Key{Workload: w, Threads: n})})
		}
		out = append(out, sec)
	}
	return out
}

// Charts lists every chart of the report, in page order.
func Charts(t *compare.Table) []Chart {
	var out []Chart
	for _, s := range Sections(t) {
		out = append(out, s.Sweep...)
		for _, st := range s.Steps {
			out = append(out, st.Charts...)
		}
	}
	return out
}

func threadCounts(t *compare.Table, workload string) []int {
	var counts []int
	for _, k := range t.Keys {
		if k.Workload == workload {
			counts = append(counts, k.Threads)
		}
	}
	return counts
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// chartName makes an id of the parts, safe in HTML and on a command line.
func chartName(parts ...string) string {
	name := ""
	for i, p := range parts {
		if i > 0 {
			name += "-"
		}
		name += unsafeID.ReplaceAllString(p, "_")
	}
	return name
}

func runName(t *compare.Table, i int) string { return compare.RunName(i) + " " + t.Runs[i].Header }

// sweepCharts are tps, and p95 and p99, against the thread counts.
func sweepCharts(t *compare.Table, w string, counts []int) []Chart {
	tps, p95, p99 := compare.Metrics[0], compare.Metrics[2], compare.Metrics[3]
	return []Chart{
		{
			Name: chartName(w, "tps", "threads"), Title: w + ": tps by threads",
			Caption: "transactions per second of each step, one line per run",
			draw: func(legend bool) (*plot.Plot, error) {
				p := newPlot(w+": tps by threads", "threads", "tps")
				for i := range t.Runs {
					if err := addLine(p, overThreads(t, tps, i, w), i, false, runName(t, i)); err != nil {
						return nil, err
					}
				}
				return finish(p, legend, func() { threadsAxis(p, counts) })
			},
		},
		{
			Name: chartName(w, "latency", "threads"), Title: w + ": p95 and p99 by threads",
			Caption: "latency percentiles of each step: p95 solid, p99 dashed",
			draw: func(legend bool) (*plot.Plot, error) {
				p := newPlot(w+": p95 and p99 by threads", "threads", "ms")
				for i := range t.Runs {
					if err := addLine(p, overThreads(t, p95, i, w), i, false, runName(t, i)+" p95"); err != nil {
						return nil, err
					}
					if err := addLine(p, overThreads(t, p99, i, w), i, true, runName(t, i)+" p99"); err != nil {
						return nil, err
					}
				}
				return finish(p, legend, func() { threadsAxis(p, counts) })
			},
		},
	}
}

// errNoData is a chart none of whose runs has a point to draw: its axes
// would have no range.
var errNoData = errors.New("no data to draw")

// finish sets the axes once the data is in (adding data moves them) and
// drops the legend the page does not want.
func finish(p *plot.Plot, legend bool, axes func()) (*plot.Plot, error) {
	if math.IsInf(p.X.Min, 1) {
		return nil, errNoData
	}
	if axes != nil {
		axes()
	}
	if !legend {
		p.Legend = plot.NewLegend()
		p.Legend.Top = true
	}
	return p, nil
}

// stepCharts are the charts of the runs' steps at key k: tps and p95
// over time, the latency percentiles and, where any occurred, errors and
// reconnects over time.
func stepCharts(t *compare.Table, k compare.Key) []Chart {
	at := k.Workload + " at " + compare.Threads(k.Threads)
	n := strconv.Itoa(k.Threads) + "t"
	charts := []Chart{
		timeChart(t, k, chartName(k.Workload, n, "tps"), at+": tps", "tps", "transactions per second, second by second", pointTPS),
		timeChart(t, k, chartName(k.Workload, n, "p95"), at+": p95", "ms", "95th percentile latency of each second", pointP95),
		percentileChart(t, k, chartName(k.Workload, n, "percentiles"), at+": latency percentiles"),
	}
	if slices.ContainsFunc(runSteps(t, k), func(s *results.Step) bool { return s != nil && hasFailures(s) }) {
		charts = append(charts, failureChart(t, k, chartName(k.Workload, n, "errors"), at+": errors and reconnects"))
	}
	return charts
}

// runSteps is each run's step at k, nil where it has none.
func runSteps(t *compare.Table, k compare.Key) []*results.Step {
	steps := make([]*results.Step, len(t.Runs))
	for i := range t.Runs {
		if s, ok := t.Step(i, k); ok {
			steps[i] = s.Step
		}
	}
	return steps
}

func timeChart(t *compare.Table, k compare.Key, name, title, y, caption string, figure func(results.Point) (float64, bool)) Chart {
	return Chart{Name: name, Title: title, Caption: caption, draw: func(legend bool) (*plot.Plot, error) {
		p := newPlot(title, "seconds", y)
		for i, s := range runSteps(t, k) {
			if s == nil {
				continue
			}
			if err := addLine(p, overTime(s, figure), i, false, runName(t, i)); err != nil {
				return nil, err
			}
		}
		return finish(p, legend, nil)
	}}
}

// percentileChart is the latency at each percentile, HdrHistogram style.
func percentileChart(t *compare.Table, k compare.Key, name, title string) Chart {
	return Chart{Name: name, Title: title, Caption: "latency by percentile, from the step's whole histogram", draw: func(legend bool) (*plot.Plot, error) {
		p := newPlot(title, "percentile", "ms")
		for i, s := range runSteps(t, k) {
			if s == nil {
				continue
			}
			xys, err := percentileCurve(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.Runs[i].Header, err)
			}
			if err := addLine(p, xys, i, false, runName(t, i)); err != nil {
				return nil, err
			}
		}
		return finish(p, legend, func() { percentileAxis(p) })
	}}
}

// failureChart is errors (solid) and reconnects (dashed) per second.
func failureChart(t *compare.Table, k compare.Key, name, title string) Chart {
	return Chart{Name: name, Title: title, Caption: "per second: errors solid, reconnects dashed", draw: func(legend bool) (*plot.Plot, error) {
		p := newPlot(title, "seconds", "per second")
		for i, s := range runSteps(t, k) {
			if s == nil {
				continue
			}
			if err := addLine(p, overTime(s, pointErrors), i, false, runName(t, i)+" errors"); err != nil {
				return nil, err
			}
			if err := addLine(p, overTime(s, pointReconnects), i, true, runName(t, i)+" reconnects"); err != nil {
				return nil, err
			}
		}
		return finish(p, legend, nil)
	}}
}
