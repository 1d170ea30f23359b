package compare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sbgo/results"
)

// Grid is a block of the comparison as cells of text, which every layout
// (aligned text, markdown, CSV, the report's HTML) lays out its own way.
type Grid struct {
	Title  string
	Header []string
	// Numeric marks the columns that hold numbers (aligned right).
	Numeric []bool
	Rows    [][]string
}

// IncompleteMark follows a value from a step that did not complete.
const IncompleteMark = "*"

// RunName is how the legend and the ratio columns refer to run i: "[1]".
func RunName(i int) string { return "[" + strconv.Itoa(i+1) + "]" }

// Legend is the grid of the runs: number, header (label or file name), server, host,
// date and whether they completed.
func (t *Table) Legend() Grid {
	g := Grid{
		Title:   "Runs",
		Header:  []string{"run", "name", "server", "host", "start", "status"},
		Numeric: make([]bool, 6),
	}
	for i, r := range t.Runs {
		g.Rows = append(g.Rows, []string{
			RunName(i), r.Header, joinDistinct(r, serverText), joinDistinct(r, hostText),
			r.Start().Format("2006-01-02 15:04 -0700"), status(r),
		})
	}
	return g
}

// joinDistinct lists the distinct texts the run's files give.
func joinDistinct(r Run, text func(*results.Document) string) string {
	var seen []string
	for _, f := range r.Files {
		if s := text(f.Doc); !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	return strings.Join(seen, "; ")
}

func serverText(d *results.Document) string {
	s := d.Server
	if s == nil {
		return "no database"
	}
	where := s.Driver
	if s.Host != "" {
		where += " " + s.Host
		if s.Port != 0 {
			where += ":" + strconv.Itoa(s.Port)
		}
	}
	if s.Version == "" {
		return where
	}
	return s.Version + " (" + where + ")"
}

func hostText(d *results.Document) string {
	return fmt.Sprintf("%s (%d CPUs)", d.Host.Name, d.Host.CPUs)
}

// status is "complete", or "incomplete: " and why.
func status(r Run) string {
	if r.Complete() {
		return "complete"
	}
	var reasons []string
	for _, f := range r.Files {
		if !f.Doc.Complete && !slices.Contains(reasons, f.Doc.Reason) {
			reasons = append(reasons, f.Doc.Reason)
		}
	}
	return "incomplete: " + strings.Join(reasons, "; ")
}

// Block is the grid of metric m: workload, threads, then one column per
// run and, after each run but the baseline, its ratio to the baseline.
// A cell the run has no step for is "-".
func (t *Table) Block(m Metric, style RatioStyle) Grid {
	g := Grid{Title: m.Name + ": " + m.Title, Header: []string{"workload", "threads"}, Numeric: []bool{false, true}}
	if len(t.Runs) > 1 {
		g.Title += ", ratio to " + RunName(t.Baseline)
	}
	for i, r := range t.Runs {
		g.Header = append(g.Header, RunName(i)+" "+r.Header)
		g.Numeric = append(g.Numeric, true)
		if i != t.Baseline {
			g.Header = append(g.Header, "vs "+RunName(t.Baseline))
			g.Numeric = append(g.Numeric, true)
		}
	}
	for _, k := range t.Keys {
		row := []string{k.Workload, strconv.Itoa(k.Threads)}
		for i := range t.Runs {
			row = append(row, t.cellTexts(m, style, i, k)...)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// cellTexts is run i's value at k and, but in the baseline's column, its
// ratio.
func (t *Table) cellTexts(m Metric, style RatioStyle, i int, k Key) []string {
	c, ok := t.Cell(m, i, k)
	value, ratio := "-", ""
	if ok {
		value = m.Format(c.Value)
		if !c.Complete {
			value += IncompleteMark
		}
		if c.HasRatio {
			ratio = style.Format(c.Ratio)
		}
	}
	if i == t.Baseline {
		return []string{value}
	}
	return []string{value, ratio}
}

// Notes are the remarks under the blocks: what the incomplete mark means
// and which workloads ran from different sources.
func (t *Table) Notes(metrics []Metric) []string {
	var notes []string
	if t.hasIncompleteCell(metrics) {
		notes = append(notes, IncompleteMark+" from a step that did not run to its end")
	}
	for _, w := range t.Workloads() {
		if t.SourcesDiffer(w) {
			notes = append(notes, w+": the runs ran different sources of the script (SHA-256 differs)")
		}
	}
	return notes
}

func (t *Table) hasIncompleteCell(metrics []Metric) bool {
	for _, m := range metrics {
		for i := range t.Runs {
			for _, k := range t.Keys {
				if c, ok := t.Cell(m, i, k); ok && !c.Complete {
					return true
				}
			}
		}
	}
	return false
}
