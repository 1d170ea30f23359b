package engine

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// The report text of sysbench 1.0.20 (spec §6.2-6.7). Every line goes
// through the Logger, as in sysbench, so --verbosity and the repeat
// suppression shape the output the same way: the blank lines are messages
// of their own, and the blank line that ends one report swallows the blank
// line that starts the next one.
//
// Floating-point fields are formatted with cFixed, which writes infinities
// and NaNs the way glibc's printf does (a zero-length interval gives them);
// the Lua formatters use luaFixed, which writes them the way LuaJIT's
// string.format does.

// WriteIntermediate writes the intermediate report line for --report-interval
// (spec §6.4): rates over s.TimeInterval in the plain "eps" style, or in the
// "tps/qps" style once any SQL driver exists, and with --rate a second line
// with the event queue, which differs by a comma between the two styles.
func WriteIntermediate(l *Logger, s *Stats, sqlMode bool, percentile int, rateMode bool) {
	sec := s.TimeInterval
	latency := cFixed(s.LatencyPct*1000, 4, 2)
	if sqlMode {
		queries := float64(s.Reads + s.Writes + s.Other)
		l.Timestamped("%sthds: %d tps: %s qps: %s (r/w/o: %s/%s/%s) lat (ms,%d%%): %s err/s: %s reconn/s: %s",
			timestampPrefix(s.TimeTotal), s.ThreadsRunning,
			cFixed(float64(s.Events)/sec, 4, 2),
			cFixed(queries/sec, 4, 2),
			cFixed(float64(s.Reads)/sec, 4, 2),
			cFixed(float64(s.Writes)/sec, 4, 2),
			cFixed(float64(s.Other)/sec, 4, 2),
			percentile, latency,
			cFixed(float64(s.Errors)/sec, 4, 2),
			cFixed(float64(s.Reconnects)/sec, 4, 2))
		if rateMode {
			l.Timestamped("%squeue length: %d, concurrency: %d",
				timestampPrefix(s.TimeTotal), s.QueueLength, s.Concurrency)
		}
		return
	}
	l.Timestamped("%sthds: %d eps: %s lat (ms,%d%%): %s",
		timestampPrefix(s.TimeTotal), s.ThreadsRunning, cFixed(float64(s.Events)/sec, 4, 2), percentile, latency)
	if rateMode {
		l.Timestamped("%squeue length: %d concurrency: %d",
			timestampPrefix(s.TimeTotal), s.QueueLength, s.Concurrency)
	}
}

// WriteCheckpointHeader writes the line that starts a --report-checkpoints
// report; the cumulative report follows it.
func WriteCheckpointHeader(l *Logger, elapsed float64) {
	l.Timestamped("%sCheckpoint report:", timestampPrefix(elapsed))
}

// WriteCumulative writes the final (or checkpoint) report (spec §6.3): the
// "SQL statistics" block in SQL mode, then the general statistics, latency
// and fairness blocks. percentile 0 means --percentile=0 (disabled).
func WriteCumulative(l *Logger, s *Stats, sqlMode bool, percentile int) {
	if sqlMode {
		WriteSQLStatistics(l, s)
	}
	WriteGeneralStatistics(l, s, percentile)
}

// WriteSQLStatistics writes the "SQL statistics" block alone. It is
// separate from WriteGeneralStatistics because on a forced shutdown
// sysbench prints the unfinished-transactions lines between the two.
func WriteSQLStatistics(l *Logger, s *Stats) {
	sec := s.TimeInterval
	queries := s.Reads + s.Writes + s.Other
	l.Logf(LevelNotice, "SQL statistics:")
	l.Logf(LevelNotice, "    queries performed:")
	l.Logf(LevelNotice, "        read:                            %d", s.Reads)
	l.Logf(LevelNotice, "        write:                           %d", s.Writes)
	l.Logf(LevelNotice, "        other:                           %d", s.Other)
	l.Logf(LevelNotice, "        total:                           %d", queries)
	l.Logf(LevelNotice, "    transactions:                        %-6d (%s per sec.)",
		s.Events, cFixed(float64(s.Events)/sec, 0, 2))
	l.Logf(LevelNotice, "    queries:                             %-6d (%s per sec.)",
		queries, cFixed(float64(queries)/sec, 0, 2))
	l.Logf(LevelNotice, "    ignored errors:                      %-6d (%s per sec.)",
		s.Errors, cFixed(float64(s.Errors)/sec, 0, 2))
	l.Logf(LevelNotice, "    reconnects:                          %-6d (%s per sec.)",
		s.Reconnects, cFixed(float64(s.Reconnects)/sec, 0, 2))
	if s.AmbiguousCommits > 0 { // sbgo's own line, absent in sysbench's report
		l.Logf(LevelNotice, "    ambiguous commits:                   %-6d (%s per sec.)",
			s.AmbiguousCommits, cFixed(float64(s.AmbiguousCommits)/sec, 0, 2))
	}
}

// WriteGeneralStatistics writes the general statistics, latency and
// threads fairness blocks of 1.0.20. The fairness numbers are the mean and
// the population standard deviation over s.ThreadEvents and s.ThreadTime,
// one entry per worker; the time mean is LatencySum divided by the number
// of workers, as sysbench computes it.
func WriteGeneralStatistics(l *Logger, s *Stats, percentile int) {
	l.Logf(LevelNotice, "")
	l.Logf(LevelNotice, "General statistics:")
	l.Logf(LevelNotice, "    total time:                          %ss", cFixed(s.TimeTotal, 0, 4))
	l.Logf(LevelNotice, "    total number of events:              %d", s.Events)
	l.Logf(LevelNotice, "")

	l.Logf(LevelNotice, "Latency (ms):")
	l.Logf(LevelNotice, "         min: %s", cFixed(s.LatencyMin*1000, 39, 2))
	l.Logf(LevelNotice, "         avg: %s", cFixed(s.LatencyAvg*1000, 39, 2))
	l.Logf(LevelNotice, "         max: %s", cFixed(s.LatencyMax*1000, 39, 2))
	if percentile > 0 {
		l.Logf(LevelNotice, "        %3dth percentile: %s", percentile, cFixed(s.LatencyPct*1000, 27, 2))
	} else {
		l.Logf(LevelNotice, "         percentile stats:               disabled")
	}
	l.Logf(LevelNotice, "         sum: %s", cFixed(s.LatencySum*1000, 39, 2))
	l.Logf(LevelNotice, "")

	eventsAvg, eventsDev, timeAvg, timeDev := fairness(s)
	l.Logf(LevelNotice, "Threads fairness:")
	l.Logf(LevelNotice, "    events (avg/stddev):           %s/%s", cFixed(eventsAvg, 0, 4), cFixed(eventsDev, 3, 2))
	l.Logf(LevelNotice, "    execution time (avg/stddev):   %s/%s", cFixed(timeAvg, 0, 4), cFixed(timeDev, 3, 2))
	l.Logf(LevelNotice, "")
}

// fairness computes the "Threads fairness" numbers. With no per-thread
// entries (a caller error) they are all 0 rather than NaN.
func fairness(s *Stats) (eventsAvg, eventsDev, timeAvg, timeDev float64) {
	n := float64(len(s.ThreadEvents))
	if n == 0 {
		return 0, 0, 0, 0
	}
	var events uint64
	for _, e := range s.ThreadEvents {
		events += e
	}
	eventsAvg = float64(events) / n
	timeAvg = s.LatencySum / n
	for _, e := range s.ThreadEvents {
		d := eventsAvg - float64(e)
		eventsDev += d * d
	}
	for _, t := range s.ThreadTime {
		d := timeAvg - t
		timeDev += d * d
	}
	return eventsAvg, math.Sqrt(eventsDev / n), timeAvg, math.Sqrt(timeDev / n)
}

// ThreadTimer is one worker's latency timer, in seconds, for the --debug
// per-thread block.
type ThreadTimer struct {
	Events             uint64
	Min, Avg, Max, Sum float64
}

// WriteThreadDebug writes the "Verbose per-thread statistics" block that
// sysbench appends to a cumulative report with --debug. The lines are DEBUG
// level, so they only show at verbosity 5; the closing blank line is NOTICE.
func WriteThreadDebug(l *Logger, timers []ThreadTimer) {
	l.Logf(LevelDebug, "Verbose per-thread statistics:\n")
	for i, t := range timers {
		l.Logf(LevelDebug, "    thread #%3d: min: %ss  avg: %ss  max: %ss  events: %d",
			i, cFixed(t.Min, 0, 4), cFixed(t.Avg, 0, 4), cFixed(t.Max, 0, 4), t.Events)
		l.Logf(LevelDebug, "                 total time taken by event execution: %ss",
			cFixed(t.Sum, 0, 4))
	}
	l.Logf(LevelNotice, "")
}

// PrintLatencyHistogram writes the --histogram block (spec §6.5): the
// title as a NOTICE message, the distribution rows past the verbosity
// filter, and a closing message of a single space.
func PrintLatencyHistogram(l *Logger, h *Histogram) {
	l.Logf(LevelNotice, "Latency histogram (values are in milliseconds)")
	_ = h.Print(l)
	l.Logf(LevelNotice, " ")
}

// luaRates are the per-second figures the Lua formatters print, as Lua's
// string.format("%4.2f") writes them.
type luaRates struct {
	tps, qps, reads, writes, other, latency, errors, reconnects string
}

func newLuaRates(s *Stats) luaRates {
	sec := s.TimeInterval
	rate := func(n uint64) string { return luaFixed(float64(n)/sec, 4, 2) }
	return luaRates{
		tps:        rate(s.Events),
		qps:        rate(s.Reads + s.Writes + s.Other),
		reads:      rate(s.Reads),
		writes:     rate(s.Writes),
		other:      rate(s.Other),
		latency:    luaFixed(s.LatencyPct*1000, 4, 2),
		errors:     rate(s.Errors),
		reconnects: rate(s.Reconnects),
	}
}

// FormatReportDefault returns the line sysbench.report_default prints,
// without the newline that Lua's print adds. Unlike the built-in SQL line
// it has "err/s" with no colon.
func FormatReportDefault(s *Stats, percentile int) string {
	r := newLuaRates(s)
	return "[ " + luaFixed(s.TimeTotal, 0, 0) + "s ] thds: " + strconv.Itoa(s.ThreadsRunning) +
		" tps: " + r.tps + " qps: " + r.qps +
		" (r/w/o: " + r.reads + "/" + r.writes + "/" + r.other + ")" +
		" lat (ms," + strconv.Itoa(percentile) + "%): " + r.latency +
		" err/s " + r.errors + " reconn/s: " + r.reconnects
}

// FormatReportCSV returns the line sysbench.report_csv prints, without the
// newline: time, threads, then per-second rates of events, queries, reads,
// writes, other, the latency in ms, and errors and reconnects per second.
func FormatReportCSV(s *Stats) string {
	r := newLuaRates(s)
	return strings.Join([]string{luaFixed(s.TimeTotal, 0, 0), strconv.Itoa(s.ThreadsRunning),
		r.tps, r.qps, r.reads, r.writes, r.other, r.latency, r.errors, r.reconnects}, ",")
}

// ReportJSONClose ends the JSON array that FormatReportJSON objects form;
// sysbench writes it when the reporting Lua state is closed.
const ReportJSONClose = "\n]\n"

// FormatReportJSON returns what one sysbench.report_json call writes: "[\n"
// on the first call of a Lua state (first set), ",\n" on later ones, then
// the object, with 1.0.20's exact layout and no trailing newline. After the
// last call, write ReportJSONClose.
func FormatReportJSON(s *Stats, first bool) string {
	r := newLuaRates(s)
	// sysbench writes nan or inf where an interval is empty, which is not
	// JSON; sbgo writes null there so that the array always parses.
	for _, f := range []*string{&r.tps, &r.qps, &r.reads, &r.writes, &r.other, &r.latency, &r.errors, &r.reconnects} {
		if v := strings.TrimSpace(*f); strings.HasSuffix(v, "nan") || strings.HasSuffix(v, "inf") {
			*f = "null"
		}
	}
	open := ",\n"
	if first {
		open = "[\n"
	}
	return open + "  {\n" +
		"    \"time\": " + luaFixed(s.TimeTotal, 4, 0) + ",\n" +
		"    \"threads\": " + strconv.Itoa(s.ThreadsRunning) + ",\n" +
		"    \"tps\": " + r.tps + ",\n" +
		"    \"qps\": {\n" +
		"      \"total\": " + r.qps + ",\n" +
		"      \"reads\": " + r.reads + ",\n" +
		"      \"writes\": " + r.writes + ",\n" +
		"      \"other\": " + r.other + "\n" +
		"    },\n" +
		"    \"latency\": " + r.latency + ",\n" +
		"    \"errors\": " + r.errors + ",\n" +
		"    \"reconnects\": " + r.reconnects + "\n" +
		"  }"
}

// cFixed formats v like C's printf("%*.*f", width, prec, v) with glibc:
// exact ties round to even (as strconv does), infinities print as
// "inf"/"-inf", and a NaN as "nan" or, when its sign bit is set (as for
// 0.0/0.0 on x86), "-nan".
func cFixed(v float64, width, prec int) string {
	var s string
	switch {
	case math.IsNaN(v) && math.Signbit(v):
		s = "-nan"
	case math.IsNaN(v):
		s = "nan"
	case math.IsInf(v, 1):
		s = "inf"
	case math.IsInf(v, -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(v, 'f', prec, 64)
	}
	return padLeft(s, width)
}

// luaFixed formats v like LuaJIT 2.1's string.format("%*.*f"), which has
// its own number formatter: every NaN prints as "nan", and a value exactly
// halfway between two results rounds away from zero, so 12.5 prints as
// "13" where C prints "12". Other values round as in C.
func luaFixed(v float64, width, prec int) string {
	if math.IsNaN(v) {
		return padLeft("nan", width)
	}
	if math.IsInf(v, 0) {
		return cFixed(v, width, prec)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if up, ok := halfwayRoundedUp(v, prec); ok {
		s = up
	}
	return padLeft(s, width)
}

// halfwayRoundedUp reports whether |v|*10^prec is exactly an integer plus
// one half and, if so, returns v rounded away from zero to prec decimals.
// Such ties need a value with at most prec+1 fractional binary digits, so
// they are rare; the exact test uses big.Float, which is fine for output
// written once per report.
func halfwayRoundedUp(v float64, prec int) (string, bool) {
	// Cheap filter: at a tie, the digit after the last one kept is a 5.
	next := strconv.FormatFloat(v, 'f', prec+1, 64)
	if next[len(next)-1] != '5' {
		return "", false
	}
	const bits = 2048 // exact for a float64 times 2*10^prec, prec < 100
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil)
	twice := new(big.Float).SetPrec(bits).SetFloat64(math.Abs(v))
	twice.Mul(twice, new(big.Float).SetPrec(bits).SetInt(pow.Lsh(pow, 1)))
	if !twice.IsInt() {
		return "", false
	}
	odd, _ := twice.Int(nil)
	if odd.Bit(0) == 0 {
		return "", false // |v|*10^prec is an integer: nothing to round
	}
	digits := odd.Add(odd, big.NewInt(1)).Rsh(odd, 1).String()
	if len(digits) <= prec {
		digits = strings.Repeat("0", prec+1-len(digits)) + digits
	}
	s := digits
	if prec > 0 {
		s = digits[:len(digits)-prec] + "." + digits[len(digits)-prec:]
	}
	if v < 0 {
		s = "-" + s
	}
	return s, true
}

// padLeft right-aligns s in width columns.
func padLeft(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return strings.Repeat(" ", width-len(s)) + s
}
