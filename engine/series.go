package engine

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The layout of the series' latency histograms: 1 µs to one hour, three
// significant digits. It is the results document's layout, so that its
// histograms can be stored and merged as they are.
const (
	seriesLowestNs  = 1_000
	seriesHighestNs = 3_600_000_000_000
	seriesSigFigs   = 3
)

// newSeriesHistogram returns an empty histogram of the series' layout.
func newSeriesHistogram() *hdr.Histogram {
	return hdr.New(seriesLowestNs, seriesHighestNs, seriesSigFigs)
}

// recordClamped adds ns, clamped into the layout's range so that no value
// is lost.
func recordClamped(h *hdr.Histogram, ns int64) {
	h.RecordValue(min(max(ns, seriesLowestNs), seriesHighestNs)) //nolint:errcheck // clamped into range
}

// latencyRing carries one worker's latencies to the collector: a
// single-producer, single-consumer ring, so the worker takes no lock and
// shares no written cache line with another worker. An HDR histogram per
// worker would cost about 200 KB each, too much for thousands of workers.
type latencyRing struct {
	buf  []int64
	mask uint64
	head atomic.Uint64 // next slot the collector reads; written by it only
	_    [56]byte
	tail atomic.Uint64 // next slot the worker writes; written by it only
	// closed is set when the collector has stopped: a full ring then
	// drops values instead of waiting for ever.
	closed *atomic.Bool
	// wake asks the collector to drain now; the worker sends on it (never
	// blocking) when its ring becomes half full, so a fast worker is not
	// held to capacity/collectEvery events per second. That is once per
	// half a ring of events, not per event.
	wake chan<- struct{}
	half uint64
	_    [48]byte
}

// ringCapacity is each worker's ring size: about 32 MB of rings in all,
// and between 256 and 16384 values each (a power of two).
func ringCapacity(threads int) int {
	n := (1 << 22) / max(threads, 1)
	c := 256
	for c < n && c < 16384 {
		c <<= 1
	}
	return c
}

func newLatencyRing(capacity int, closed *atomic.Bool, wake chan<- struct{}) *latencyRing {
	return &latencyRing{buf: make([]int64, capacity), mask: uint64(capacity - 1), closed: closed,
		wake: wake, half: uint64(capacity / 2)}
}

// push adds one latency. A full ring makes the worker yield until the
// collector has drained it: no value is dropped while the run is
// measured.
func (r *latencyRing) push(ns int64) {
	t := r.tail.Load()
	used := t - r.head.Load()
	for used >= uint64(len(r.buf)) {
		if r.closed.Load() {
			return
		}
		r.signal()
		runtime.Gosched()
		used = t - r.head.Load()
	}
	r.buf[t&r.mask] = ns
	r.tail.Store(t + 1)
	if used == r.half {
		r.signal()
	}
}

// signal wakes the collector unless a wake-up is pending already.
func (r *latencyRing) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// drain hands every value pushed so far to f, oldest first.
func (r *latencyRing) drain(f func(int64)) {
	h, t := r.head.Load(), r.tail.Load()
	for ; h < t; h++ {
		f(r.buf[h&r.mask])
	}
	r.head.Store(t)
}

// SeriesPoint is one second (or --report-interval) of a run: the counts
// of its events and queries and the histogram of its own latencies.
type SeriesPoint struct {
	Time     float64 // end of the period, seconds from the start
	Duration float64 // seconds

	Events, Reads, Writes, Other, Errors, Reconnects uint64

	ThreadsRunning int
	Latency        *hdr.Histogram
}

// ErrorCount is how often one error code occurred, with its first
// message.
type ErrorCount struct {
	Code    string
	Count   uint64
	Message string
}

// RunSummary is what a run with Config.Series leaves for the results
// file: plain data, so that the engine does not know the file's format.
type RunSummary struct {
	Start, End time.Time
	// Complete is false when the run failed or was interrupted; Reason
	// is then the reason the incomplete report's warning gives.
	Complete bool
	Reason   string
	// Interrupted is true when SIGINT or SIGTERM stopped the run: a
	// sweep then ends whatever --sweep-continue says.
	Interrupted bool
	// Abandoned is the number of events the run's deadline gave up.
	Abandoned int64
	Threads   int
	// Totals are the numbers of the final text report (nil when the run
	// never started).
	Totals    *Stats
	Latency   *hdr.Histogram // every measured event's latency
	Seconds   []SeriesPoint
	Intervals []SeriesPoint // one per --report-interval when it is set
	Errors    []ErrorCount  // by first occurrence
}

// track is one series of points closed every `every` (a second, or the
// report interval).
type track struct {
	every  time.Duration
	next   time.Duration // when the current point ends, from the start
	prev   []snapshot
	prevAt time.Duration
	h      *hdr.Histogram
	points []SeriesPoint
}

// collector drains the workers' rings into the histograms and closes the
// points of the series. It runs in a goroutine of its own from the end of
// the warm-up to the end of the run.
type collector struct {
	r      *Run
	rings  []*latencyRing
	closed atomic.Bool
	stopCh chan struct{}
	wake   chan struct{}
	wg     sync.WaitGroup

	// mu guards what follows against Run.Live, which reads it while the
	// collector goroutine writes it. Only those two take it, never a
	// worker: workers reach the collector through their rings only.
	mu    sync.Mutex
	start time.Time
	base  []snapshot // the counters when the series began
	// errBase is the errors by code the warm-up left, which Run.Live
	// leaves out as the counters' base does.
	errBase []ErrorCount
	total   *hdr.Histogram
	sumNs   int64 // of every latency drained into the histograms
	tracks  []*track
}

// collectEvery is how often the collector drains the rings: often enough
// that rings of a few thousand values rarely fill.
const collectEvery = 50 * time.Millisecond

func newCollector(r *Run) *collector {
	c := &collector{r: r, total: newSeriesHistogram(), stopCh: make(chan struct{}), wake: make(chan struct{}, 1)}
	capacity := ringCapacity(r.cfg.Threads)
	c.rings = make([]*latencyRing, r.cfg.Threads)
	for i := range c.rings {
		c.rings[i] = newLatencyRing(capacity, &c.closed, c.wake)
	}
	return c
}

// begin starts collecting from the measured run's start and baseline.
func (c *collector) begin() {
	r := c.r
	r.startMu.Lock()
	start, base := r.start, r.baseline
	r.startMu.Unlock()
	everies := []time.Duration{time.Second}
	if r.cfg.ReportInterval > 0 {
		everies = append(everies, r.cfg.ReportInterval)
	}
	c.mu.Lock()
	c.start, c.base = start, base
	for _, every := range everies {
		c.tracks = append(c.tracks, &track{every: every, next: every, prev: base, h: newSeriesHistogram()})
	}
	if r.cfg.Warmup > 0 {
		// What the warm-up left. Without a warm-up the rings hold only
		// measured events, which the counters already count.
		c.drain(func(int64) {})
		c.errBase = mergeErrors(r.errs)
	}
	c.mu.Unlock()
	c.wg.Add(1)
	go c.loop()
}

func (c *collector) loop() {
	defer c.wg.Done()
	tick := time.NewTicker(collectEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.stopCh:
			return
		case <-tick.C:
		case <-c.wake:
		}
		c.collect()
	}
}

// collect drains the rings and closes the points that are due.
func (c *collector) collect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drainAll()
	at := time.Since(c.start)
	for _, t := range c.tracks {
		for at >= t.next {
			c.close(t, t.next)
			t.next += t.every
		}
	}
}

// end stops the loop and closes the final, partial points, so that the
// points add up to the totals.
func (c *collector) end() {
	close(c.stopCh)
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drainAll()
	at := time.Since(c.start)
	for _, t := range c.tracks {
		if at > t.prevAt || len(t.points) == 0 {
			c.close(t, at)
		}
	}
	c.closed.Store(true)
}

// recordCut records the latency of an event the run's deadline
// abandoned (Run.cut) into the open points, as drainAll records a
// finished one's, but not in the sum the average comes from.
func (c *collector) recordCut(ns int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tracks {
		recordClamped(t.h, ns)
	}
}

func (c *collector) drain(f func(int64)) {
	for _, ring := range c.rings {
		ring.drain(f)
	}
}

// drainAll records the rings' values into the open points' histograms;
// the run's histogram gets each closed second's (see close), which costs
// less than a third record per value.
func (c *collector) drainAll() {
	tap := c.r.cfg.LatencyTap
	c.drain(func(ns int64) {
		c.sumNs += ns
		if tap != nil {
			tap(ns)
		}
		for _, t := range c.tracks {
			recordClamped(t.h, ns)
		}
	})
}

// close ends t's current point at `at` (from the start).
func (c *collector) close(t *track, at time.Duration) {
	cur := c.r.snapshots()
	var s Stats
	sumCounters(&s, cur, t.prev)
	t.points = append(t.points, SeriesPoint{
		Time:     at.Seconds(),
		Duration: (at - t.prevAt).Seconds(),
		Events:   s.Events, Reads: s.Reads, Writes: s.Writes, Other: s.Other,
		Errors: s.Errors, Reconnects: s.Reconnects,
		ThreadsRunning: int(c.r.running.Load()),
		Latency:        t.h,
	})
	if t == c.tracks[0] {
		c.total.Merge(t.h)
	}
	t.prev, t.prevAt, t.h = cur, at, newSeriesHistogram()
}

// errorCounts is one worker's errors by code. Only that worker adds to
// it; readers (Run.Live while the run goes on, Run.Summary after it) see
// the entries published so far, so neither side takes a lock. The error
// path alone pays for it: an atomic add per error, an allocation per new
// code.
type errorCounts struct {
	byCode map[string]*errorEntry // the worker's own index
	// list is every entry, by first occurrence. The worker stores a new
	// slice header per new code; the elements a reader's header covers
	// are never written again, as appends go past its length.
	list atomic.Pointer[[]*errorEntry]
}

// errorEntry is one code's count and first message.
type errorEntry struct {
	code, msg string
	count     atomic.Uint64
}

// add counts one error.
func (ec *errorCounts) add(code, msg string) {
	if e, ok := ec.byCode[code]; ok {
		e.count.Add(1)
		return
	}
	if ec.byCode == nil {
		ec.byCode = make(map[string]*errorEntry)
	}
	e := &errorEntry{code: code, msg: msg}
	e.count.Store(1)
	ec.byCode[code] = e
	list := append(ec.entries(), e)
	ec.list.Store(&list)
}

// entries is what the worker has published so far.
func (ec *errorCounts) entries() []*errorEntry {
	if p := ec.list.Load(); p != nil {
		return *p
	}
	return nil
}

// mergeErrors sums the workers' error counts by code, in order of first
// appearance (by worker, then within each worker).
func mergeErrors(all []*errorCounts) []ErrorCount {
	var sum []ErrorCount
	index := make(map[string]int)
	for _, ec := range all {
		for _, e := range ec.entries() {
			n := e.count.Load()
			if i, ok := index[e.code]; ok {
				sum[i].Count += n
				continue
			}
			index[e.code] = len(sum)
			sum = append(sum, ErrorCount{Code: e.code, Count: n, Message: e.msg})
		}
	}
	return sum
}

// Summary is the run's results, for a run made with Config.Series, once
// Execute has returned: also after a failure, an interrupt or a forced
// shutdown (then Complete is false). Errors are counted only when every
// worker returned.
func (r *Run) Summary() RunSummary {
	s := RunSummary{Threads: r.cfg.Threads, Totals: r.final, End: r.finalAt}
	if r.whole != nil {
		s.Totals = r.whole
	}
	r.startMu.Lock()
	s.Start = r.start
	r.startMu.Unlock()
	s.Interrupted = r.interrupted.Load()
	cut := r.cutEvents.Load()
	s.Abandoned = cut
	s.Complete = r.final != nil && r.joined && !r.failed.Load() && !s.Interrupted && cut == 0
	switch {
	case s.Complete:
	case r.final == nil:
		s.Reason = "the run did not start"
		if reason, _ := r.reason.Load().(string); reason != "" {
			s.Reason = reason
		}
	case !r.failed.Load() && !s.Interrupted && cut > 0:
		s.Reason = fmt.Sprintf("%d events in flight abandoned at the run's deadline", cut)
	default:
		s.Reason = r.earlyStopReason()
	}
	if r.coll == nil {
		return s
	}
	s.Latency = r.coll.total
	if len(r.coll.tracks) > 0 {
		s.Seconds = r.coll.tracks[0].points
	}
	if len(r.coll.tracks) > 1 {
		s.Intervals = r.coll.tracks[1].points
	}
	if r.joined {
		s.Errors = mergeErrors(r.errs)
	}
	return s
}
