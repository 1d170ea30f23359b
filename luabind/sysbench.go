package luabind

import (
	"io"

	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

// openSysbench creates the global sysbench table (spec §3.1) and the
// global thread_run.
func (st *state) openSysbench() {
	L := st.L
	s := st.script
	sb := L.CreateTable(0, 4)
	sb.RawSetString("tid", lua.LNumber(st.tid))
	sb.RawSetString("version", lua.LString(APIVersion))
	sb.RawSetString("version_string", lua.LString(s.cfg.VersionString))

	errTbl := L.CreateTable(0, 4)
	errTbl.RawSetString("NONE", lua.LNumber(0))
	errTbl.RawSetString("RESTART_EVENT", lua.LNumber(1))
	sb.RawSetString("error", errTbl)

	sb.RawSetString("cmdline", st.newCmdlineTable())
	randTbl := newRandTable(L, st.rand)
	st.builtinUniform, st.builtinDefault = randTbl.RawGetString("uniform"), randTbl.RawGetString("default")
	sb.RawSetString("rand", randTbl)
	sb.RawSetString("histogram", st.newHistogramTable())
	sb.RawSetString("hooks", L.CreateTable(0, 4))
	sb.RawSetString("report_default", L.NewFunction(st.reportDefault))
	sb.RawSetString("report_csv", L.NewFunction(st.reportCSV))
	sb.RawSetString("report_json", L.NewFunction(st.reportJSON))
	sb.RawSetString("sql", st.newSQLTable())
	sb.RawSetString("share", L.NewFunction(st.luaShare))
	L.SetGlobal("sysbench", sb)

	st.threadRun = L.NewFunction(st.luaThreadRun)
	L.SetGlobal("thread_run", st.threadRun)
}

// newMainRand is the main state's generator. Like sysbench's, which is
// seeded before --rand-seed is read, it gives the same numbers on every
// invocation, sysbench's own: prepare and cleanup are reproducible.
func newMainRand(o *RandOptions) *Rand { return newRandSysbenchMain(o) }

// statTable converts a report's numbers into the Lua stat table that
// report hooks receive (spec §3.7).
func (st *state) statTable(s *engine.Stats, cumulative bool) *lua.LTable {
	t := st.L.CreateTable(0, 16)
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	set("threads_running", float64(s.ThreadsRunning))
	set("time_interval", s.TimeInterval)
	set("time_total", s.TimeTotal)
	set("latency_pct", s.LatencyPct)
	set("events", float64(s.Events))
	set("reads", float64(s.Reads))
	set("writes", float64(s.Writes))
	set("other", float64(s.Other))
	set("errors", float64(s.Errors))
	set("reconnects", float64(s.Reconnects))
	if cumulative {
		set("latency_min", s.LatencyMin)
		set("latency_max", s.LatencyMax)
		set("latency_avg", s.LatencyAvg)
		set("latency_sum", s.LatencySum)
	} else {
		set("queue_length", float64(s.QueueLength))
		set("concurrency", float64(s.Concurrency))
	}
	return t
}

// statsFromTable reads a stat table back, for the report_* formatters,
// which scripts may call with tables of their own.
func statsFromTable(L *lua.LState, t *lua.LTable) *engine.Stats {
	num := func(k string) float64 {
		if n, ok := t.RawGetString(k).(lua.LNumber); ok {
			return float64(n)
		}
		return 0
	}
	return &engine.Stats{
		ThreadsRunning: int(num("threads_running")),
		TimeInterval:   num("time_interval"),
		TimeTotal:      num("time_total"),
		LatencyPct:     num("latency_pct"),
		Events:         uint64(num("events")),
		Reads:          uint64(num("reads")),
		Writes:         uint64(num("writes")),
		Other:          uint64(num("other")),
		Errors:         uint64(num("errors")),
		Reconnects:     uint64(num("reconnects")),
		QueueLength:    int(num("queue_length")),
		Concurrency:    int(num("concurrency")),
	}
}

// percentileOption is --percentile as the formatters print it.
func (st *state) percentileOption() int {
	if v, ok := st.script.cfg.Options.Lookup("percentile"); ok {
		return v.Int()
	}
	return 95
}

// reportDefault is sysbench.report_default(stat): the SQL-style
// intermediate line, printed with print.
func (st *state) reportDefault(L *lua.LState) int {
	s := statsFromTable(L, L.CheckTable(1))
	io.WriteString(st.script.cfg.Out, engine.FormatReportDefault(s, st.percentileOption())+"\n")
	return 0
}

// reportCSV is sysbench.report_csv(stat).
func (st *state) reportCSV(L *lua.LState) int {
	s := statsFromTable(L, L.CheckTable(1))
	io.WriteString(st.script.cfg.Out, engine.FormatReportCSV(s)+"\n")
	return 0
}

// reportJSON is sysbench.report_json(stat): one object of a JSON array
// that this state opens on its first call and closes when it is closed.
// sysbench closes it from a __gc finaliser, which gopher-lua never runs.
func (st *state) reportJSON(L *lua.LState) int {
	s := statsFromTable(L, L.CheckTable(1))
	io.WriteString(st.script.cfg.Out, engine.FormatReportJSON(s, !st.jsonOpen))
	st.jsonOpen = true
	return 0
}
