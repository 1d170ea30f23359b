package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is a layout of the comparison.
type Format string

// The layouts --format accepts.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
)

// ParseFormat reads --format.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, Markdown, CSV, JSON:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (text, markdown, csv or json)", s)
}

// Options say what to write and how.
type Options struct {
	Format  Format
	Metrics []Metric
	Ratio   RatioStyle
}

// Write writes the comparison in the chosen layout.
func Write(w io.Writer, t *Table, o Options) error {
	switch o.Format {
	case Markdown:
		return writeMarkdown(w, t, o)
	case CSV:
		return writeCSV(w, t, o)
	case JSON:
		return writeJSON(w, t, o)
	default:
		return writeText(w, t, o)
	}
}

// writeText is for a terminal: the legend, then each block under its
// title, columns aligned, numbers to the right.
func writeText(w io.Writer, t *Table, o Options) error {
	var b strings.Builder
	legend := t.Legend()
	b.WriteString(legend.Title + ":\n")
	alignGrid(&b, Grid{Header: nil, Numeric: legend.Numeric, Rows: legend.Rows}, "  ")
	for _, m := range o.Metrics {
		g := t.Block(m, o.Ratio)
		b.WriteString("\n" + g.Title + "\n")
		alignGrid(&b, g, "")
	}
	if notes := t.Notes(o.Metrics); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// alignGrid writes g's header and rows in columns two spaces apart,
// without trailing blanks.
func alignGrid(b *strings.Builder, g Grid, indent string) {
	rows := markAside(g)
	if g.Header != nil {
		rows = append([][]string{g.Header}, rows...)
	}
	widths := make([]int, len(g.Numeric))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if g.Numeric[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// markAside returns g's rows with a blank after every number of a column
// where some number carries the incomplete mark, so that the digits stay
// aligned and the marks stand to their right.
func markAside(g Grid) [][]string {
	rows := make([][]string, len(g.Rows))
	for i, r := range g.Rows {
		rows[i] = slices.Clone(r)
	}
	for col, numeric := range g.Numeric {
		if !numeric || !slices.ContainsFunc(g.Rows, func(r []string) bool { return strings.HasSuffix(r[col], IncompleteMark) }) {
			continue
		}
		for _, r := range rows {
			if r[col] != "" && !strings.HasSuffix(r[col], IncompleteMark) {
				r[col] += " "
			}
		}
	}
	return rows
}

// writeMarkdown is for an issue or a README: the legend and each block
// as a table under its title.
func writeMarkdown(w io.Writer, t *Table, o Options) error {
	var b strings.Builder
	legend := t.Legend()
	b.WriteString("**" + legend.Title + "**\n\n")
	markdownGrid(&b, legend)
	for _, m := range o.Metrics {
		g := t.Block(m, o.Ratio)
		b.WriteString("\n**" + markdownEscape(g.Title) + "**\n\n")
		markdownGrid(&b, g)
	}
	if notes := t.Notes(o.Metrics); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString(markdownEscape(n) + "  \n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownGrid(b *strings.Builder, g Grid) {
	row := func(cells []string) {
		for _, c := range cells {
			b.WriteString("| " + markdownEscape(c) + " ")
		}
		b.WriteString("|\n")
	}
	row(g.Header)
	for _, n := range g.Numeric {
		if n {
			b.WriteString("|---:")
		} else {
			b.WriteString("|---")
		}
	}
	b.WriteString("|\n")
	for _, r := range g.Rows {
		row(r)
	}
}

// markdownEscape keeps a cell's text from being read as markup.
// Underscores stay: inside a word, as in oltp_read_only, they are text.
var markdownEscape = strings.NewReplacer(`\`, `\\`, `|`, `\|`, `*`, `\*`, "`", "\\`", "<", "&lt;").Replace

// writeCSV is for spreadsheets and scripts: one table, a row per metric,
// workload and thread count, plain numbers. A run's column is followed by
// its ratio to the baseline (value / baseline's value); the header of an
// incomplete run says so, and a missing value is empty.
func writeCSV(w io.Writer, t *Table, o Options) error {
	cw := csv.NewWriter(w)
	header := []string{"metric", "workload", "threads"}
	for i, r := range t.Runs {
		h := RunName(i) + " " + r.Header
		if !r.Complete() {
			h += " (incomplete)"
		}
		header = append(header, h)
		if i != t.Baseline {
			header = append(header, RunName(i)+" / "+RunName(t.Baseline))
		}
	}
	cw.Write(header) // a failed write shows in cw.Error
	for _, m := range o.Metrics {
		for _, k := range t.Keys {
			cw.Write(t.csvRow(m, k))
		}
	}
	cw.Flush()
	return cw.Error()
}

func (t *Table) csvRow(m Metric, k Key) []string {
	row := []string{m.Name, k.Workload, strconv.Itoa(k.Threads)}
	for i := range t.Runs {
		c, ok := t.Cell(m, i, k)
		value, ratio := "", ""
		if ok {
			value = m.Format(c.Value)
			if c.HasRatio {
				ratio = strconv.FormatFloat(c.Ratio, 'f', 4, 64)
			}
		}
		row = append(row, value)
		if i != t.Baseline {
			row = append(row, ratio)
		}
	}
	return row
}
