package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

const histogramTypeName = "sysbench.histogram"

// newHistogramTable builds sysbench.histogram: new(size, min, max) makes
// a log-scale histogram with the latency histogram's layout (spec §3.6).
func (st *state) newHistogramTable() *lua.LTable {
	L := st.L
	mt := newMetatable(L, histogramTypeName)
	methods := L.CreateTable(0, 4)
	methods.RawSetString("update", L.NewFunction(histUpdate))
	methods.RawSetString("print", L.NewFunction(st.histPrint))
	mt.RawSetString("__index", methods)
	// sysbench sets __tostring to a string by mistake, so tostring(h)
	// raises "attempt to call a string value"; nothing relies on it, and
	// sbgo names the object instead.
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("<sysbench.histogram>"))
		return 1
	}))

	t := L.CreateTable(0, 4)
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		size := L.CheckInt(1)
		lo := float64(L.CheckNumber(2))
		hi := float64(L.CheckNumber(3))
		if size < 2 || lo <= 0 || hi <= lo {
			L.ArgError(1, "histogram needs size >= 2 and 0 < range_min < range_max")
		}
		ud := L.NewUserData()
		ud.Value = engine.NewHistogram(size, lo, hi)
		L.SetMetatable(ud, mt)
		L.Push(ud)
		return 1
	}))
	return t
}

func checkHistogram(L *lua.LState) *engine.Histogram {
	ud := L.CheckUserData(1)
	if h, ok := ud.Value.(*engine.Histogram); ok {
		return h
	}
	L.ArgError(1, "sysbench.histogram expected")
	return nil
}

// histUpdate is h:update(value).
func histUpdate(L *lua.LState) int {
	h := checkHistogram(L)
	h.Update(float64(L.CheckNumber(2)))
	return 0
}

// histPrint is h:print(): the distribution in the --histogram layout.
func (st *state) histPrint(L *lua.LState) int {
	checkHistogram(L).Print(st.script.cfg.Out)
	return 0
}
