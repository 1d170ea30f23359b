// Package metrics serves a run's live figures on a Prometheus endpoint
// (--prometheus). It pulls rather than being told: each scrape asks the
// run for a snapshot (engine.Run.Live) and turns it into constant metrics,
// so the workers record nothing for it beyond what the results file
// already has them record, and an idle endpoint costs nothing.
//
// The metrics, all cumulative from the start of the measured run (after
// any warm-up):
//
//	sbgo_events_total              events (transactions) finished
//	sbgo_queries_total{kind}       statements by kind: read, write, other
//	sbgo_errors_total{code}        failed statements by error code
//	sbgo_reconnects_total          reconnections after a lost connection
//	sbgo_threads_running           worker threads running (a gauge)
//	sbgo_latency_seconds           event latency: classic buckets (Buckets)
//	                               and a native histogram (NativeSchema)
//
// No metric carries an option's value, a query or an error's message:
// nothing a password could hide in.
package metrics

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"sbgo/engine"
)

// Source is what the endpoint reads on each scrape: engine.Run. Live is
// called from the HTTP server's goroutines, concurrently with the run.
type Source interface {
	Live() engine.LiveStats
}

var (
	eventsDesc = prometheus.NewDesc("sbgo_events_total",
		"Events (transactions) finished since the measured run began.", nil, nil)
	queriesDesc = prometheus.NewDesc("sbgo_queries_total",
		"SQL statements run, by kind (read, write, other).", []string{"kind"}, nil)
	errorsDesc = prometheus.NewDesc("sbgo_errors_total",
		"Failed SQL statements, by error code (a MySQL error number or a PostgreSQL SQLSTATE).", []string{"code"}, nil)
	reconnectsDesc = prometheus.NewDesc("sbgo_reconnects_total",
		"Reconnections after a lost connection.", nil, nil)
	threadsDesc = prometheus.NewDesc("sbgo_threads_running",
		"Worker threads running.", nil, nil)
	latencyDesc = prometheus.NewDesc("sbgo_latency_seconds",
		"Event latency in seconds.", nil, nil)
)

// Collector is a prometheus.Collector of a run's figures.
type Collector struct {
	src Source
	// created is when the counters were zero: the endpoint's start,
	// which comes before the run's.
	created time.Time
}

// NewCollector returns a Collector reading src.
func NewCollector(src Source) *Collector {
	return &Collector{src: src, created: time.Now()}
}

// Describe sends the descriptors of every metric Collect sends.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{eventsDesc, queriesDesc, errorsDesc, reconnectsDesc, threadsDesc, latencyDesc} {
		ch <- d
	}
}

// Collect sends the run's figures as they are now.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Live()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(d, prometheus.CounterValue, float64(v), c.created, labels...)
	}
	counter(eventsDesc, s.Events)
	counter(queriesDesc, s.Reads, "read")
	counter(queriesDesc, s.Writes, "write")
	counter(queriesDesc, s.Other, "other")
	for _, e := range s.ErrorCodes {
		counter(errorsDesc, e.Count, e.Code)
	}
	counter(reconnectsDesc, s.Reconnects)
	ch <- prometheus.MustNewConstMetric(threadsDesc, prometheus.GaugeValue, float64(s.ThreadsRunning))
	if s.Latency != nil {
		m, err := newLatencyMetric(latencyDesc, s.Latency, s.LatencySum, c.created)
		if err != nil {
			m = prometheus.NewInvalidMetric(latencyDesc, err)
		}
		ch <- m
	}
}

// Listen binds addr (host:port) for the endpoint. It is called before the
// run starts, so that an address that cannot be used stops sbgo before
// any work; the error names the address and the problem in one line.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// The OpError repeats the operation and the address.
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err
		}
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	return ln, nil
}

// Server serves /metrics on a listener until Close.
type Server struct {
	srv  *http.Server
	done chan struct{}
}

// Serve starts serving src's metrics on ln, at /metrics.
func Serve(ln net.Listener, src Source) *Server {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &Server{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln) //nolint:errcheck // always ErrServerClosed, after Close
	}()
	return s
}

// Close closes the listener and every connection, and returns once the
// server has stopped: the port is free when it returns.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}
