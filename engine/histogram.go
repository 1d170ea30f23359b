package engine

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
)

// scale is the bucket layout of sysbench's histograms (spec §7): size
// buckets on a logarithmic scale between min and max. Bucket i holds the
// values whose logarithm rounds to it, so its representative value is off
// by at most half a bucket: a factor exp(0.5/mult), under 1% for the
// latency histogram.
type scale struct {
	size   int
	deduct float64 // ln(min)
	mult   float64 // (size-1) / (ln(max) - ln(min)): buckets per unit of ln
}

func newScale(size int, min, max float64) scale {
	deduct := math.Log(min)
	return scale{
		size:   size,
		deduct: deduct,
		mult:   float64(size-1) / (math.Log(max) - deduct),
	}
}

// bucket returns the bucket of v: floor((ln v - ln min)*mult + 0.5),
// clamped to the range. v <= 0 (and NaN) land in bucket 0, as in sysbench.
func (s *scale) bucket(v float64) int {
	x := math.Floor((math.Log(v)-s.deduct)*s.mult + 0.5)
	if !(x >= 0) { // also catches NaN from ln of a negative value
		return 0
	}
	if x >= float64(s.size) {
		return s.size - 1
	}
	return int(x)
}

// value is the representative value of bucket i: exp(i/mult + ln min).
func (s *scale) value(i int) float64 {
	return math.Exp(float64(i)/s.mult + s.deduct)
}

// Histogram counts values in sysbench's log-scale buckets. It is the plain,
// single-goroutine form: the value of sysbench.histogram.new in Lua, and the
// merged snapshots of the run's LatencyHistogram.
type Histogram struct {
	scale
	counts []uint64
	total  uint64
}

// NewHistogram returns an empty histogram of size buckets between min and
// max (both > 0, min < max). size must be at least 1; callers that take it
// from a script check it first.
func NewHistogram(size int, min, max float64) *Histogram {
	if size < 1 {
		panic("engine: histogram size must be at least 1, got " + strconv.Itoa(size))
	}
	return &Histogram{scale: newScale(size, min, max), counts: make([]uint64, size)}
}

// Update adds one value. Values outside the range count in the first or
// last bucket.
func (h *Histogram) Update(v float64) {
	h.counts[h.bucket(v)]++
	h.total++
}

// Count returns how many values the histogram holds.
func (h *Histogram) Count() uint64 { return h.total }

// Reset empties the histogram.
func (h *Histogram) Reset() {
	clear(h.counts)
	h.total = 0
}

// Merge adds other's counts to h. Both must have the same layout.
func (h *Histogram) Merge(other *Histogram) {
	if h.scale != other.scale {
		panic("engine: merging histograms of different layouts")
	}
	for i, c := range other.counts {
		h.counts[i] += c
	}
	h.total += other.total
}

// Clone returns an independent copy of h.
func (h *Histogram) Clone() *Histogram {
	c := *h
	c.counts = append([]uint64(nil), h.counts...)
	return &c
}

// Percentile returns the value of the bucket holding the p-th percentile,
// by sysbench's rule: with N values the target rank is floor(N*p/100+0.5),
// and the answer is the first bucket whose running total reaches it. An
// empty histogram (or p = 0) answers with bucket 0's value.
func (h *Histogram) Percentile(p float64) float64 {
	target := uint64(math.Floor(float64(h.total)*p/100 + 0.5))
	var running uint64
	i := 0
	for ; i < h.size; i++ {
		running += h.counts[i]
		if running >= target {
			break
		}
	}
	// With p > 100 no bucket reaches the target and sysbench reports the
	// value one past the last bucket; i == size here gives the same.
	return h.value(i)
}

// histogramHeader heads the printed distribution.
const histogramHeader = "       value  ------------- distribution ------------- count\n"

// histogramBar is the longest bar; a row shows a prefix of it.
const histogramBar = "****************************************"

// Print writes the distribution in sysbench's format (spec §6.5): the
// header, then for each non-empty bucket in ascending order its value, a bar
// of round(count*40/maxcount) stars padded to 40 columns, and the count.
// An empty histogram prints nothing at all. The whole block is written at
// once so it is not interleaved with other output.
func (h *Histogram) Print(w io.Writer) error {
	var maxCount uint64
	for _, c := range h.counts {
		maxCount = max(maxCount, c)
	}
	if maxCount == 0 {
		return nil
	}
	b := []byte(histogramHeader)
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		stars := int(math.Floor(float64(c)*40/float64(maxCount) + 0.5))
		b = fmt.Appendf(b, "%12.3f |%-40s %d\n", h.value(i), histogramBar[:stars], c)
	}
	_, err := w.Write(b)
	return err
}

// The run's latency histogram: 1024 buckets from 0.001 ms to 100 s.
const (
	latencyBuckets = 1024
	latencyMinMs   = 1e-3
	latencyMaxMs   = 1e5
)

var latencyScale = newScale(latencyBuckets, latencyMinMs, latencyMaxMs)

// LatencyShard is one worker's part of the latency histogram. Only its
// worker writes it.
//
// Its counters only ever grow: the reporter never resets them, it
// remembers what it has already read and takes the difference (see
// LatencyHistogram). So the worker's update is an atomic add on memory no
// other goroutine writes — uncontended, no lock, no allocation — and no
// update can be lost between a read and a reset, because there is no reset.
type LatencyShard struct {
	counts [latencyBuckets]atomic.Uint64
	_      [64]byte // keeps the next allocation off the last cache line
}

// Record adds one event latency, in nanoseconds. It is the per-event path.
func (s *LatencyShard) Record(ns int64) {
	s.counts[latencyNs.bucket(ns)].Add(1)
}

// nsBuckets maps a latency in integer nanoseconds to its latency-histogram
// bucket without a logarithm: a table indexed by the value's bit length
// and next six bits gives a bucket at most one below the answer (64
// sub-ranges per power of two are narrower than a bucket), and one
// comparison with the next bucket's lower bound settles it. The bounds are
// found with the logarithm itself at start-up, so the result is exactly
// latencyScale.bucket(ns/1e6) for every int64.
type nsBuckets struct {
	lower  [latencyBuckets]int64 // smallest ns of each bucket (lower[0] unused)
	coarse [64 << 6]uint16       // bucket of the smallest ns of each (length, top bits)
}

var latencyNs = newNsBuckets()

func newNsBuckets() *nsBuckets {
	exact := func(ns int64) int { return latencyScale.bucket(float64(ns) / 1e6) }
	t := &nsBuckets{}
	for i := 1; i < latencyBuckets; i++ {
		// The smallest ns whose bucket is >= i: buckets grow with ns.
		lo, hi := int64(0), int64(1)<<62
		for lo < hi {
			mid := lo + (hi-lo)/2
			if exact(mid) >= i {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		t.lower[i] = lo
	}
	for n := 7; n < 64; n++ {
		for top := 0; top < 64; top++ {
			t.coarse[n<<6|top] = uint16(exact(int64(64|top) << (n - 7)))
		}
	}
	return t
}

func (t *nsBuckets) bucket(ns int64) int {
	if ns < t.lower[1] {
		return 0
	}
	if ns >= t.lower[latencyBuckets-1] {
		return latencyBuckets - 1
	}
	n := bits.Len64(uint64(ns)) // >= 7: lower[1] is about 1000 ns
	b := int(t.coarse[n<<6|int(uint64(ns)>>(n-7)&63)])
	for ns >= t.lower[b+1] {
		b++
	}
	return b
}

// LatencyHistogram is the run's latency histogram: one shard per worker,
// merged by whoever reports. It offers sysbench's three views (spec §7):
//
//   - Intermediate: the values recorded since the previous intermediate
//     read, which are then folded into the cumulative counts;
//   - Cumulative(false): everything since the start or the last checkpoint;
//   - Cumulative(true): the same, and the cumulative counts start again
//     from zero (checkpoints and the end-of-run report).
//
// The reporter and the checkpoint goroutine may call these concurrently
// with each other and with the workers' Record; a mutex orders the
// readers, workers never take it.
type LatencyHistogram struct {
	shards []*LatencyShard

	mu         sync.Mutex
	seen       [][latencyBuckets]uint64 // per shard: counts already harvested
	interval   *Histogram               // scratch for the intermediate view
	cumulative *Histogram
}

// NewLatencyHistogram returns a latency histogram with one shard per
// worker thread.
func NewLatencyHistogram(threads int) *LatencyHistogram {
	h := &LatencyHistogram{
		shards:     make([]*LatencyShard, threads),
		seen:       make([][latencyBuckets]uint64, threads),
		interval:   newLatencyHistogram(),
		cumulative: newLatencyHistogram(),
	}
	for i := range h.shards {
		// One allocation per shard keeps each worker's counters on cache
		// lines of their own.
		h.shards[i] = new(LatencyShard)
	}
	return h
}

// newLatencyHistogram returns an empty plain histogram with the latency
// layout.
func newLatencyHistogram() *Histogram {
	return &Histogram{scale: latencyScale, counts: make([]uint64, latencyBuckets)}
}

// Shard returns worker i's shard (0 <= i < threads).
func (h *LatencyHistogram) Shard(i int) *LatencyShard { return h.shards[i] }

// harvest adds to dst what the workers recorded since the previous harvest.
// The caller holds h.mu.
func (h *LatencyHistogram) harvest(dst *Histogram) {
	for k, shard := range h.shards {
		seen := &h.seen[k]
		for i := range shard.counts {
			now := shard.counts[i].Load()
			if d := now - seen[i]; d != 0 {
				seen[i] = now
				dst.counts[i] += d
				dst.total += d
			}
		}
	}
}

// Intermediate returns the p-th percentile, in milliseconds, of the
// latencies recorded since the previous call, and folds them into the
// cumulative view. With no new values it returns the lowest bucket, 0.001.
func (h *LatencyHistogram) Intermediate(p float64) float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.interval.Reset()
	h.harvest(h.interval)
	h.cumulative.Merge(h.interval)
	return h.interval.Percentile(p)
}

// Cumulative returns a copy of the latencies (in milliseconds) recorded
// since the start or the last reset, and resets the cumulative view if
// reset is set. Take its Percentile for a report and Print it for
// --histogram.
func (h *LatencyHistogram) Cumulative(reset bool) *Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.harvest(h.cumulative)
	snap := h.cumulative.Clone()
	if reset {
		h.cumulative.Reset()
	}
	return snap
}
