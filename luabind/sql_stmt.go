package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

type luaStmt struct {
	conn *luaConn
	// rawStmt is the driver's statement; only its connection's accessors
	// read it (see "Who may call the driver").
	rawStmt db.Stmt
	query   string
	nparams int // -1 when the driver cannot tell
	bound   []*luaParam
	args    []db.Value // reused between executes
	closed  bool
}

// luaParam is a bind parameter: its value lives here and is read at every
// execute, so param:set needs no bind_param again.
type luaParam struct {
	sqlType int
	maxLen  int
	val     db.Value
}

func checkStmt(L *lua.LState) *luaStmt {
	if s, ok := L.CheckUserData(1).Value.(*luaStmt); ok {
		return s
	}
	L.ArgError(1, "sql statement expected")
	return nil
}

func checkParam(L *lua.LState) *luaParam {
	if p, ok := L.CheckUserData(1).Value.(*luaParam); ok {
		return p
	}
	L.ArgError(1, "sql parameter expected")
	return nil
}

// SQL type numbers of sysbench.sql.type.
const (
	sqlTypeTinyint  = 1
	sqlTypeBigint   = 4
	sqlTypeFloat    = 5
	sqlTypeDouble   = 6
	sqlTypeChar     = 11
	sqlTypeVarchar  = 12
	sqlTypeSmallint = 2
	sqlTypeInt      = 3
)

// conPrepare is con:prepare(sql).
func (st *state) conPrepare(L *lua.LState) int {
	c := st.checkConn(L)
	query := L.CheckString(2)
	stmt, err := c.prepare(c.settle(L), query)
	if err != nil {
		st.abandonedError(L, err)
		st.prepareLost(L, c, err, query)
		st.logPrepareError(c, db.AsError(err), query)
		L.RaiseError("SQL API error")
	}
	L.Push(newObject(L, sqlStmtType, c.newStmt(stmt, query)))
	return 1
}

// prepareLost restarts the event, as a failed query does, when a worker's
// prepare lost its session with the code in the ignore list: a workload
// that prepares its statements again after a reconnect (the bundled
// ones, in before_restart_event) then survives an outage that strikes
// again while it does. Any other failed prepare is fatal, as in
// sysbench; it returns then.
func (st *state) prepareLost(L *lua.LState, c *luaConn, err error, query string) {
	if st.ev != nil && db.AsError(err).Kind == db.Reconnect {
		st.sqlError(L, c, err, query, false)
	}
}

// newStmt makes a statement the driver prepared on c a Lua statement of
// c's, closed with it.
func (c *luaConn) newStmt(stmt db.Stmt, query string) *luaStmt {
	s := &luaStmt{conn: c, rawStmt: stmt, query: query, nparams: -1}
	if pc, ok := stmt.(db.ParamCounter); ok {
		s.nparams = pc.NumParams()
	}
	c.stmts = append(c.stmts, s)
	return s
}

// stmtBindCreate is stmt:bind_create(type [, max_len]): integer types
// become an int64 parameter, FLOAT and DOUBLE a double, CHAR and VARCHAR
// a string of at most max_len bytes.
func (st *state) stmtBindCreate(L *lua.LState) int {
	checkStmt(L)
	typ := L.CheckInt(2)
	p := &luaParam{sqlType: typ}
	switch typ {
	case sqlTypeTinyint, sqlTypeSmallint, sqlTypeInt, sqlTypeBigint:
		p.val.Type = db.ParamInt
	case sqlTypeFloat, sqlTypeDouble:
		p.val.Type = db.ParamDouble
	case sqlTypeChar, sqlTypeVarchar:
		p.val.Type = db.ParamString
		p.maxLen = L.OptInt(3, 0)
		p.val.S = make([]byte, 0, p.maxLen)
	default:
		L.RaiseError("Unsupported argument type: %d", typ)
	}
	L.Push(newObject(L, sqlParamType, p))
	return 1
}

// stmtBindParam is stmt:bind_param(p1, p2, ...): binds the parameters in
// order. It returns 0, or 1 after logging a wrong count, as sysbench's.
func (st *state) stmtBindParam(L *lua.LState) int {
	s := checkStmt(L)
	n := L.GetTop() - 1
	if n == 0 {
		L.Push(lua.LNil)
		return 1
	}
	if s.nparams >= 0 && n != s.nparams {
		// Each of sysbench's drivers words it its own way.
		if s.conn.drv.Name() == "pgsql" {
			st.script.cfg.Log.Logf(engine.LevelAlert, "wrong number of parameters in prepared statement")
		} else {
			st.script.cfg.Log.Logf(engine.LevelFatal, "Wrong number of parameters to mysql_stmt_bind_param")
		}
		L.Push(lua.LNumber(1))
		return 1
	}
	s.bound = s.bound[:0]
	for i := 2; i <= L.GetTop(); i++ {
		p, ok := L.CheckUserData(i).Value.(*luaParam)
		if !ok {
			L.ArgError(i, "sql parameter expected")
		}
		s.bound = append(s.bound, p)
	}
	s.args = make([]db.Value, len(s.bound))
	if tb, ok := s.driverStmt(L).(db.TypeBinder); ok {
		types := make([]db.ParamType, len(s.bound))
		for i, p := range s.bound {
			types[i] = p.val.Type
		}
		ctx := s.conn.callContext()
		err := tb.BindTypes(ctx, types)
		s.conn.callEnd()
		if err != nil {
			st.abandonedError(L, err)
			st.logPrepareError(s.conn, db.AsError(err), s.query)
			L.Push(lua.LNumber(1))
			return 1
		}
	}
	L.Push(lua.LNumber(0))
	return 1
}

// stmtExecute is stmt:execute(): runs the statement with the parameters'
// current values.
func (st *state) stmtExecute(L *lua.LState) int {
	if r := st.runStmt(L, checkStmt(L)); r != nil {
		L.Push(r.object(L))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// runStmt executes s with its parameters' current values, counts it, and
// returns its open result, if any; errors are raised as sysbench raises
// them.
func (st *state) runStmt(L *lua.LState, s *luaStmt) *luaResult {
	return s.conn.open(L, st.execStmt(L, s))
}

// execStmt is runStmt without the result object: the caller owns the
// driver's result and closes it.
func (st *state) execStmt(L *lua.LState, s *luaStmt) db.Result {
	c := s.conn
	if c.closed || s.closed {
		st.script.cfg.Log.Logf(engine.LevelAlert, "attempt to use an already closed connection")
		L.RaiseError("SQL API error")
	}
	for i, p := range s.bound {
		s.args[i] = p.val
	}
	res, err := c.execute(s.settle(L), s.args)
	if err != nil {
		st.sqlError(L, c, err, s.query, true)
	}
	st.count(res)
	return res
}

// stmtExecuteRandom is stmt:_execute_random(count, size [, width]), the
// loop of oltp_common's execute_by_id and execute_range in one call: count
// times (as Lua's `for _ = 1, count`), the first bound parameter is set
// to sysbench.rand.default(1, size), the second, when width is given, to
// that id + width, and the statement runs. The draws, parameter values,
// counters, results and errors are those of the same loop written with
// rand.default, param:set and stmt:execute; what it saves is three
// interpreter calls and a result object per statement, most of the Lua
// side of an OLTP transaction. The workloads call it only while
// sysbench.rand.default is the built-in one.
func (st *state) stmtExecuteRandom(L *lua.LState) int {
	s := checkStmt(L)
	count := float64(L.CheckNumber(2))
	size := randArgUint32(L, 3)
	width, ranged := L.Get(4).(lua.LNumber)
	st.executeRandom(L, s, count, size, width, ranged)
	return 0
}

// executeRandom is the loop of stmt:_execute_random (see
// stmtExecuteRandom), with a second parameter at id + width when ranged.
func (st *state) executeRandom(L *lua.LState, s *luaStmt, count float64, size uint32, width lua.LNumber, ranged bool) {
	if len(s.bound) < 1 || ranged && len(s.bound) < 2 {
		L.RaiseError("_execute_random: the statement has too few bound parameters")
	}
	id := s.bound[0]
	var last *luaParam
	if ranged {
		last = s.bound[1]
	}
	if id.val.Type != db.ParamInt || last != nil && last.val.Type != db.ParamInt {
		L.RaiseError("_execute_random: the parameters must be integers")
	}
	for i := 1.0; i <= count; i++ {
		first := st.rand.Default(1, size)
		id.val.Null, id.val.I = false, int64(first)
		if last != nil {
			last.val.Null, last.val.I = false, int64(float64(first)+float64(width))
		}
		// The rows are skipped at once, as closing the result object at
		// the next statement would: no object per statement.
		if res := st.execStmt(L, s); res.Rows != nil {
			res.Rows.Close()
		}
	}
}

// stmtClose is stmt:close().
func (st *state) stmtClose(L *lua.LState) int {
	s := checkStmt(L)
	if !s.closed {
		s.closed = true
		s.driverStmt(L).Close()
		c := s.conn
		for i, other := range c.stmts {
			if other == s {
				c.stmts = append(c.stmts[:i], c.stmts[i+1:]...)
				break
			}
		}
	}
	L.Push(lua.LNumber(0))
	return 1
}

// paramSet is param:set(value): nil is SQL NULL; strings are cut to the
// parameter's max_len.
func paramSet(L *lua.LState) int {
	p := checkParam(L)
	v := L.Get(2)
	if v == lua.LNil {
		p.val.Null = true
		return 0
	}
	p.val.Null = false
	switch p.val.Type {
	case db.ParamInt:
		n, ok := v.(lua.LNumber)
		if !ok {
			L.RaiseError("cannot convert '%s' to 'int64_t'", v.Type().String())
		}
		p.val.I = int64(n)
	case db.ParamDouble:
		n, ok := v.(lua.LNumber)
		if !ok {
			L.RaiseError("cannot convert '%s' to 'double'", v.Type().String())
		}
		p.val.F = float64(n)
	default:
		var s string
		switch x := v.(type) {
		case lua.LString:
			s = string(x)
		case lua.LNumber:
			s = luaNumberString(float64(x))
		default:
			L.RaiseError("cannot convert '%s' to 'const char *'", v.Type().String())
		}
		if len(s) > p.maxLen {
			s = s[:p.maxLen]
		}
		p.val.S = append(p.val.S[:0], s...)
	}
	return 0
}

// paramSetRandStr is param:set_rand_str(fmt): the value is
// sysbench.rand.string(fmt), cut to max_len, without a Lua string.
func (st *state) paramSetRandStr(L *lua.LState) int {
	p := checkParam(L)
	tmpl := L.CheckString(2)
	if p.val.Type != db.ParamString {
		L.RaiseError("Unsupported argument type: %d", p.sqlType)
	}
	if len(tmpl) > p.maxLen {
		tmpl = tmpl[:p.maxLen]
	}
	p.val.Null = false
	p.val.S = st.rand.String(p.val.S[:0], tmpl)
	return 0
}
