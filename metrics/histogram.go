package metrics

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Buckets are the upper bounds (seconds) of sbgo_latency_seconds' classic
// buckets: from a local point select to a stalled transaction.
var Buckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
}

// NativeSchema is the native histogram's resolution: each bucket is
// 2^(2^-3), about 9 %, wider than the one below it, as client_golang's
// default bucket factor of 1.1 gives.
const NativeSchema = 3

// hdrBin is one non-empty bin of an HDR histogram: the lowest value it
// stands for, in seconds, and its count.
type hdrBin struct {
	v float64
	n uint64
}

// hdrBins lists h's non-empty bins in ascending order. A bin counts at
// its lowest value: the run's histogram keeps three significant digits,
// so a latency at most 0.1 % above a bucket's bound may be counted in
// that bucket, and one on the bound always is.
func hdrBins(h *hdr.Histogram) []hdrBin {
	var bins []hdrBin
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			bins = append(bins, hdrBin{v: float64(b.From) / 1e9, n: uint64(b.Count)})
		}
	}
	return bins
}

// classicBuckets are the cumulative counts at each of bounds, which
// ascend.
func classicBuckets(bins []hdrBin, bounds []float64) map[float64]uint64 {
	out := make(map[float64]uint64, len(bounds))
	var cum uint64
	i := 0
	for _, b := range bins {
		for ; i < len(bounds) && b.v > bounds[i]; i++ {
			out[bounds[i]] = cum
		}
		cum += b.n
	}
	for ; i < len(bounds); i++ {
		out[bounds[i]] = cum
	}
	return out
}

// nativeBuckets are the counts by native bucket index of schema: bucket
// i holds the values in (2^((i-1)/2^schema), 2^(i/2^schema)].
func nativeBuckets(bins []hdrBin, schema int32) map[int]int64 {
	out := make(map[int]int64)
	scale := math.Ldexp(1, int(schema))
	for _, b := range bins {
		out[int(math.Ceil(math.Log2(b.v)*scale))] += int64(b.n)
	}
	return out
}

// latencyMetric is one histogram with classic buckets and native ones,
// as a client_golang Histogram with both kinds configured exposes it:
// scrapers that want native histograms (protobuf) get both, text
// scrapers the classic buckets.
type latencyMetric struct {
	classic, native prometheus.Metric
}

// newLatencyMetric builds the histogram metric of h (nanoseconds), whose
// latencies add up to sum seconds.
func newLatencyMetric(desc *prometheus.Desc, h *hdr.Histogram, sum float64, created time.Time) (prometheus.Metric, error) {
	bins := hdrBins(h)
	count := uint64(h.TotalCount())
	classic, err := prometheus.NewConstHistogramWithCreatedTimestamp(desc, count, sum, classicBuckets(bins, Buckets), created)
	if err != nil {
		return nil, err
	}
	native, err := prometheus.NewConstNativeHistogram(desc, count, sum, nativeBuckets(bins, NativeSchema), nil, 0, NativeSchema, 0, created)
	if err != nil {
		return nil, err
	}
	return &latencyMetric{classic: classic, native: native}, nil
}

func (m *latencyMetric) Desc() *prometheus.Desc { return m.classic.Desc() }

// Write writes the classic histogram, then adds the native one's fields.
func (m *latencyMetric) Write(out *dto.Metric) error {
	if err := m.classic.Write(out); err != nil {
		return err
	}
	var n dto.Metric
	if err := m.native.Write(&n); err != nil {
		return err
	}
	h, nh := out.Histogram, n.Histogram
	h.Schema, h.ZeroThreshold, h.ZeroCount = nh.Schema, nh.ZeroThreshold, nh.ZeroCount
	h.PositiveSpan, h.PositiveDelta = nh.PositiveSpan, nh.PositiveDelta
	return nil
}
