package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// openLegacy defines the sysbench 0.5 globals that 1.0.20 still provides
// in every state (spec §3.9), which 1.0.20's own scripts use too
// (sb_rand in oltp_common's prepare, thread_id in bulk_insert).
func (st *state) openLegacy() {
	L := st.L
	L.SetGlobal("thread_id", lua.LNumber(st.tid))
	if st.script.cfg.TestName != "" {
		L.SetGlobal("test", lua.LString(st.script.cfg.TestName))
	}
	sb := L.GetGlobal("sysbench").(*lua.LTable)
	rnd := sb.RawGetString("rand").(*lua.LTable)
	for alias, name := range map[string]string{
		"sb_rand":          "default",
		"sb_rand_uniform":  "uniform",
		"sb_rand_gaussian": "gaussian",
		"sb_rand_special":  "special",
		"sb_rand_str":      "string",
	} {
		L.SetGlobal(alias, rnd.RawGetString(name))
	}
	L.SetGlobal("sb_rnd", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(uint32(st.rand.Uint64())))
		return 1
	}))
	L.SetGlobal("sb_rand_uniq", L.NewFunction(sbRandUniq))
	if L.GetGlobal("mysql_table_engine") == lua.LNil {
		L.SetGlobal("mysql_table_engine", lua.LString("innodb"))
	}
	L.SetGlobal("myisam_max_rows", lua.LNumber(1000000))
}

// sbRandUniq is sb_rand_uniq([a [, b]]): values of sysbench.rand.unique()
// until one falls in [a, b] (a defaults to 0, b to 4294967295).
func sbRandUniq(L *lua.LState) int {
	a := uint32(L.OptNumber(1, 0))
	b := uint32(L.OptNumber(2, 4294967295))
	for {
		v := randUnique()
		if v >= a && v <= b {
			L.Push(lua.LNumber(v))
			return 1
		}
	}
}
