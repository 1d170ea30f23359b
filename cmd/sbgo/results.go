package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"sbgo/db"
	"sbgo/engine"
	"sbgo/metrics"
	"sbgo/results"
	"sbgo/scripts"
)

// resultsOptions are sbgo's own options for the run's results: the
// results file, the live metrics and thread sweeps. They are not
// sysbench's, so they get a --help block of their own after the general
// options.
var resultsOptions = engine.Group{Title: "Results options", Options: []engine.Option{
	{Name: "results-file", Desc: "write the run's results as a JSON document to this file when the run ends ('-' for stdout)", Type: engine.ArgString},
	{Name: "results-label", Desc: "a label for the results file, to tell runs apart when comparing them", Type: engine.ArgString},
	{Name: "prometheus", Desc: "serve live metrics for Prometheus at /metrics on this host:port (e.g. 127.0.0.1:9273) during the run", Type: engine.ArgString},
	{Name: "sweep-continue", Desc: "with a list of thread counts (--threads=1,2,4), go on to the next step after a failed one", Type: engine.ArgBool, Default: engine.Default("off")},
}}

// listenMetrics binds --prometheus's address, if it is set, before the
// run starts: an address that cannot be used is one FATAL line and exit
// code 1, before any work. It returns no listener without the option.
func (inv *invocation) listenMetrics() (net.Listener, int) {
	addr := optionText(inv.opts, "prometheus")
	if addr == "" {
		return nil, 0
	}
	ln, err := metrics.Listen(addr)
	if err != nil {
		inv.log.Logf(engine.LevelFatal, "--prometheus: %s", err)
		return nil, 1
	}
	return ln, 0
}

// optionText is the value of a string option, "" without one.
func optionText(opts *engine.Options, name string) string {
	if v, ok := opts.Lookup(name); ok {
		return v.String()
	}
	return ""
}

// writeResults builds the results document of a finished run, one step
// per run of a sweep, and writes it to --results-file. A failure is one
// line on stderr and exit code 1.
func (inv *invocation) writeResults(path string, steps []engine.RunSummary, started time.Time) int {
	doc := inv.resultsDocument(steps, started)
	var err error
	for _, s := range steps {
		var step results.Step
		if step, err = resultsStep(s); err != nil {
			break
		}
		doc.Steps = append(doc.Steps, step)
	}
	if err == nil {
		err = results.WriteFile(path, doc, inv.stdout)
	}
	if err != nil {
		inv.log.Logf(engine.LevelFatal, "cannot write the results file: %s", err)
		return 1
	}
	return 0
}

// resultsDocument is the document's header: who ran what, where and how.
// It spans every step; it is complete when every step that was asked for
// ran to its end, else it gives the first incomplete step's reason.
func (inv *invocation) resultsDocument(steps []engine.RunSummary, started time.Time) *results.Document {
	host, _ := os.Hostname()
	first, last := steps[0], steps[len(steps)-1]
	start, end := first.Start, last.End
	if start.IsZero() {
		start = started
	}
	if end.IsZero() {
		end = time.Now()
	}
	complete, reason := len(steps) == inv.stepCount(), ""
	if !complete {
		reason = "the sweep stopped before its last step"
	}
	for _, s := range steps {
		if !s.Complete {
			complete, reason = false, s.Reason
			break
		}
	}
	return &results.Document{
		SchemaVersion: results.SchemaVersion,
		Tool:          results.Tool{Name: "sbgo", Version: Version},
		Label:         optionText(inv.opts, "results-label"),
		Complete:      complete,
		Reason:        reason,
		CommandLine:   results.MaskArgs(inv.argv),
		Script:        results.Script{Name: inv.test, SHA256: scriptSHA256(inv.test)},
		Options:       results.MaskOptions(inv.opts.Resolved()),
		Start:         start,
		End:           end,
		Host:          results.Host{Name: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()},
		Server:        inv.resultsServer(steps),
		ClientID:      inv.clientID,
	}
}

// scriptSHA256 is the SHA-256 of the script's source: the file when name
// is one, else the bundled script; "" when neither is readable.
func scriptSHA256(name string) string {
	src, err := os.ReadFile(name)
	if err != nil {
		if src, err = fs.ReadFile(scripts.FS, name+".lua"); err != nil {
			return ""
		}
	}
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// resultsStep is the run phase's figures.
func resultsStep(s engine.RunSummary) (results.Step, error) {
	step := results.Step{Threads: s.Threads, Complete: s.Complete, Reason: s.Reason, Start: s.Start, End: s.End}
	if step.Start.IsZero() || step.End.IsZero() {
		step.End = time.Now()
		step.Start = step.End
	}
	if t := s.Totals; t != nil {
		step.Totals = totals(t)
	}
	h := s.Latency
	if h == nil {
		h = results.NewHistogram()
	}
	var err error
	if step.Latency, err = results.Summarize(h); err != nil {
		return step, err
	}
	for _, e := range s.Errors {
		step.Errors = append(step.Errors, results.ErrorCount{Code: e.Code, Count: e.Count, Message: e.Message})
	}
	if step.Seconds, err = points(s.Seconds); err != nil {
		return step, err
	}
	step.Intervals, err = points(s.Intervals)
	return step, err
}

// totals are the text report's counts and fairness figures.
func totals(t *engine.Stats) results.Totals {
	out := results.Totals{
		Transactions: t.Events, Events: t.Events,
		Reads: t.Reads, Writes: t.Writes, Other: t.Other,
		IgnoredErrors: t.Errors, Reconnects: t.Reconnects,
		AmbiguousCommits: t.AmbiguousCommits, TotalTime: t.TimeTotal,
	}
	out.EventsAvg, out.EventsStddev, out.ExecTimeAvg, out.ExecTimeStddev = t.Fairness()
	return out
}

// points converts the engine's series, each with its own histogram.
func points(in []engine.SeriesPoint) ([]results.Point, error) {
	var out []results.Point
	for _, p := range in {
		pt := results.Point{
			Time: p.Time, Seconds: p.Duration,
			Events: p.Events, Reads: p.Reads, Writes: p.Writes, Other: p.Other,
			Errors: p.Errors, Reconnects: p.Reconnects, Threads: p.ThreadsRunning,
		}
		if h := p.Latency; h != nil && h.TotalCount() > 0 {
			if err := pt.SetLatency(h); err != nil {
				return nil, err
			}
		}
		out = append(out, pt)
	}
	return out, nil
}

// serverTimeout bounds the connection that asks the server its version:
// a server that is gone must not hold up the results file.
const serverTimeout = 5 * time.Second

// resultsServer describes the database the run used, when it used one:
// the driver, the host and port from the options, and the version the
// server reports (empty when it cannot be asked). The server is not
// asked after a run whose deadline abandoned events: it was not
// answering then, and the question would hold the process up to
// serverTimeout past that deadline.
func (inv *invocation) resultsServer(steps []engine.RunSummary) *results.Server {
	if !inv.script.SQLMode() {
		return nil
	}
	name := inv.general.DBDriver
	srv := &results.Server{Driver: name}
	switch name {
	case "sqlite":
		// No server: the database file stands where the host would.
		srv.Host = optionText(inv.opts, "sqlite-db")
	case "pgsql":
		srv.Host = firstItem(optionText(inv.opts, "pgsql-host"))
		srv.Port, _ = strconv.Atoi(firstItem(optionText(inv.opts, "pgsql-port")))
	default:
		srv.Host = firstItem(optionText(inv.opts, "mysql-host"))
		srv.Port, _ = strconv.Atoi(firstItem(optionText(inv.opts, "mysql-port")))
	}
	for _, s := range steps {
		if s.Abandoned > 0 {
			return srv
		}
	}
	srv.Version = serverVersion(inv.opts, name)
	return srv
}

func firstItem(list string) string {
	item, _, _ := strings.Cut(list, ",")
	return item
}

// serverVersion asks the server its version string on a connection of
// its own; "" on any failure.
func serverVersion(opts *engine.Options, driver string) string {
	f, ok := db.Lookup(driver)
	if !ok {
		return ""
	}
	d, err := f.New(opts, engine.NewLogger(io.Discard, 0))
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverTimeout)
	defer cancel()
	conn, err := d.Connect(ctx)
	if err != nil {
		return ""
	}
	defer conn.Close()
	query := "SELECT VERSION()"
	switch driver {
	case "pgsql":
		query = "SHOW server_version"
	case "sqlite":
		query = "SELECT sqlite_version()"
	}
	res, err := conn.Query(ctx, query)
	if err != nil || res.Rows == nil {
		return ""
	}
	defer res.Rows.Close()
	row := make([][]byte, res.Rows.NumFields())
	if ok, err := res.Rows.Next(row); !ok || err != nil || len(row) == 0 {
		return ""
	}
	return string(row[0])
}
