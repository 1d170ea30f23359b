package results

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// PerClientOptions are the options whose values may differ between the
// parts of one merged run: each client has its own id, file and address.
// Every other option must be the same in every part.
var PerClientOptions = []string{"client-id", "results-file", "results-label", "prometheus"}

// MinOverlap is the share of the merged window below which the parts'
// windows are said not to overlap enough (Merged.Warnings).
const MinOverlap = 0.90

// Source is one part to merge: its document and where it was read from.
type Source struct {
	Name string
	Doc  *Document
}

// Merged is the merge of several clients' documents.
type Merged struct {
	Doc *Document
	// Overlap is, per step, how much the parts' windows overlap (see
	// Overlap).
	Overlap []float64
	// Warnings are one line each: windows that overlap too little.
	Warnings []string
}

// MergeDocuments merges the documents of clients that ran the same
// workload with the same options into one document of the same schema:
// counts summed, latency histograms added (so percentiles are exact for
// the union of the events), per-second points aligned by wall-clock time,
// threads summed, and the parts listed. Parts of different scripts or
// options are refused, with one line that names the first difference.
func MergeDocuments(parts []Source) (*Merged, error) {
	if len(parts) == 0 {
		return nil, errors.New("no results files to merge")
	}
	if err := checkSameRun(parts); err != nil {
		return nil, err
	}
	m := &Merged{Doc: mergedHeader(parts)}
	steps := len(parts[0].Doc.Steps)
	for _, p := range parts[1:] {
		steps = min(steps, len(p.Doc.Steps))
	}
	interval := intervalOf(parts[0].Doc)
	for i := range steps {
		col := make([]*Step, len(parts))
		for j, p := range parts {
			col[j] = &p.Doc.Steps[i]
		}
		s, err := mergeStep(col, interval)
		if err != nil {
			return nil, err
		}
		ov := Overlap(col)
		m.Overlap = append(m.Overlap, ov)
		if ov < MinOverlap {
			m.Warnings = append(m.Warnings, fmt.Sprintf("the parts' windows of step %d (%d threads) overlap by %.1f %% only (less than %.0f %%): they did not measure the same time",
				i+1, s.Threads, ov*100, MinOverlap*100))
		}
		m.Doc.Steps = append(m.Doc.Steps, s)
	}
	if m.Doc.Complete && steps < maxSteps(parts) {
		m.Doc.Complete, m.Doc.Reason = false, "the parts ran different numbers of steps"
	}
	return m, nil
}

// checkSameRun refuses parts of different scripts or options.
func checkSameRun(parts []Source) error {
	first := parts[0]
	for _, p := range parts[1:] {
		a, b := first.Doc.Script, p.Doc.Script
		if a.Name != b.Name || a.SHA256 != b.SHA256 {
			return fmt.Errorf("%s and %s ran different scripts (%s, %s)", first.Name, p.Name, describeScript(a), describeScript(b))
		}
		if name, ok := differentOption(first.Doc.Options, p.Doc.Options); ok {
			return fmt.Errorf("%s and %s ran with different options: --%s is %q in one and %q in the other",
				first.Name, p.Name, name, first.Doc.Options[name], p.Doc.Options[name])
		}
	}
	return nil
}

func describeScript(s Script) string {
	if s.SHA256 == "" {
		return s.Name
	}
	return s.Name + " " + s.SHA256[:min(12, len(s.SHA256))]
}

// differentOption is the first option, by name, whose values differ,
// leaving out PerClientOptions.
func differentOption(a, b map[string]string) (string, bool) {
	names := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if slices.Contains(PerClientOptions, k) {
			continue
		}
		va, oka := a[k]
		vb, okb := b[k]
		if va != vb || oka != okb {
			return k, true
		}
	}
	return "", false
}

func maxSteps(parts []Source) int {
	n := 0
	for _, p := range parts {
		n = max(n, len(p.Doc.Steps))
	}
	return n
}

// intervalOf is the length of the document's intervals (--report-interval).
func intervalOf(d *Document) float64 {
	n, err := strconv.Atoi(d.Options["report-interval"])
	if err != nil || n <= 0 {
		return 0
	}
	return float64(n)
}

// mergedHeader is the merged document without its steps: the first
// part's script, options and command line less what is the client's own,
// the union of the windows, the parts' CPUs added up as one host.
func mergedHeader(parts []Source) *Document {
	first := parts[0].Doc
	d := &Document{
		SchemaVersion: SchemaVersion, Tool: first.Tool, Label: commonLabel(parts),
		Complete: true, CommandLine: withoutPerClient(first.CommandLine),
		Script: first.Script, Options: map[string]string{},
		Start: first.Start, End: first.End, Server: first.Server,
		Host: Host{Name: strconv.Itoa(len(parts)) + " clients", OS: first.Host.OS, Arch: first.Host.Arch},
	}
	for k, v := range first.Options {
		if !slices.Contains(PerClientOptions, k) {
			d.Options[k] = v
		}
	}
	for _, p := range parts {
		doc := p.Doc
		if doc.Start.Before(d.Start) {
			d.Start = doc.Start
		}
		if doc.End.After(d.End) {
			d.End = doc.End
		}
		if doc.Host.OS != d.Host.OS {
			d.Host.OS = "mixed"
		}
		if doc.Host.Arch != d.Host.Arch {
			d.Host.Arch = "mixed"
		}
		d.Host.CPUs += doc.Host.CPUs
		if d.Complete && !doc.Complete {
			d.Complete, d.Reason = false, p.Name+": "+doc.Reason
		}
		d.Parts = append(d.Parts, partOf(p))
	}
	return d
}

// commonLabel is the parts' label when they all have the same one.
func commonLabel(parts []Source) string {
	for _, p := range parts[1:] {
		if p.Doc.Label != parts[0].Doc.Label {
			return ""
		}
	}
	return parts[0].Doc.Label
}

// withoutPerClient drops the per-client options from a command line.
func withoutPerClient(args []string) []string {
	var out []string
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && slices.Contains(PerClientOptions, strings.ReplaceAll(name, "_", "-")) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func partOf(p Source) Part {
	d := p.Doc
	part := Part{Source: p.Name, ClientID: d.ClientID, Host: d.Host, Complete: d.Complete, Reason: d.Reason, Start: d.Start, End: d.End, Threads: []int{}}
	for _, s := range d.Steps {
		part.Threads = append(part.Threads, s.Threads)
		part.Transactions += s.Totals.Transactions
	}
	return part
}

// Overlap is how much the steps' windows overlap: the time all of them
// ran, as a share of the time any of them ran (1 for windows that
// coincide, 0 for windows that do not meet).
func Overlap(steps []*Step) float64 {
	first, last := steps[0].Start, steps[0].End
	common, commonEnd := first, last
	for _, s := range steps[1:] {
		first, last = earlier(first, s.Start), later(last, s.End)
		common, commonEnd = later(common, s.Start), earlier(commonEnd, s.End)
	}
	union := last.Sub(first)
	if union <= 0 {
		return 1
	}
	return max(0, commonEnd.Sub(common).Seconds()/union.Seconds())
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// mergeStep merges the parts' steps of one run phase.
func mergeStep(col []*Step, interval float64) (Step, error) {
	s := Step{Complete: true, Start: col[0].Start, End: col[0].End}
	var encoded []string
	var meanTime float64
	for _, p := range col {
		s.Threads += p.Threads
		s.Start, s.End = earlier(s.Start, p.Start), later(s.End, p.End)
		if s.Complete && !p.Complete {
			s.Complete, s.Reason = false, p.Reason
		}
		addTotals(&s.Totals, p.Totals)
		meanTime += p.Totals.TotalTime / float64(len(col))
		encoded = append(encoded, p.Latency.Histogram)
	}
	// The parts measured the same window: tps is their summed events over
	// the time each measured, the sum of their rates when the windows
	// coincide.
	s.Totals.TotalTime = meanTime
	s.Totals.EventsStddev, s.Totals.ExecTimeStddev = pooledStddev(col)
	s.Totals.EventsAvg = float64(s.Totals.Events) / float64(s.Threads)
	s.Totals.ExecTimeAvg = weightedMean(col, func(t Totals) float64 { return t.ExecTimeAvg })
	h, err := Merge(encoded...)
	if err != nil {
		return s, err
	}
	if s.Latency, err = Summarize(h); err != nil {
		return s, err
	}
	s.Errors = mergeErrors(col)
	if s.Seconds, err = mergePoints(col, s.Start, 1, func(st *Step) []Point { return st.Seconds }); err != nil {
		return s, err
	}
	if interval > 0 {
		s.Intervals, err = mergePoints(col, s.Start, interval, func(st *Step) []Point { return st.Intervals })
	}
	return s, err
}

func addTotals(sum *Totals, t Totals) {
	sum.Transactions += t.Transactions
	sum.Events += t.Events
	sum.Reads += t.Reads
	sum.Writes += t.Writes
	sum.Other += t.Other
	sum.IgnoredErrors += t.IgnoredErrors
	sum.Reconnects += t.Reconnects
}

// weightedMean is the mean of a per-thread figure over all the parts'
// threads.
func weightedMean(col []*Step, f func(Totals) float64) float64 {
	var sum float64
	var n int
	for _, p := range col {
		sum += f(p.Totals) * float64(p.Threads)
		n += p.Threads
	}
	return sum / float64(n)
}

// pooledStddev is the standard deviation of the events and the execution
// time per thread over all the parts' threads, from each part's mean and
// deviation: exactly what one report of all the threads would say.
func pooledStddev(col []*Step) (events, execTime float64) {
	pool := func(mean, dev func(Totals) float64) float64 {
		m := weightedMean(col, mean)
		var sum float64
		var n int
		for _, p := range col {
			d := mean(p.Totals) - m
			sum += float64(p.Threads) * (dev(p.Totals)*dev(p.Totals) + d*d)
			n += p.Threads
		}
		return math.Sqrt(sum / float64(n))
	}
	events = pool(func(t Totals) float64 { return t.EventsAvg }, func(t Totals) float64 { return t.EventsStddev })
	execTime = pool(func(t Totals) float64 { return t.ExecTimeAvg }, func(t Totals) float64 { return t.ExecTimeStddev })
	return events, execTime
}

// mergeErrors adds up the errors by code, in the order codes first come.
func mergeErrors(col []*Step) []ErrorCount {
	var out []ErrorCount
	for _, p := range col {
		for _, e := range p.Errors {
			i := slices.IndexFunc(out, func(o ErrorCount) bool { return o.Code == e.Code })
			if i < 0 {
				out = append(out, e)
				continue
			}
			out[i].Count += e.Count
		}
	}
	return out
}

// mergePoints aligns the parts' points of period seconds by wall-clock
// time and adds them up. A part that started k periods (rounded) after
// the earliest start has its points moved k periods on; points that land
// in one period add their counts, threads and histograms. A merged
// point's time and length are the longest of its parts' (the last point
// of a run covers only the remainder of its last period).
func mergePoints(col []*Step, start time.Time, period float64, points func(*Step) []Point) ([]Point, error) {
	type slot struct {
		p       Point
		encoded []string
	}
	slots := map[int]*slot{}
	for _, st := range col {
		shift := math.Round(st.Start.Sub(start).Seconds() / period)
		for _, p := range points(st) {
			k := int(shift + math.Ceil(p.Time/period-1e-9))
			sl := slots[k]
			if sl == nil {
				sl = &slot{}
				slots[k] = sl
			}
			addPoint(&sl.p, p, shift*period)
			if p.Histogram != "" {
				sl.encoded = append(sl.encoded, p.Histogram)
			}
		}
	}
	var out []Point
	for _, k := range slices.Sorted(maps.Keys(slots)) {
		sl := slots[k]
		if len(sl.encoded) > 0 {
			h, err := Merge(sl.encoded...)
			if err != nil {
				return nil, err
			}
			if err := sl.p.SetLatency(h); err != nil {
				return nil, err
			}
		}
		out = append(out, sl.p)
	}
	return out, nil
}

func addPoint(sum *Point, p Point, shift float64) {
	sum.Time = max(sum.Time, p.Time+shift)
	sum.Seconds = max(sum.Seconds, p.Seconds)
	sum.Events += p.Events
	sum.Reads += p.Reads
	sum.Writes += p.Writes
	sum.Other += p.Other
	sum.Errors += p.Errors
	sum.Reconnects += p.Reconnects
	sum.Threads += p.Threads
}

// SetLatency sets the point's percentiles, maximum and histogram from h,
// the latencies of the events that ended in it.
func (p *Point) SetLatency(h *hdr.Histogram) error {
	pct := func(q float64) float64 { return ms(float64(h.ValueAtPercentile(q))) }
	p.P50, p.P95, p.P99 = pct(50), pct(95), pct(99)
	p.Max = ms(float64(h.Max()))
	enc, err := EncodeHistogram(h)
	p.Histogram = enc
	return err
}
