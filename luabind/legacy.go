package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

// openLegacy defines the sysbench 0.5 globals that 1.0.20 still provides
// in every state (spec §3.9), which 1.0.20's own scripts use too
// (sb_rand in oltp_common's prepare, thread_id in bulk_insert).
func (st *state) openLegacy() {
	L := st.L
	setGlobal := func(name string, v lua.LValue) {
		if L.GetGlobal(name) == lua.LNil {
			L.SetGlobal(name, v)
		}
	}
	setGlobal("thread_id", lua.LNumber(st.tid))
	if st.script.cfg.TestName != "" {
		setGlobal("test", lua.LString(st.script.cfg.TestName))
	}
	sb := L.GetGlobal("sysbench").(*lua.LTable)
	rnd := sb.RawGetString("rand").(*lua.LTable)
	for alias, name := range legacyRandAliases {
		setGlobal(alias, rnd.RawGetString(name))
	}
	setGlobal("sb_rnd", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(uint32(st.rand.Uint64())))
		return 1
	}))
	setGlobal("sb_rand_uniq", L.NewFunction(sbRandUniq))
	setGlobal("mysql_table_engine", lua.LString("innodb"))
	setGlobal("myisam_max_rows", lua.LNumber(1000000))
	st.openLegacyDB(sb, setGlobal)
}

// legacyRandAliases are the 0.5 names of sysbench.rand functions.
var legacyRandAliases = map[string]string{
	"sb_rand":          "default",
	"sb_rand_uniform":  "uniform",
	"sb_rand_gaussian": "gaussian",
	"sb_rand_special":  "special",
	"sb_rand_str":      "string",
}

// legacyDBFuncs are the functions of sysbench.db, also globals as db_NAME.
var legacyDBFuncs = []string{"connect", "disconnect", "query", "bulk_insert_init", "bulk_insert_next",
	"bulk_insert_done", "prepare", "bind_param", "bind_result", "execute", "close", "store_results", "free_results"}

// legacyDBErrors are the error codes of sysbench.db, also globals.
var legacyDBErrors = map[string]int{
	"DB_ERROR_NONE":                dbErrorNone,
	"DB_ERROR_RESTART_TRANSACTION": dbErrorRestartTransaction,
	"DB_ERROR_FAILED":              dbErrorFailed,
}

// legacyNames are the names through which code reaches what openLegacy
// defines: a worker state opens it only for code that names one (libs.go).
var legacyNames = func() []string {
	names := []string{"thread_id", "test", "sb_rnd", "sb_rand_uniq", "mysql_table_engine", "myisam_max_rows", "db"}
	for alias := range legacyRandAliases {
		names = append(names, alias)
	}
	for _, name := range legacyDBFuncs {
		names = append(names, "db_"+name)
	}
	for name := range legacyDBErrors {
		names = append(names, name)
	}
	return names
}()

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

// Legacy error codes (DB_ERROR_* globals and sysbench.db.*).
const (
	dbErrorNone               = 0
	dbErrorRestartTransaction = 1
	dbErrorFailed             = 2
)

// openLegacyDB defines sysbench 0.5's db_* functions, their sysbench.db
// table and the DB_ERROR_* constants (spec §3.9). They work on one
// implicit connection per state, opened on first use.
func (st *state) openLegacyDB(sb *lua.LTable, setGlobal func(string, lua.LValue)) {
	L := st.L
	funcs := map[string]lua.LGFunction{
		"connect":          st.dbConnect,
		"disconnect":       st.dbDisconnect,
		"query":            st.dbQuery,
		"bulk_insert_init": st.dbBulkInit,
		"bulk_insert_next": st.dbBulkNext,
		"bulk_insert_done": st.dbBulkDone,
		"prepare":          st.dbPrepare,
		"bind_param":       st.dbBindParam,
		"bind_result":      st.dbBindResult,
		"execute":          st.dbExecute,
		"close":            st.dbClose,
		"store_results":    dbStoreResults,
		"free_results":     st.dbFreeResults,
	}
	dbt := L.CreateTable(0, len(funcs)+len(legacyDBErrors))
	for _, name := range legacyDBFuncs {
		f := L.NewFunction(funcs[name])
		dbt.RawSetString(name, f)
		setGlobal("db_"+name, f)
	}
	for name, v := range legacyDBErrors {
		dbt.RawSetString(name, lua.LNumber(v))
		setGlobal(name, lua.LNumber(v))
	}
	sb.RawSetString("db", dbt)

	stmtMT := newMetatable(L, "sysbench.stmt")
	stmtMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("<sql_statement>"))
		return 1
	}))
	rsMT := newMetatable(L, "sysbench.rs")
	rsMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("<sql_result>"))
		return 1
	}))
}

// legacyStmt is a db_prepare statement: the parameter table is kept by
// reference and read again at every db_execute.
type legacyStmt struct {
	stmt   *luaStmt
	params *lua.LTable
	args   []db.Value
}

// legacyResult is what db_execute returns.
type legacyResult struct {
	conn *luaConn
	res  *luaResult
}

// legacyConn returns the state's implicit connection, opening it (and the
// --db-driver driver) when needed.
func (st *state) legacyConn(L *lua.LState) *luaConn {
	if st.legacy != nil && !st.legacy.closed {
		return st.legacy
	}
	name := ""
	if v, ok := st.script.cfg.Options.Lookup("db-driver"); ok {
		name = v.String()
	}
	drv, err := st.script.drivers.get(st.script, name)
	if err != nil {
		st.script.cfg.Log.Logf(engine.LevelFatal, "%s", err)
		L.RaiseError("DB initialization failed")
	}
	st.script.sqlMode.Store(true)
	L.SetGlobal("db_driver", lua.LString(name))
	conn, err := st.connect(drv)
	if err != nil {
		st.abandonedError(L, err)
		st.logConnectError(drv, err)
		L.RaiseError("Failed to connect to the database")
	}
	st.legacy = st.newConn(L, drv, conn)
	return st.legacy
}

// dbConnect is db_connect().
func (st *state) dbConnect(L *lua.LState) int {
	st.legacyConn(L)
	return 0
}

// dbDisconnect is db_disconnect(): closes and forgets the connection.
func (st *state) dbDisconnect(L *lua.LState) int {
	if st.legacy != nil {
		st.legacy.close()
		st.legacy = nil
	}
	return 0
}

// dbQuery is db_query(sql): runs the query and frees any result at once.
// An ignorable error restarts the event ({errcode = 1}); a fatal one
// raises "db_query() failed".
func (st *state) dbQuery(L *lua.LState) int {
	c := st.legacyConn(L)
	query := L.CheckString(1)
	res, err := c.query(c.settle(L), query)
	if err != nil {
		st.legacyError(L, c, err, query, false, "db_query() failed")
	}
	st.count(res)
	if res.Rows != nil {
		res.Rows.Close()
	}
	return 0
}

// legacyError is the 0.5 API's error path: an ignorable error restarts
// the event; a fatal one is logged and raised as failMsg.
func (st *state) legacyError(L *lua.LState, c *luaConn, err error, query string, prepared bool, failMsg string) {
	desc, e, ignorable := st.sqlFailure(L, c, err, query, prepared)
	if !ignorable {
		st.logQueryError(c, e, query, prepared)
		L.RaiseError("%s", failMsg)
	}
	st.script.cfg.Log.Logf(engine.LevelDebug, "Ignored error encountered, restarting transaction")
	st.restartEvent(L, c, e, desc)
}

// legacyOpen returns the implicit connection for the bulk functions, which
// do not connect by themselves (except init).
func (st *state) legacyOpen(L *lua.LState) *luaConn {
	if st.legacy == nil || st.legacy.closed {
		L.RaiseError("Uninitialized database connection")
	}
	return st.legacy
}

// dbBulkInit is db_bulk_insert_init(sql); it connects if needed.
func (st *state) dbBulkInit(L *lua.LState) int {
	st.legacyConn(L).bulkInit(L.CheckString(1))
	return 0
}

// dbBulkNext is db_bulk_insert_next(row).
func (st *state) dbBulkNext(L *lua.LState) int {
	st.legacyOpen(L).bulkNext(L, L.CheckString(1))
	return 0
}

// dbBulkDone is db_bulk_insert_done().
func (st *state) dbBulkDone(L *lua.LState) int {
	st.legacyOpen(L).bulkDone(L)
	return 0
}

// dbPrepare is db_prepare(sql).
func (st *state) dbPrepare(L *lua.LState) int {
	c := st.legacyConn(L)
	query := L.CheckString(1)
	stmt, err := c.prepare(c.settle(L), query)
	if err != nil {
		st.abandonedError(L, err)
		st.logPrepareError(c, db.AsError(err), query)
		L.RaiseError("db_prepare() failed")
	}
	s := c.newStmt(stmt, query)
	ud := L.NewUserData()
	ud.Value = &legacyStmt{stmt: s}
	L.SetMetatable(ud, L.GetTypeMetatable("sysbench.stmt"))
	L.Push(ud)
	return 1
}

func checkLegacyStmt(L *lua.LState) *legacyStmt {
	if s, ok := L.CheckUserData(1).Value.(*legacyStmt); ok {
		return s
	}
	L.ArgError(1, "statement expected")
	return nil
}

// dbBindParam is db_bind_param(stmt, params): params maps positions to
// values (numbers bind as INT, strings as CHAR) and is read again at each
// db_execute, so scripts change it and execute again.
func (st *state) dbBindParam(L *lua.LState) int {
	s := checkLegacyStmt(L)
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		L.RaiseError("table was expected")
	}
	n := 0
	var bad lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		n++
		switch v.(type) {
		case lua.LNumber, lua.LString:
		default:
			bad = v
		}
	})
	if n == 0 {
		L.RaiseError("table is empty")
	}
	if bad != nil {
		L.RaiseError("Unsupported variable type: %s", bad.Type().String())
	}
	s.params = t
	return 0
}

// dbBindResult is db_bind_result(stmt, tbl): accepted and unused, as in
// sysbench's scripts.
func (st *state) dbBindResult(L *lua.LState) int {
	checkLegacyStmt(L)
	return 0
}

// dbExecute is db_execute(stmt): runs it with the current values of the
// bound table. An ignorable error restarts the event; a fatal one is only
// logged (as in sysbench) and a result is returned anyway.
func (st *state) dbExecute(L *lua.LState) int {
	s := checkLegacyStmt(L)
	c := s.stmt.conn
	s.args = s.args[:0]
	if s.params != nil {
		// Up to the statement's parameter count, so that a nil in the
		// last positions is sent as NULL rather than dropped.
		n := max(s.params.MaxN(), s.stmt.nparams)
		for i := 1; i <= n; i++ {
			v := s.params.RawGetInt(i)
			var a db.Value
			switch x := v.(type) {
			case lua.LNumber:
				a = db.Value{Type: db.ParamInt, I: int64(int32(int64(x)))}
			case lua.LString:
				a = db.Value{Type: db.ParamString, S: []byte(x)}
			default:
				a = db.Value{Type: db.ParamString, Null: true}
			}
			s.args = append(s.args, a)
		}
	}
	res, err := c.execute(s.stmt.settle(L), s.args)
	out := &legacyResult{conn: c}
	if err != nil {
		desc, e, ignorable := st.sqlFailure(L, c, err, s.stmt.query, true)
		if ignorable {
			st.script.cfg.Log.Logf(engine.LevelDebug, "Ignored error encountered, restarting transaction")
			st.restartEvent(L, c, e, desc)
		}
		st.logQueryError(c, e, s.stmt.query, true)
	} else {
		st.count(res)
		out.res = c.open(L, res)
	}
	ud := L.NewUserData()
	ud.Value = out
	L.SetMetatable(ud, L.GetTypeMetatable("sysbench.rs"))
	L.Push(ud)
	return 1
}

// dbClose is db_close(stmt).
func (st *state) dbClose(L *lua.LState) int {
	s := checkLegacyStmt(L)
	if !s.stmt.closed {
		s.stmt.closed = true
		s.stmt.driverStmt(L).Close()
	}
	return 0
}

// dbStoreResults is db_store_results(rs): results are always available.
func dbStoreResults(L *lua.LState) int { return 0 }

// dbFreeResults is db_free_results(rs).
func (st *state) dbFreeResults(L *lua.LState) int {
	r, ok := L.CheckUserData(1).Value.(*legacyResult)
	if !ok {
		L.ArgError(1, "result expected")
	}
	if r.res != nil && r.conn.cur == r.res {
		r.conn.release()
	}
	return 0
}
