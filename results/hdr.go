package results

import (
	"fmt"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in nanoseconds from 1 µs to one hour with three
// significant digits: every value is kept within 0.1 % (sysbench's own
// buckets are about 1.8 % wide).
const (
	lowestNs  = 1_000
	highestNs = 3_600_000_000_000
	sigFigs   = 3
)

// ReportedPercentiles are the percentiles a Latency lists, as its keys.
var ReportedPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// NewHistogram returns an empty latency histogram of the document's layout.
func NewHistogram() *hdr.Histogram { return hdr.New(lowestNs, highestNs, sigFigs) }

// Record adds one latency in nanoseconds, clamped into the trackable range
// so that no value is ever lost.
func Record(h *hdr.Histogram, ns int64) {
	h.RecordValue(min(max(ns, lowestNs), highestNs)) //nolint:errcheck // clamped into range
}

// EncodeHistogram is h in HDR's V2 compressed, base64 encoding.
func EncodeHistogram(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding a latency histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram reads a histogram EncodeHistogram wrote.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding a latency histogram: %w", err)
	}
	return h, nil
}

// Summarize computes a Latency from h, histogram included.
func Summarize(h *hdr.Histogram) (Latency, error) {
	enc, err := EncodeHistogram(h)
	if err != nil {
		return Latency{}, err
	}
	l := Latency{Count: h.TotalCount(), Percentiles: map[string]float64{}, Histogram: enc}
	if l.Count == 0 {
		return l, nil
	}
	l.Min, l.Mean, l.Max = ms(float64(h.Min())), ms(h.Mean()), ms(float64(h.Max()))
	l.Stddev = ms(h.StdDev())
	for _, p := range ReportedPercentiles {
		l.Percentiles[PercentileKey(p)] = ms(float64(h.ValueAtPercentile(p)))
	}
	return l, nil
}

// PercentileKey is the key of percentile p in Latency.Percentiles: "95",
// "99.9".
func PercentileKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// Merge returns the histogram of the union of the latencies the encoded
// histograms hold: exact, since all share one layout.
func Merge(encoded ...string) (*hdr.Histogram, error) {
	sum := NewHistogram()
	for _, e := range encoded {
		h, err := DecodeHistogram(e)
		if err != nil {
			return nil, err
		}
		if dropped := sum.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("merging latency histograms: %d values out of range", dropped)
		}
	}
	return sum, nil
}

func ms(ns float64) float64 { return ns / 1e6 }
