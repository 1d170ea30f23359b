package luabind

import lua "github.com/yuin/gopher-lua"

// sqlByIDRunner is sysbench.sql._by_id_runner(kind, fallback [, ranged]),
// for the bundled oltp_common: it returns oltp_common's execute_<kind> in
// Go. That function runs the statement stmt[t][kind], with t drawn by
// sysbench.rand.uniform(1, --tables), --<kind> times, each time with a
// fresh id = sysbench.rand.default(1, --table-size) as its first
// parameter and, when ranged, id + --range_size - 1 as its second
// (stmt:_execute_random's loop). fallback is the same function written
// in Lua. As the Lua one does, the Go one reads the options and the two
// random functions at its first call, after thread_init; when a script
// has replaced either function, or an option is not a number, it calls
// fallback instead, at every call, so that the script's functions and
// Lua's errors are those of the Lua code.
//
// The statement it finds in stmt[t][kind] is kept and used again until
// it or its connection is closed: oltp_common closes every statement
// before it prepares them again (after a reconnect or a lost session),
// and a script that puts another statement there has to close the one it
// replaces.
//
// Why keep the statement: the two lookups per call, in each worker's own
// tables, missed the cache at nearly every load with many workers (7 % of
// the client's CPU samples for oltp_point_select at 64 threads on 2 CPUs).
//
// Why in Go: for oltp_point_select this function is the whole event, and
// in Go it costs no interpreter frame, no call of rand.uniform through the
// interpreter and no method lookup: about twice the point selects per
// second with --mysql-dry-run at 1 thread (docs/performance.md, "The
// bundled workloads' loops in Go").
func (st *state) sqlByIDRunner(L *lua.LState) int {
	r := &byIDRunner{st: st, kind: L.CheckString(1), fallback: L.CheckFunction(2), ranged: L.OptBool(3, false)}
	r.fn = L.NewFunction(r.run)
	L.Push(r.fn)
	return 1
}

// byIDRunner is a function sysbench.sql._by_id_runner returned (see
// sqlByIDRunner).
type byIDRunner struct {
	st       *state
	fn       *lua.LFunction // the function itself, as state.ranNoLua names it
	kind     string
	fallback *lua.LFunction
	ranged   bool

	// Read at the first call (see byIDOptions).
	started, native bool
	tables, size    uint32
	count           float64
	width           lua.LNumber
	found           []*luaStmt // found[t-1]: stmt[t][kind] while it and its connection stay open
}

func (r *byIDRunner) run(L *lua.LState) int {
	if !r.started {
		r.started = true
		r.tables, r.size, r.count, r.width, r.native = r.st.byIDOptions(L, r.kind, r.ranged)
		if r.native && r.tables <= maxFoundByID {
			r.found = make([]*luaStmt, r.tables)
		}
	}
	if !r.native {
		L.Push(r.fallback)
		L.Call(0, 0)
		return 0
	}
	t := r.st.rand.Uniform(1, r.tables)
	r.st.executeRandom(L, r.statement(L, t), r.count, r.size, r.width, r.ranged)
	// A statement that fails raises a Lua error (after the
	// sql_error_ignorable hook, if any), so returning here means no Lua
	// code ran.
	r.st.ranNoLua = r.fn
	return 0
}

// statement is stmt[t][kind]: the one found before while it and its
// connection are open, else looked up (see byIDStmt).
func (r *byIDRunner) statement(L *lua.LState, t uint32) *luaStmt {
	if int(t) > len(r.found) {
		return byIDStmt(L, t, r.kind)
	}
	s := r.found[t-1]
	if s == nil || s.closed || s.conn.closed {
		s = byIDStmt(L, t, r.kind)
		r.found[t-1] = s
	}
	return s
}

// maxFoundByID is the largest --tables for which a by-id runner keeps the
// statement it found per table (see sqlByIDRunner): a pointer per table
// and runner in every worker, which with thousands of tables and of
// workers would add up; beyond it every call looks its statement up.
const maxFoundByID = 256

// byIDStmt is stmt[t][kind] as a statement, or a Lua error naming the
// entry.
func byIDStmt(L *lua.LState, t uint32, kind string) *luaStmt {
	row := indexInt(L, L.GetGlobal("stmt"), int(t))
	var s *luaStmt
	if ud, ok := L.GetField(row, kind).(*lua.LUserData); ok {
		s, _ = ud.Value.(*luaStmt)
	}
	if s == nil {
		L.RaiseError("stmt[%d].%s is not a prepared statement", t, kind)
	}
	return s
}

// indexInt is v[i] as Lua indexes it. The array part of a table is read
// without boxing i (converting a number to an LValue allocates); anything
// else goes through the interpreter's indexing, metamethods and errors
// included.
func indexInt(L *lua.LState, v lua.LValue, i int) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if e := t.RawGetInt(i); e != lua.LNil {
			return e
		}
	}
	return L.GetTable(v, lua.LNumber(i))
}

// byIDOptions reads what sqlByIDRunner's function needs at its first
// call: --tables, --table-size and --<kind> from sysbench.opt, for a
// ranged runner --range_size less one as the width, and whether
// sysbench.rand.uniform and .default are still the built-in ones; native
// is false when the Lua function has to run instead.
func (st *state) byIDOptions(L *lua.LState, kind string, ranged bool) (tables, size uint32, count float64, width lua.LNumber, native bool) {
	sb := L.GetGlobal("sysbench")
	rand := L.GetField(sb, "rand")
	if L.GetField(rand, "uniform") != st.builtinUniform || L.GetField(rand, "default") != st.builtinDefault {
		return 0, 0, 0, 0, false
	}
	opt := L.GetField(sb, "opt")
	t, ok1 := L.GetField(opt, "tables").(lua.LNumber)
	n, ok2 := L.GetField(opt, "table_size").(lua.LNumber)
	c, ok3 := L.GetField(opt, kind).(lua.LNumber)
	if !ok1 || !ok2 || !ok3 {
		return 0, 0, 0, 0, false
	}
	if ranged {
		r, ok := L.GetField(opt, "range_size").(lua.LNumber)
		if !ok {
			return 0, 0, 0, 0, false
		}
		width = r - 1
	}
	return randCUint32(float64(t)), randCUint32(float64(n)), float64(c), width, true
}
