package luabind

import (
	"fmt"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

// Metatable names of the sysbench.sql objects.
const (
	sqlDriverType = "sysbench.sql_driver"
	sqlConnType   = "sysbench.sql_connection"
	sqlStmtType   = "sysbench.sql_statement"
	sqlResultType = "sysbench.sql_result"
	sqlParamType  = "sysbench.sql_param"
)

// drivers creates each database driver once per process, the first time a
// script asks for it: that is when sysbench validates the db options.
type drivers struct {
	mu  sync.Mutex
	drv map[string]db.Driver
}

func (d *drivers) get(s *Script, name string) (db.Driver, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if drv, ok := d.drv[name]; ok {
		return drv, nil
	}
	f, ok := db.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("invalid database driver name: '%s'", name)
	}
	drv, err := f.New(s.cfg.Options, s.cfg.Log)
	if err != nil {
		return nil, err
	}
	if d.drv == nil {
		d.drv = map[string]db.Driver{}
	}
	d.drv[name] = drv
	return drv, nil
}

// used returns the driver named name if a script created it, else any
// driver one created, else nil.
func (d *drivers) used(name string) db.Driver {
	d.mu.Lock()
	defer d.mu.Unlock()
	if drv, ok := d.drv[name]; ok {
		return drv
	}
	for _, drv := range d.drv {
		return drv
	}
	return nil
}

// defaultDriverName is --db-driver's value.
func (s *Script) defaultDriverName() string {
	if v, ok := s.cfg.Options.Lookup("db-driver"); ok {
		return v.String()
	}
	return ""
}

// newSQLTable builds sysbench.sql (spec §3.5): the constants, driver(),
// and the metatables of drivers, connections, statements, parameters and
// results.
func (st *state) newSQLTable() *lua.LTable {
	L := st.L
	t := L.CreateTable(0, 4)
	t.RawSetString("type", sqlEnum(L, "NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"TIME", "DATE", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"))
	t.RawSetString("error", sqlEnum(L, "NONE", "IGNORABLE", "FATAL"))
	t.RawSetString("driver", L.NewFunction(st.sqlDriver))
	// sbgo's own, for the bundled workloads (oltp_common.lua).
	t.RawSetString("_by_id_runner", L.NewFunction(st.sqlByIDRunner))
	st.newSQLMetatables()
	st.newResultMetatable()
	return t
}

// sqlEnum is a table of constants numbered from 0 in the order given, as
// sysbench.sql.type and sysbench.sql.error are.
func sqlEnum(L *lua.LState, names ...string) *lua.LTable {
	t := L.CreateTable(0, 4)
	for i, name := range names {
		t.RawSetString(name, lua.LNumber(i))
	}
	return t
}

// newSQLMetatables registers the metatables of drivers, connections,
// statements and parameters, whose fields are all methods.
func (st *state) newSQLMetatables() {
	st.newSQLMetatable(sqlDriverType, "<sql_driver>", map[string]lua.LGFunction{
		"connect": st.drvConnect,
		"name":    drvName,
	})
	conn := st.newSQLMetatable(sqlConnType, "<sql_connection>", map[string]lua.LGFunction{
		"query":            st.conQuery,
		"query_row":        st.conQueryRow,
		"bulk_insert_init": st.conBulkInit,
		"bulk_insert_next": st.conBulkNext,
		"bulk_insert_done": st.conBulkDone,
		"prepare":          st.conPrepare,
		"disconnect":       st.conDisconnect,
		"reconnect":        st.conReconnect,
		"more_results":     st.conMoreResults,
		"next_result":      st.conNextResult,
		"check_error":      conCheckError,
		// sbgo's own, for the bundled workloads (oltp_common.lua).
		"_bulk_insert_random_rows": st.conBulkInsertRandomRows,
	})
	stmt := st.newSQLMetatable(sqlStmtType, "<sql_statement>", map[string]lua.LGFunction{
		"bind_create": st.stmtBindCreate,
		"bind_param":  st.stmtBindParam,
		"execute":     st.stmtExecute,
		"close":       st.stmtClose,
		// sbgo's own, for the bundled workloads (oltp_common.lua).
		"_execute_random": st.stmtExecuteRandom,
	})
	st.newSQLMetatable(sqlParamType, "<sql_param>", map[string]lua.LGFunction{
		"set":          paramSet,
		"set_rand_str": st.paramSetRandStr,
	})
	for _, mt := range []*lua.LTable{newMetatable(st.L, sqlDriverType), conn, stmt} {
		mt.RawSetString("__metatable", lua.LString(protectedMetatable))
	}
	st.setMethods(methodsConn, conn, conn.RawGetString("__index").(*lua.LTable).RawGetString,
		"query", "query_row", "bulk_insert_next", "prepare", "bulk_insert_init", "bulk_insert_done",
		"disconnect", "reconnect", "more_results", "next_result", "check_error", "_bulk_insert_random_rows")
	st.setMethods(methodsStmt, stmt, stmt.RawGetString("__index").(*lua.LTable).RawGetString,
		"execute", "bind_param", "bind_create", "close", "_execute_random")
}

// newResultMetatable registers the metatable of results, which have
// fields (nrows, nfields) besides their methods.
func (st *state) newResultMetatable() {
	L := st.L
	rmt := st.newSQLMetatable(sqlResultType, "<sql_result>", nil)
	rmethods := map[string]*lua.LFunction{
		"fetch_row": L.NewFunction(resFetchRow),
		"free":      L.NewFunction(st.resFree),
	}
	rmt.RawSetString("__metatable", lua.LString(protectedMetatable))
	st.setMethods(methodsResult, rmt, func(name string) lua.LValue { return rmethods[name] }, "fetch_row", "free")
	rmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		r := checkResult(L, 1)
		switch key := L.CheckString(2); key {
		case "nrows":
			L.Push(lua.LNumber(r.numRows(L)))
		case "nfields":
			L.Push(lua.LNumber(r.nfields))
		default:
			if fn, ok := rmethods[key]; ok {
				L.Push(fn)
			} else {
				L.Push(lua.LNil)
			}
		}
		return 1
	}))
}

// newSQLMetatable registers a metatable whose __index is methods and
// whose __tostring is name, as sysbench's objects print.
func (st *state) newSQLMetatable(typeName, name string, methods map[string]lua.LGFunction) *lua.LTable {
	L := st.L
	mt := newMetatable(L, typeName)
	if methods != nil {
		mt.RawSetString("__index", L.SetFuncs(L.CreateTable(0, len(methods)), methods))
	}
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(name))
		return 1
	}))
	return mt
}

func newObject(L *lua.LState, typeName string, v any) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = v
	L.SetMetatable(ud, L.GetTypeMetatable(typeName))
	return ud
}

type luaDriver struct {
	name string
	drv  db.Driver
}

// sqlDriver is sysbench.sql.driver([name]).
func (st *state) sqlDriver(L *lua.LState) int {
	name := L.OptString(1, "")
	if name == "" {
		name = st.script.defaultDriverName()
	}
	drv, err := st.script.drivers.get(st.script, name)
	if err != nil {
		st.script.cfg.Log.Logf(engine.LevelFatal, "%s", err)
		L.RaiseError("failed to initialize the DB driver")
	}
	// Creating a driver, anywhere, switches the reports to the SQL style.
	st.script.sqlMode.Store(true)
	L.Push(newObject(L, sqlDriverType, &luaDriver{name: name, drv: drv}))
	return 1
}

func checkDriver(L *lua.LState) *luaDriver {
	if d, ok := L.CheckUserData(1).Value.(*luaDriver); ok {
		return d
	}
	L.ArgError(1, "sql driver expected")
	return nil
}

func drvName(L *lua.LState) int {
	L.Push(lua.LString(checkDriver(L).name))
	return 1
}

// drvConnect is drv:connect(): a new, separate server session.
func (st *state) drvConnect(L *lua.LState) int {
	d := checkDriver(L)
	conn, err := st.connect(d.drv)
	if err != nil {
		st.abandonedError(L, err)
		st.logConnectError(d.drv, err)
		L.RaiseError("connection creation failed")
	}
	L.Push(st.newConn(L, d.drv, conn).ud)
	return 1
}

// connectTimeout bounds one connection attempt (a connect, or one
// attempt of a reconnect), so that a server that never answers cannot
// hold a worker for ever; the drivers set no such bound of their own.
const connectTimeout = time.Minute

// connect opens a session of drv.
func (st *state) connect(drv db.Driver) (db.Conn, error) {
	ctx, cancel := st.connectContext()
	defer cancel()
	return drv.Connect(ctx)
}
