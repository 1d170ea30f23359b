package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/<name>.golden, or rewrites the
// file with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// sysbenchOutput returns the part of a file captured from sysbench 1.0.20
// (testdata/sysbench-1.0.20) that starts at marker.
func sysbenchOutput(t *testing.T, file, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sysbench-1.0.20", file))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		t.Fatalf("%s: marker %q not found", file, marker)
	}
	return string(b[i:])
}

// finalStats builds a cumulative report's numbers from the values as
// sysbench prints them (latencies in ms). The busy time is spread evenly
// over the threads, so its stddev is 0 as in every capture below.
func finalStats(total float64, events uint64, minMs, avgMs, maxMs, pctMs, sumMs float64, threadEvents ...uint64) *Stats {
	s := &Stats{
		TimeTotal:    total,
		Events:       events,
		LatencyMin:   minMs / 1000,
		LatencyAvg:   avgMs / 1000,
		LatencyMax:   maxMs / 1000,
		LatencyPct:   pctMs / 1000,
		LatencySum:   sumMs / 1000,
		ThreadEvents: threadEvents,
	}
	for range threadEvents {
		s.ThreadTime = append(s.ThreadTime, s.LatencySum/float64(len(threadEvents)))
	}
	return s
}

// sqlStats adds the SQL counters of a cumulative report: all queries are
// "other", as with --mysql-dry-run, and interval is chosen so that the
// printed per-second rates come out as in the capture.
func sqlStats(s *Stats, other uint64, interval float64) *Stats {
	s.Other = other
	s.TimeInterval = interval
	return s
}

// intermediate builds an intermediate report's numbers; interval is chosen
// so that the printed rates come out as in the capture.
func intermediate(total float64, threads int, events, other uint64, interval, pctMs float64) *Stats {
	return &Stats{
		TimeTotal:      total,
		ThreadsRunning: threads,
		Events:         events,
		Other:          other,
		TimeInterval:   interval,
		LatencyPct:     pctMs / 1000,
	}
}

// TestReportMatchesSysbench replays the report calls of real sysbench
// 1.0.20 runs and compares the whole output, byte for byte, with what the
// binary printed from "Threads started!" on. The Stats carry the numbers
// sysbench printed, so nothing needs masking: layout, blank lines, column
// widths and the repeat-suppression artefacts are all compared. Captures
// (testdata/sysbench-1.0.20), made with scripts whose event() sleeps
// (sleep.lua: ffi usleep of 1000+300*tid µs; sqlsleep.lua: connect in
// thread_init, two con:query calls and a 500 µs sleep per event):
//
//	plain.txt            sysbench sleep.lua --time=2 --threads=3 --report-interval=1 --percentile=99 run
//	sql_rate.txt         sysbench --db-driver=mysql --mysql-dry-run sqlsleep.lua --time=2 --threads=2 --report-interval=1 --rate=1500 run
//	checkpoint_plain.txt sysbench sleep.lua --time=3 --report-checkpoints=2,1 run
//	checkpoint_sql.txt   sysbench --db-driver=mysql --mysql-dry-run sqlsleep.lua --time=2 --report-checkpoints=1 --report-interval=1 run
//	histogram.txt        sysbench sleep.lua --time=1 --histogram=on --threads=2 run
//	debug.txt            sysbench sleep.lua --time=1 --threads=2 --debug run
//	no_events.txt        sysbench stop.lua --histogram=on run (event() returns true)
func TestReportMatchesSysbench(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		verbosity int
		write     func(l *Logger)
	}{
		{
			// Two plain "eps" lines, then the general report with a 99th
			// percentile and unequal threads.
			name: "plain", file: "plain.txt", verbosity: 3,
			write: func(l *Logger) {
				WriteIntermediate(l, intermediate(1.0001, 3, 2173, 0, 2173/2172.95, 2.03), false, 99, false)
				WriteIntermediate(l, intermediate(2.0, 3, 2200, 0, 2200/2200.15, 1.82), false, 99, false)
				WriteCumulative(l, finalStats(2.0014, 4377, 1.01, 1.37, 5.00, 1.93, 5996.63, 1788, 1435, 1154), false, 99)
			},
		},
		{
			// SQL lines with the --rate line (comma after the queue
			// length), then the SQL block with no blank line before it.
			name: "sql with rate", file: "sql_rate.txt", verbosity: 3,
			write: func(l *Logger) {
				WriteIntermediate(l, intermediate(1.0002, 2, 1501, 3002, 1.0002265669799728, 1.10), true, 95, true)
				WriteIntermediate(l, intermediate(2.0001, 2, 1458, 2918, 0.999819195905982, 1.06), true, 95, true)
				s := finalStats(2.0015, 2961, 0.52, 0.68, 3.23, 1.08, 2015.37, 1489, 1472)
				WriteCumulative(l, sqlStats(s, 5922, 2.001843981581896), true, 95)
			},
		},
		{
			// Checkpoints: the blank line that starts the second and third
			// reports is swallowed by the one that ended the previous
			// report, and shows up as "(last message repeated 1 times)".
			name: "checkpoints, plain", file: "checkpoint_plain.txt", verbosity: 3,
			write: func(l *Logger) {
				WriteCheckpointHeader(l, 1.0001)
				WriteCumulative(l, finalStats(1.0002, 902, 1.07, 1.11, 3.46, 1.12, 998.50, 903), false, 95)
				WriteCheckpointHeader(l, 2.0001)
				WriteCumulative(l, finalStats(2.0002, 919, 1.02, 1.09, 2.19, 1.12, 998.148, 918), false, 95)
				WriteCumulative(l, finalStats(3.0014, 904, 1.07, 1.11, 2.69, 1.14, 999.78, 904), false, 95)
			},
		},
		{
			// Checkpoints in SQL mode start with "SQL statistics:", so
			// nothing is swallowed; an intermediate line came in between.
			name: "checkpoints, SQL", file: "checkpoint_sql.txt", verbosity: 3,
			write: func(l *Logger) {
				WriteCheckpointHeader(l, 1.0001)
				WriteIntermediate(l, intermediate(1.0002, 1, 1699, 3400, 1.0002199662333993, 0.61), true, 95, false)
				s := finalStats(1.0002, 1700, 0.54, 0.59, 1.23, 0.61, 998.72, 1701)
				WriteCumulative(l, sqlStats(s, 3402, 1.0013860705896482), true, 95)
				WriteIntermediate(l, intermediate(2.0002, 1, 1681, 3362, 1.0002915781540842, 0.62), true, 95, false)
				s = finalStats(2.0011, 1681, 0.54, 0.59, 2.83, 0.62, 998.21, 1680)
				WriteCumulative(l, sqlStats(s, 3360, 1.000029762792774), true, 95)
			},
		},
		{
			// The --histogram block: the title, the rows, the line with a
			// single space, then the report.
			name: "histogram", file: "histogram.txt", verbosity: 3,
			write: func(l *Logger) {
				PrintLatencyHistogram(l, histogramFromRows(t, "histogram.txt"))
				WriteCumulative(l, finalStats(1.0011, 1617, 1.02, 1.24, 3.68, 1.44, 1997.26, 906, 711), false, 95)
			},
		},
		{
			// No event ran (event() returned true at once): the histogram
			// block has no rows, and min and avg are 0, not NaN.
			name: "no events", file: "no_events.txt", verbosity: 3,
			write: func(l *Logger) {
				PrintLatencyHistogram(l, NewLatencyHistogram(1).Cumulative(true))
				s := finalStats(0.0025, 0, 0, 0, 0, latencyMinMs, 0, 0)
				WriteCumulative(l, s, false, 95)
			},
		},
		{
			// --debug: both workers hit the time limit with the same INFO
			// message, and the per-thread block follows the report.
			name: "debug", file: "debug.txt", verbosity: 5,
			write: func(l *Logger) {
				l.Logf(LevelInfo, "Time limit exceeded, exiting...")
				l.Logf(LevelInfo, "Time limit exceeded, exiting...")
				l.Logf(LevelInfo, "Done.\n")
				s := finalStats(1.0015, 1635, 1.02, 1.22, 2.50, 1.42, 1998.16, 913, 722)
				s.ThreadTime = []float64{0.99821, 0.99991}
				WriteCumulative(l, s, false, 95)
				WriteThreadDebug(l, []ThreadTimer{
					{Events: 913, Min: 0.00104, Avg: 0.00109, Max: 0.00249, Sum: 0.99821},
					{Events: 722, Min: 0.00132, Avg: 0.00138, Max: 0.00172, Sum: 0.99991},
				})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := sysbenchOutput(t, tt.file, "Threads started!")
			var out bytes.Buffer
			l := NewLogger(&out, tt.verbosity)
			l.Logf(LevelNotice, "Threads started!\n")
			tt.write(l)
			if got := out.String(); got != want {
				t.Errorf("output differs from sysbench's\n--- got:\n%s\n--- want:\n%s", got, want)
			}
		})
	}
}

// histogramFromRows rebuilds a latency histogram from the rows sysbench
// printed: each row's count of values equal to the row's bucket value.
func histogramFromRows(t *testing.T, file string) *Histogram {
	t.Helper()
	h := newLatencyHistogram()
	rows := sysbenchOutput(t, file, "       value")
	for _, line := range strings.Split(rows, "\n")[1:] {
		if !strings.Contains(line, "|") {
			break
		}
		var value float64
		var count int
		valueText, _, _ := strings.Cut(line, "|")
		fields := strings.Fields(line)
		if _, err := fmt.Sscan(valueText, &value); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		if _, err := fmt.Sscan(fields[len(fields)-1], &count); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		for range count {
			h.Update(value)
		}
	}
	return h
}

// TestLuaFormattersMatchSysbench compares FormatReportDefault,
// FormatReportCSV and FormatReportJSON with what sysbench 1.0.20's
// sysbench.report_default, report_csv and report_json printed for the same
// stat tables. lua_fixed.txt comes from a report_cumulative hook that
// overwrites the stat fields with fixed values (the rows below) and calls
// the three formatters (`sysbench fixed.lua --verbosity=1 run`); it shows
// LuaJIT rounding 12.5 up to 13. lua_nan.txt sets time_interval and
// events to 0 and calls report_default and report_csv.
func TestLuaFormattersMatchSysbench(t *testing.T) {
	fixed := []*Stats{
		// A time that is an exact tie (12.5 s) and every counter set.
		{TimeTotal: 12.5, ThreadsRunning: 3, TimeInterval: 2, Events: 2001, Reads: 10, Writes: 20, Other: 30, Errors: 1, Reconnects: 2, LatencyPct: 0.00123},
		// A wide time (JSON "%4.0f" fills the width) and a large rate.
		{TimeTotal: 1234.6, TimeInterval: 0.5, Events: 123456789, Reads: 1, LatencyPct: 0.000001},
		// A time under half a second and the largest latency bucket.
		{TimeTotal: 0.49, ThreadsRunning: 16, TimeInterval: 3, Events: 7, Writes: 5, LatencyPct: 10.0896},
	}
	var got strings.Builder
	for _, s := range fixed {
		got.WriteString(FormatReportDefault(s, 95) + "\n")
		got.WriteString(FormatReportCSV(s) + "\n")
	}
	for i, s := range fixed {
		got.WriteString(FormatReportJSON(s, i == 0))
	}
	got.WriteString(ReportJSONClose)
	if want := sysbenchOutput(t, "lua_fixed.txt", ""); got.String() != want {
		t.Errorf("fixed stats differ from sysbench's\n--- got:\n%s\n--- want:\n%s", got.String(), want)
	}

	// 0/0 and x/0 print as LuaJIT prints them: "nan" with no sign.
	zero := 0.0
	nan := &Stats{TimeTotal: 1.0001, TimeInterval: zero, LatencyPct: 0.000001}
	gotNaN := FormatReportDefault(nan, 95) + "\n" + FormatReportCSV(nan) + "\n"
	if want := sysbenchOutput(t, "lua_nan.txt", ""); gotNaN != want {
		t.Errorf("zero interval differs from sysbench's\n--- got:\n%s\n--- want:\n%s", gotNaN, want)
	}
}

// TestReportGolden locks the report text for cases the captures above do
// not cover.
func TestReportGolden(t *testing.T) {
	interval := &Stats{
		TimeTotal: 10.4999, ThreadsRunning: 8, TimeInterval: 1.0001,
		Events: 1234, Reads: 17276, Writes: 4936, Other: 2468, Errors: 3, Reconnects: 1,
		LatencyPct: 0.0021064, QueueLength: 12, Concurrency: 7,
	}
	// Numbers wider than the %-6 columns of the SQL block.
	wide := &Stats{
		TimeTotal: 4.0113, TimeInterval: 4.0117,
		Events: 124418, Reads: 1741852, Writes: 497672, Other: 248836, Errors: 1234567, Reconnects: 0,
		LatencyMin: 0.00041, LatencyAvg: 0.00257, LatencyMax: 0.23456, LatencyPct: 0.0045467, LatencySum: 319.98765,
		ThreadEvents: []uint64{15000, 16000, 15500, 15918, 15500, 15500, 15500, 15500},
		ThreadTime:   []float64{39.9, 40.1, 40, 40.2, 39.8, 40, 40, 39.98765},
	}
	tests := []struct {
		name      string
		verbosity int
		write     func(l *Logger)
	}{
		// Plain intermediate line.
		{"intermediate_plain", 3, func(l *Logger) { WriteIntermediate(l, interval, false, 95, false) }},
		// Plain line plus the rate line without a comma.
		{"intermediate_plain_rate", 3, func(l *Logger) { WriteIntermediate(l, interval, false, 95, true) }},
		// SQL line.
		{"intermediate_sql", 3, func(l *Logger) { WriteIntermediate(l, interval, true, 99, false) }},
		// SQL line plus the rate line with a comma.
		{"intermediate_sql_rate", 3, func(l *Logger) { WriteIntermediate(l, interval, true, 99, true) }},
		// --percentile=0: the reporter passes the lowest bucket, shown as 0.00.
		{"intermediate_pct0", 3, func(l *Logger) {
			s := *interval
			s.LatencyPct = latencyMinMs / 1000
			WriteIntermediate(l, &s, false, 0, false)
		}},
		// Intermediate lines are NOTICE: nothing at verbosity 2.
		{"intermediate_quiet", 2, func(l *Logger) { WriteIntermediate(l, interval, true, 95, true) }},
		// SQL block with wide numbers, then the general report.
		{"cumulative_sql_wide", 3, func(l *Logger) { WriteCumulative(l, wide, true, 95) }},
		// Plain report with percentile stats disabled.
		{"cumulative_pct0", 3, func(l *Logger) { WriteCumulative(l, wide, false, 0) }},
		// Commits whose answer was lost: sbgo's own line after reconnects.
		{"sql_ambiguous_commits", 3, func(l *Logger) {
			s := *wide
			s.Reconnects, s.AmbiguousCommits = 4, 3
			WriteSQLStatistics(l, &s)
		}},
		// No events at all: zeros, not NaN.
		{"cumulative_empty", 3, func(l *Logger) {
			WriteCumulative(l, &Stats{TimeTotal: 0.0018, TimeInterval: 0.0018, LatencyPct: latencyMinMs / 1000,
				ThreadEvents: []uint64{0, 0}, ThreadTime: []float64{0, 0}}, true, 95)
		}},
		// The histogram block at verbosity 1: only the rows remain.
		{"histogram_quiet", 1, func(l *Logger) {
			h := newLatencyHistogram()
			for _, v := range []float64{0.5, 0.5, 0.5, 2, 2, 1000} {
				h.Update(v)
			}
			PrintLatencyHistogram(l, h)
		}},
		// An empty histogram prints the title and the closing line only.
		{"histogram_empty", 3, func(l *Logger) { PrintLatencyHistogram(l, newLatencyHistogram()) }},
		// The Lua formatters for the same interval.
		{"lua_formatters", 3, func(l *Logger) {
			l.Raw(FormatReportDefault(interval, 95) + "\n")
			l.Raw(FormatReportCSV(interval) + "\n")
			l.Raw(FormatReportJSON(interval, true) + FormatReportJSON(wide, false) + ReportJSONClose)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.write(NewLogger(&out, tt.verbosity))
			checkGolden(t, tt.name, out.String())
		})
	}
}

// TestReportJSONIsValid checks that the objects, once the array is
// closed, form valid JSON with the stat values.
func TestReportJSONIsValid(t *testing.T) {
	stats := []*Stats{
		{TimeTotal: 1, ThreadsRunning: 2, TimeInterval: 1, Events: 100, Reads: 10, Writes: 20, Other: 30, LatencyPct: 0.002},
		{TimeTotal: 2, ThreadsRunning: 2, TimeInterval: 1, Events: 50, Errors: 4, Reconnects: 1, LatencyPct: 0.001},
	}
	var b strings.Builder
	for i, s := range stats {
		b.WriteString(FormatReportJSON(s, i == 0))
	}
	b.WriteString(ReportJSONClose)
	var got []struct {
		Time    float64 `json:"time"`
		Threads int     `json:"threads"`
		TPS     float64 `json:"tps"`
		QPS     struct {
			Total, Reads, Writes, Other float64
		} `json:"qps"`
		Latency    float64 `json:"latency"`
		Errors     float64 `json:"errors"`
		Reconnects float64 `json:"reconnects"`
	}
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	if len(got) != 2 {
		t.Fatalf("got %d objects, want 2", len(got))
	}
	if got[0].TPS != 100 || got[0].QPS.Total != 60 || got[0].QPS.Writes != 20 || got[0].Latency != 2 {
		t.Errorf("first object = %+v", got[0])
	}
	if got[1].Time != 2 || got[1].Errors != 4 || got[1].Reconnects != 1 {
		t.Errorf("second object = %+v", got[1])
	}
}

// TestFairness checks the population standard deviations of the
// "Threads fairness" block.
func TestFairness(t *testing.T) {
	tests := []struct {
		name                                   string
		s                                      Stats
		eventsAvg, eventsDev, timeAvg, timeDev float64
	}{
		// One thread: no spread.
		{"one thread", Stats{LatencySum: 2, ThreadEvents: []uint64{10}, ThreadTime: []float64{2}}, 10, 0, 2, 0},
		// Two threads 2 apart: stddev 1 (population, not sample).
		{"two threads", Stats{LatencySum: 4, ThreadEvents: []uint64{9, 11}, ThreadTime: []float64{1, 3}}, 10, 1, 2, 1},
		// The time mean is LatencySum/threads even if ThreadTime disagrees.
		{"time mean from sum", Stats{LatencySum: 6, ThreadEvents: []uint64{1, 1}, ThreadTime: []float64{3, 3}}, 1, 0, 3, 0},
		// No per-thread data: zeros rather than NaN.
		{"no threads", Stats{LatencySum: 1}, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		ea, ed, ta, td := fairness(&tt.s)
		if ea != tt.eventsAvg || ed != tt.eventsDev || ta != tt.timeAvg || td != tt.timeDev {
			t.Errorf("%s: fairness = %v %v %v %v, want %v %v %v %v", tt.name, ea, ed, ta, td,
				tt.eventsAvg, tt.eventsDev, tt.timeAvg, tt.timeDev)
		}
	}
}

// TestFixedFormatting checks the C and LuaJIT flavours of "%*.*f", as
// printed by glibc's printf and LuaJIT's string.format (checked with
// /usr/bin/luajit and printf(1)).
func TestFixedFormatting(t *testing.T) {
	negNaN := math.Copysign(math.NaN(), -1)
	tests := []struct {
		v           float64
		width, prec int
		c, lua      string
	}{
		{12.5, 0, 0, "12", "13"},                       // exact tie: to even in C, away from zero in LuaJIT
		{2.5, 0, 0, "2", "3"},                          // same
		{-2.5, 0, 0, "-2", "-3"},                       // negative tie
		{0.125, 0, 2, "0.12", "0.13"},                  // tie at two decimals
		{0.375, 0, 2, "0.38", "0.38"},                  // tie where both round up
		{2.675, 0, 2, "2.67", "2.67"},                  // not a tie: 2.67499999...
		{1.005, 0, 2, "1.00", "1.00"},                  // not a tie: 1.00499999...
		{0.49999999999999994, 0, 0, "0", "0"},          // just below one half
		{0.5, 4, 0, "   0", "   1"},                    // tie, padded
		{9.995, 0, 2, "9.99", "9.99"},                  // 9.99499999...
		{99.5, 0, 0, "100", "100"},                     // tie that carries (to even is up too)
		{0.05, 0, 1, "0.1", "0.1"},                     // 0.05000000000000000277: not a tie
		{1234.6, 4, 0, "1235", "1235"},                 // fills the width
		{3.14159, 8, 2, "    3.14", "    3.14"},        // padding
		{math.Inf(1), 4, 2, " inf", " inf"},            // x/0
		{math.Inf(-1), 4, 2, "-inf", "-inf"},           // -x/0
		{negNaN, 4, 2, "-nan", " nan"},                 // 0/0 on x86 has the sign bit
		{math.NaN(), 4, 2, " nan", " nan"},             // positive NaN
		{math.Copysign(0, -1), 0, 2, "-0.00", "-0.00"}, // negative zero keeps its sign
	}
	for _, tt := range tests {
		if got := cFixed(tt.v, tt.width, tt.prec); got != tt.c {
			t.Errorf("cFixed(%v, %d, %d) = %q, want %q", tt.v, tt.width, tt.prec, got, tt.c)
		}
		if got := luaFixed(tt.v, tt.width, tt.prec); got != tt.lua {
			t.Errorf("luaFixed(%v, %d, %d) = %q, want %q", tt.v, tt.width, tt.prec, got, tt.lua)
		}
	}
}

// TestReportJSONEmptyIntervalIsValid: an interval of zero length gives
// nan rates, which sysbench prints as such; sbgo writes null.
func TestReportJSONEmptyIntervalIsValid(t *testing.T) {
	text := FormatReportJSON(&Stats{TimeInterval: 0, Events: 0}, true) + ReportJSONClose
	var v []map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, text)
	}
	if v[0]["tps"] != nil {
		t.Errorf("tps = %v, want null", v[0]["tps"])
	}
}
