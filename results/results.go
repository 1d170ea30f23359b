// Package results is the results document a run leaves behind
// (--results-file): the Go types of its JSON schema, an atomic writer, a
// reader that checks the schema version, and the HDR latency histograms
// that make percentiles exact and mergeable across runs.
//
// It is built from plain data handed over at the end of a run, so the
// engine does not import it; compare, report and merge read files through
// it and never import the engine.
package results

import "time"

// SchemaVersion is the version of the document this package writes. A
// reader refuses documents of a newer version: their meaning may differ.
const SchemaVersion = 1

// Document is one results file: one invocation of sbgo, with one Step per
// run phase (several for a thread sweep).
type Document struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          Tool   `json:"tool"`
	Label         string `json:"label,omitempty"`
	// Complete is false when the run failed or was interrupted; Reason
	// then says why.
	Complete    bool              `json:"complete"`
	Reason      string            `json:"reason,omitempty"`
	CommandLine []string          `json:"command_line"`
	Script      Script            `json:"script"`
	Options     map[string]string `json:"options"`
	Start       time.Time         `json:"start"`
	End         time.Time         `json:"end"`
	Host        Host              `json:"host"`
	Server      *Server           `json:"server,omitempty"`
	// ClientID is --client-id: which client of a multi-client run wrote
	// the document.
	ClientID *int   `json:"client_id,omitempty"`
	Steps    []Step `json:"steps"`
	// Parts lists the documents a merged document was made of (sbgo
	// merge); its Host then stands for all of them.
	Parts []Part `json:"parts,omitempty"`
}

// Part is one client's document in a merged one: where it came from and
// the window it measured.
type Part struct {
	Source       string    `json:"source"`
	ClientID     *int      `json:"client_id,omitempty"`
	Host         Host      `json:"host"`
	Complete     bool      `json:"complete"`
	Reason       string    `json:"reason,omitempty"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	Threads      []int     `json:"threads"`
	Transactions uint64    `json:"transactions"`
}

// Tool names the program that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Script identifies the workload: its name as given and the SHA-256 of
// its source, so that two runs of edited copies are told apart.
type Script struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256,omitempty"`
}

// Host is the client machine.
type Host struct {
	Name string `json:"name"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
	CPUs int    `json:"cpus"`
}

// Server is the database the run measured; it never holds credentials.
type Server struct {
	Driver  string `json:"driver"`
	Version string `json:"version,omitempty"`
	Host    string `json:"host,omitempty"`
	Port    int    `json:"port,omitempty"`
}

// Step is one run phase at one thread count.
type Step struct {
	Threads  int       `json:"threads"`
	Complete bool      `json:"complete"`
	Reason   string    `json:"reason,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Totals   Totals    `json:"totals"`
	Latency  Latency   `json:"latency"`
	// Errors counts the errors by code (MySQL errno, PostgreSQL SQLSTATE).
	Errors []ErrorCount `json:"errors"`
	// Seconds has one point per second of the run; Intervals one per
	// --report-interval when it is set.
	Seconds   []Point `json:"seconds"`
	Intervals []Point `json:"intervals,omitempty"`
}

// Totals are the counts of the text report.
type Totals struct {
	Transactions  uint64 `json:"transactions"`
	Events        uint64 `json:"events"`
	Reads         uint64 `json:"reads"`
	Writes        uint64 `json:"writes"`
	Other         uint64 `json:"other"`
	IgnoredErrors uint64 `json:"ignored_errors"`
	Reconnects    uint64 `json:"reconnects"`
	// AmbiguousCommits are COMMITs whose answer was lost: each may or may
	// not have committed (engine.Stats.AmbiguousCommits).
	AmbiguousCommits uint64  `json:"ambiguous_commits,omitempty"`
	TotalTime        float64 `json:"total_time_s"`
	// EventsStddev and ExecTimeStddev are the threads-fairness figures.
	EventsAvg      float64 `json:"events_avg"`
	EventsStddev   float64 `json:"events_stddev"`
	ExecTimeAvg    float64 `json:"exec_time_avg_s"`
	ExecTimeStddev float64 `json:"exec_time_stddev_s"`
}

// Queries is reads + writes + other, as the report's "total".
func (t Totals) Queries() uint64 { return t.Reads + t.Writes + t.Other }

// Latency summarises a histogram in milliseconds and carries the histogram
// itself (HDR V2, compressed and base64-encoded), from which the figures
// can be computed again and runs merged exactly.
type Latency struct {
	Count       int64              `json:"count"`
	Min         float64            `json:"min_ms"`
	Mean        float64            `json:"mean_ms"`
	Max         float64            `json:"max_ms"`
	Stddev      float64            `json:"stddev_ms"`
	Percentiles map[string]float64 `json:"percentiles_ms"`
	Histogram   string             `json:"hdr_histogram"`
}

// ErrorCount is how often one error code occurred, with its first message.
type ErrorCount struct {
	Code    string `json:"code"`
	Count   uint64 `json:"count"`
	Message string `json:"first_message"`
}

// Point is one second (or interval) of a run.
type Point struct {
	// Time is the end of the point's period, in seconds from the step's start.
	Time       float64 `json:"t"`
	Seconds    float64 `json:"duration_s"`
	Events     uint64  `json:"events"`
	Reads      uint64  `json:"reads"`
	Writes     uint64  `json:"writes"`
	Other      uint64  `json:"other"`
	Errors     uint64  `json:"errors"`
	Reconnects uint64  `json:"reconnects"`
	Threads    int     `json:"threads_running"`
	// Percentiles of the period's own latencies (50, 95, 99) and its max,
	// in milliseconds, and its histogram for merging.
	P50       float64 `json:"p50_ms"`
	P95       float64 `json:"p95_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
	Histogram string  `json:"hdr_histogram,omitempty"`
}

// TPS is the point's events per second.
func (p Point) TPS() float64 { return rate(p.Events, p.Seconds) }

// QPS is the point's queries per second.
func (p Point) QPS() float64 { return rate(p.Reads+p.Writes+p.Other, p.Seconds) }

func rate(n uint64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(n) / seconds
}
