package compare

import (
	"encoding/json"
	"io"
	"time"
)

// jsonDoc is the comparison for programs: the runs, then per metric the
// rows, each with one cell per run (null where the run has no step).
type jsonDoc struct {
	Baseline int          `json:"baseline"` // numbered from 1, as in the legend
	Runs     []jsonRun    `json:"runs"`
	Metrics  []jsonMetric `json:"metrics"`
	Notes    []string     `json:"notes"`
}

type jsonRun struct {
	Run      int       `json:"run"`
	Header   string    `json:"header"`
	Label    string    `json:"label,omitempty"`
	Files    []string  `json:"files"`
	Server   string    `json:"server"`
	Host     string    `json:"host"`
	Start    time.Time `json:"start"`
	Complete bool      `json:"complete"`
	Status   string    `json:"status"`
}

type jsonMetric struct {
	Metric string    `json:"metric"`
	Title  string    `json:"title"`
	Rows   []jsonRow `json:"rows"`
}

type jsonRow struct {
	Workload string      `json:"workload"`
	Threads  int         `json:"threads"`
	Cells    []*jsonCell `json:"cells"`
}

type jsonCell struct {
	Value    float64  `json:"value"`
	Ratio    *float64 `json:"ratio,omitempty"` // value / the baseline's
	Complete bool     `json:"complete"`
}

func writeJSON(w io.Writer, t *Table, o Options) error {
	doc := jsonDoc{Baseline: t.Baseline + 1, Notes: t.Notes(o.Metrics)}
	if doc.Notes == nil {
		doc.Notes = []string{}
	}
	for i, r := range t.Runs {
		jr := jsonRun{Run: i + 1, Header: r.Header, Label: r.Label, Server: joinDistinct(r, serverText),
			Host: joinDistinct(r, hostText), Start: r.Start(), Complete: r.Complete(), Status: status(r)}
		for _, f := range r.Files {
			jr.Files = append(jr.Files, f.Path)
		}
		doc.Runs = append(doc.Runs, jr)
	}
	for _, m := range o.Metrics {
		jm := jsonMetric{Metric: m.Name, Title: m.Title, Rows: []jsonRow{}}
		for _, k := range t.Keys {
			jm.Rows = append(jm.Rows, t.jsonRow(m, k))
		}
		doc.Metrics = append(doc.Metrics, jm)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func (t *Table) jsonRow(m Metric, k Key) jsonRow {
	row := jsonRow{Workload: k.Workload, Threads: k.Threads}
	for i := range t.Runs {
		c, ok := t.Cell(m, i, k)
		if !ok {
			row.Cells = append(row.Cells, nil)
			continue
		}
		jc := &jsonCell{Value: c.Value, Complete: c.Complete}
		if c.HasRatio {
			jc.Ratio = &c.Ratio
		}
		row.Cells = append(row.Cells, jc)
	}
	return row
}
