package luabind

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

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

// bulkInsertMax is the largest statement a bulk insert sends (512 KiB);
// rows are flushed before the buffer would grow past it.
const bulkInsertMax = 524288

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

// newSQLTable builds sysbench.sql (spec §3.5): the constants, driver(),
// and the metatables of drivers, connections, statements, parameters and
// results.
func (st *state) newSQLTable() *lua.LTable {
	L := st.L
	t := L.CreateTable(0, 4)
	types := L.CreateTable(0, 4)
	for i, name := range []string{"NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"TIME", "DATE", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"} {
		types.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("type", types)
	errs := L.CreateTable(0, 4)
	for i, name := range []string{"NONE", "IGNORABLE", "FATAL"} {
		errs.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("error", errs)
	t.RawSetString("driver", L.NewFunction(st.sqlDriver))
	// sbgo's own, for the bundled workloads (oltp_common.lua).
	t.RawSetString("_by_id_runner", L.NewFunction(st.sqlByIDRunner))

	st.newSQLMetatable(sqlDriverType, "<sql_driver>", map[string]lua.LGFunction{
		"connect": st.drvConnect,
		"name":    drvName,
	})
	st.newSQLMetatable(sqlConnType, "<sql_connection>", map[string]lua.LGFunction{
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
	st.newSQLMetatable(sqlStmtType, "<sql_statement>", map[string]lua.LGFunction{
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
	// A result has fields (nrows, nfields) besides its methods.
	rmt := st.newSQLMetatable(sqlResultType, "<sql_result>", nil)
	rmethods := map[string]*lua.LFunction{
		"fetch_row": L.NewFunction(resFetchRow),
		"free":      L.NewFunction(st.resFree),
	}
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
	return t
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

// ---- driver ----

type luaDriver struct {
	name string
	drv  db.Driver
}

// sqlDriver is sysbench.sql.driver([name]).
func (st *state) sqlDriver(L *lua.LState) int {
	name := L.OptString(1, "")
	if name == "" {
		if v, ok := st.script.cfg.Options.Lookup("db-driver"); ok {
			name = v.String()
		}
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
	conn, err := d.drv.Connect(st.connectContext())
	if err != nil {
		st.logConnectError(d.drv, err)
		L.RaiseError("connection creation failed")
	}
	c := &luaConn{st: st, drv: d.drv, rawConn: conn}
	c.ud = newObject(L, sqlConnType, c)
	st.conns = append(st.conns, c)
	L.Push(c.ud)
	return 1
}

// connectContext bounds a connection attempt.
func (st *state) connectContext() context.Context {
	return context.Background()
}

func (st *state) logConnectError(drv db.Driver, err error) {
	log := st.script.cfg.Log
	if t, ok := drv.(db.ErrorTexter); ok {
		for _, line := range t.ConnectErrorText(err) {
			log.Logf(engine.LevelFatal, "%s", line)
		}
		return
	}
	e := db.AsError(err)
	log.Logf(engine.LevelFatal, "error %d: %s", e.Errno, e.Msg)
}

// ---- connection ----

// luaConn is a Lua connection object: one db.Conn, its current result and
// its bulk-insert buffer.
type luaConn struct {
	st  *state
	drv db.Driver
	// rawConn is the driver's session. Only the accessors below read it
	// (see "Who may call the driver").
	rawConn db.Conn
	ud      *lua.LUserData
	closed  bool
	cur     *luaResult // the open result, invalid after the next operation
	stmts   []*luaStmt

	bulkActive bool
	bulkRows   int
	bulk       []byte
	bulkPrefix int // length of the INSERT prefix in bulk

	// bulkSent is the buffer of the last INSERT sent, swapped with bulk at
	// each flush: the statement goes to the driver as a string over the
	// buffer, not a copy. Why: a fresh 512 KiB string per flush made
	// prepare fault in new heap pages for most of its INSERTs (10 x 100 000
	// rows: 21 800 page faults against sysbench's 1 400, a quarter of
	// sbgo's client CPU). The buffer is reused only once its INSERT has
	// returned; drivers keep no reference to a query after the call (see
	// db.Conn.Query), and sqlFailure copies the one an error keeps.
	bulkSent []byte

	// bulkInFlight receives the outcome of the multi-row INSERT that the
	// last flush sent, while the script builds the next one (nil when
	// nothing is in flight); see flushBulk.
	bulkInFlight chan bulkOutcome
}

// bulkOutcome is what a pipelined INSERT returned.
type bulkOutcome struct {
	res   db.Result
	err   error
	query string
}

// Who may call the driver
//
// A connection's driver session is used by one goroutine at a time, but
// not always the worker's: a pipelined bulk-insert flush (see flushBulk)
// hands the session to a goroutine of its own for one INSERT, and takes
// it back when the next operation receives the INSERT's outcome from
// bulkInFlight. That receive is what orders the flush's use of the
// session before the worker's; a driver call made before it races with
// the INSERT, on the wire and in the driver's buffers.
//
// So no code reads rawConn or a statement's rawStmt except the accessors
// here, and each of them receives the outcome first: driverConn and
// driverStmt raise a failed INSERT's error as a synchronous flush would
// have; settle also frees the open result, as a new query or execute
// does; idleConn and idleStmt forget the outcome, for the paths that
// close or replace the session and raise nothing. flushBulk itself takes
// the session it hands over through driverConn, so at most one INSERT is
// in flight, and the goroutine it starts uses the session for that
// INSERT only.

// driverConn returns c's session for a driver call, once no INSERT is in
// flight on it.
func (c *luaConn) driverConn(L *lua.LState) db.Conn {
	c.awaitBulk(L)
	return c.rawConn
}

// idleConn is driverConn for closing and reconnecting: the outcome of an
// INSERT in flight is forgotten.
func (c *luaConn) idleConn() db.Conn {
	c.discardBulk()
	return c.rawConn
}

// settle returns c's session for a new query: no INSERT in flight and the
// open result set freed.
func (c *luaConn) settle(L *lua.LState) db.Conn {
	conn := c.driverConn(L)
	c.release()
	return conn
}

// driverStmt returns s's driver statement for a call, once no INSERT is
// in flight on its connection.
func (s *luaStmt) driverStmt(L *lua.LState) db.Stmt {
	s.conn.driverConn(L)
	return s.rawStmt
}

// idleStmt is driverStmt for closing: the outcome of an INSERT in flight
// is forgotten.
func (s *luaStmt) idleStmt() db.Stmt {
	s.conn.idleConn()
	return s.rawStmt
}

// settle returns s's driver statement for an execute, with its
// connection settled.
func (s *luaStmt) settle(L *lua.LState) db.Stmt {
	s.conn.settle(L)
	return s.rawStmt
}

func (st *state) checkConn(L *lua.LState) *luaConn {
	c, ok := L.CheckUserData(1).Value.(*luaConn)
	if !ok {
		L.ArgError(1, "sql connection expected")
	}
	if c.closed {
		st.script.cfg.Log.Logf(engine.LevelAlert, "attempt to use an already closed connection")
		L.RaiseError("SQL API error")
	}
	return c
}

// release closes the connection's open result, as any new operation on
// the connection does.
func (c *luaConn) release() {
	if c.cur != nil {
		c.cur.close()
		c.cur = nil
	}
}

// count adds one to the counter sysbench's drivers choose by result: a
// result set is a read, changed rows a write, anything else other.
func (st *state) count(res db.Result) {
	if st.ev == nil {
		return
	}
	switch {
	case res.Rows != nil:
		st.ev.Count(engine.CounterRead)
	case res.Affected > 0:
		st.ev.Count(engine.CounterWrite)
	default:
		st.ev.Count(engine.CounterOther)
	}
}

// run executes query as a text statement, counts it and pushes its
// result object (or nil); errors follow sysbench's check_error.
func (c *luaConn) run(L *lua.LState, query string) *luaResult {
	res, err := c.settle(L).Query(context.Background(), query)
	if err != nil {
		c.st.sqlError(L, c, err, query, false)
	}
	c.st.count(res)
	return c.open(L, res)
}

// open makes res the connection's current result.
func (c *luaConn) open(L *lua.LState, res db.Result) *luaResult {
	if res.Rows == nil {
		return nil
	}
	r := &luaResult{conn: c, rows: res.Rows, nfields: res.Rows.NumFields()}
	c.cur = r
	return r
}

// conQuery is con:query(sql): a result object for a result set, nothing
// (nil) otherwise.
func (st *state) conQuery(L *lua.LState) int {
	c := st.checkConn(L)
	r := c.run(L, L.CheckString(2))
	if r == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(r.object(L))
	return 1
}

// conQueryRow is con:query_row(sql): the first row's columns as strings
// (nil for NULL), or nil when there is no row.
func (st *state) conQueryRow(L *lua.LState) int {
	c := st.checkConn(L)
	r := c.run(L, L.CheckString(2))
	if r == nil {
		L.Push(lua.LNil)
		return 1
	}
	row, ok := r.next(L)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	for _, v := range row {
		L.Push(v)
	}
	return len(row)
}

// conBulkInit is con:bulk_insert_init(prefix).
func (st *state) conBulkInit(L *lua.LState) int {
	st.checkConn(L).bulkInit(L.CheckString(2))
	L.Push(lua.LTrue)
	return 1
}

func (c *luaConn) bulkInit(prefix string) {
	c.bulk = append(c.bulk[:0], prefix...)
	c.bulkPrefix = len(prefix)
	c.bulkRows = 0
	c.bulkActive = true
}

// conBulkNext is con:bulk_insert_next(row).
func (st *state) conBulkNext(L *lua.LState) int {
	st.checkConn(L).bulkNext(L, L.CheckString(2))
	L.Push(lua.LTrue)
	return 1
}

// conBulkInsertRandomRows is con:_bulk_insert_random_rows(count, size,
// c_template, pad_template [, first_id]), the row loop of oltp_common's
// prepare in one call: count times, it draws
// c = sysbench.rand.string(c_template), pad =
// sysbench.rand.string(pad_template) and k = sysbench.rand.default(1,
// size), in that order, and adds the row "(id, k, 'c', 'pad')", with id
// counting up from first_id, or "(k, 'c', 'pad')" without first_id,
// through con:bulk_insert_next. The draws and rows are those of the Lua
// loop; what it saves is five interpreter calls and four strings per row,
// which made prepare's client CPU twice sysbench's. oltp_common calls it
// only while the functions of that loop are the built-in ones.
func (st *state) conBulkInsertRandomRows(L *lua.LState) int {
	c := st.checkConn(L)
	count := float64(L.CheckNumber(2))
	size := randArgUint32(L, 3)
	cTemplate, padTemplate := L.CheckString(4), L.CheckString(5)
	firstID, numbered := L.Get(6).(lua.LNumber)
	var row, cValue, padValue []byte
	for i := 0.0; i+1 <= count; i++ { // Lua's for i = 1, count
		cValue = st.rand.String(cValue[:0], cTemplate)
		padValue = st.rand.String(padValue[:0], padTemplate)
		k := st.rand.Default(1, size)
		row = append(row[:0], '(')
		if numbered {
			row = strconv.AppendInt(row, int64(float64(firstID)+i), 10)
			row = append(row, ", "...)
		}
		row = strconv.AppendUint(row, uint64(k), 10)
		row = append(row, ", '"...)
		row = append(row, cValue...)
		row = append(row, "', '"...)
		row = append(row, padValue...)
		row = append(row, "')"...)
		// bulkNext copies the row and keeps no reference to it.
		c.bulkNext(L, unsafe.String(unsafe.SliceData(row), len(row)))
	}
	return 0
}

// bulkNext adds a row: rows are joined with ',' and no space after the
// prefix; the buffer is sent first when the row would make it larger than
// 512 KiB.
func (c *luaConn) bulkNext(L *lua.LState, row string) {
	log := c.st.script.cfg.Log
	if !c.bulkActive {
		log.Logf(engine.LevelAlert, "attempt to call bulk_insert_next() before bulk_insert_init()")
		L.RaiseError("db_bulk_insert_next() failed")
	}
	if c.bulkPrefix+len(row) > bulkInsertMax {
		log.Logf(engine.LevelFatal, "Query length exceeds the maximum value (%d), aborting", bulkInsertMax)
		L.RaiseError("db_bulk_insert_next() failed")
	}
	if c.bulkRows > 0 && len(c.bulk)+1+len(row) > bulkInsertMax {
		c.flushBulk(L, false)
	}
	if c.bulkRows > 0 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, row...)
	c.bulkRows++
}

// flushBulk sends the rows buffered so far as one INSERT.
//
// Outside the run command (prepare and other commands, where no event is
// timed) a flush that is not the last one is pipelined: the INSERT goes to
// the server from another goroutine while the script builds the next one,
// so that generating rows, which costs the interpreter more client CPU
// than it costs sysbench's, overlaps the server's work instead of adding
// to it. At most one INSERT is in flight; the next operation on the
// connection waits for it and raises its error, if any, as a synchronous
// flush would have (see "Who may call the driver"). In the run command flushes stay
// synchronous, so that an event's latency includes its INSERT as in
// sysbench.
func (c *luaConn) flushBulk(L *lua.LState, last bool) {
	conn := c.driverConn(L)
	sent := c.bulk
	query := unsafe.String(unsafe.SliceData(sent), len(sent))
	c.bulk = append(c.bulkSent[:0], sent[:c.bulkPrefix]...)
	c.bulkSent = sent
	c.bulkRows = 0
	if last || c.st.script.cfg.Command == "run" {
		c.run(L, query)
		c.release()
		return
	}
	c.release()
	done := make(chan bulkOutcome, 1)
	c.bulkInFlight = done
	go func() {
		res, err := conn.Query(context.Background(), query)
		if err == nil && res.Rows != nil {
			res.Rows.Close()
			res.Rows = nil
		}
		done <- bulkOutcome{res: res, err: err, query: query}
	}()
}

// awaitBulk waits for a pipelined INSERT still in flight, then counts it
// or raises its error as a synchronous one would have been.
func (c *luaConn) awaitBulk(L *lua.LState) {
	if c.bulkInFlight == nil {
		return
	}
	out := <-c.bulkInFlight
	c.bulkInFlight = nil
	if out.err != nil {
		c.st.sqlError(L, c, out.err, out.query, false)
		return
	}
	c.st.count(out.res)
}

// discardBulk waits for a pipelined INSERT and forgets its outcome: the
// connection is being closed.
func (c *luaConn) discardBulk() {
	if c.bulkInFlight != nil {
		<-c.bulkInFlight
		c.bulkInFlight = nil
	}
}

// conBulkDone is con:bulk_insert_done(): sends what remains.
func (st *state) conBulkDone(L *lua.LState) int {
	st.checkConn(L).bulkDone(L)
	L.Push(lua.LTrue)
	return 1
}

func (c *luaConn) bulkDone(L *lua.LState) {
	if c.bulkActive && c.bulkRows > 0 {
		c.flushBulk(L, true)
	}
	c.awaitBulk(L)
	c.bulkActive = false
}

// conPrepare is con:prepare(sql).
func (st *state) conPrepare(L *lua.LState) int {
	c := st.checkConn(L)
	query := L.CheckString(2)
	stmt, err := c.settle(L).Prepare(context.Background(), query, nil)
	if err != nil {
		st.logPrepareError(c, db.AsError(err), query)
		L.RaiseError("SQL API error")
	}
	s := &luaStmt{conn: c, rawStmt: stmt, query: query}
	if pc, ok := stmt.(db.ParamCounter); ok {
		s.nparams = pc.NumParams()
	} else {
		s.nparams = -1
	}
	c.stmts = append(c.stmts, s)
	L.Push(newObject(L, sqlStmtType, s))
	return 1
}

// conDisconnect is con:disconnect().
func (st *state) conDisconnect(L *lua.LState) int {
	c, ok := L.CheckUserData(1).Value.(*luaConn)
	if !ok {
		L.ArgError(1, "sql connection expected")
	}
	if c.closed {
		st.script.cfg.Log.Logf(engine.LevelAlert, "attempt to close an already closed connection")
		L.Push(lua.LTrue)
		return 1
	}
	c.close()
	L.Push(lua.LTrue)
	return 1
}

func (c *luaConn) close() {
	if c.closed {
		return
	}
	conn := c.idleConn()
	c.release()
	for _, s := range c.stmts {
		s.idleStmt().Close()
	}
	c.stmts = nil
	conn.Close()
	c.closed = true
}

// conReconnect is con:reconnect(): a new session with the same
// parameters; counts one reconnect.
func (st *state) conReconnect(L *lua.LState) int {
	c := st.checkConn(L)
	c.discardBulk()
	c.release()
	if err := st.reconnect(c); err != nil {
		st.logConnectError(c.drv, err)
		L.RaiseError("SQL API error")
	}
	if st.ev != nil {
		st.ev.Count(engine.CounterReconnect)
	}
	L.Push(lua.LTrue)
	return 1
}

// reconnect reopens c's session, retrying with back-off until it
// succeeds, the run stops, or (outside a run) a minute has passed.
func (st *state) reconnect(c *luaConn) error {
	c.stmts = nil // statements of the old session are gone
	delay := time.Millisecond
	deadline := time.Now().Add(time.Minute)
	for {
		err := c.idleConn().Reconnect(context.Background())
		if err == nil {
			return nil
		}
		if st.ev != nil && st.ev.Stopping() || st.ev == nil && time.Now().After(deadline) {
			return err
		}
		if st.ev != nil {
			select {
			case <-st.ev.Done():
				return err
			case <-time.After(delay):
			}
		} else {
			time.Sleep(delay)
		}
		delay = min(delay*2, time.Second)
	}
}

// conMoreResults is con:more_results() (sysbench master).
func (st *state) conMoreResults(L *lua.LState) int {
	c := st.checkConn(L)
	_, ok := c.driverConn(L).(db.MoreResults)
	L.Push(lua.LBool(ok && c.cur != nil))
	return 1
}

// conNextResult is con:next_result() (sysbench master): the next result
// of a multi-result query, counted like a query.
func (st *state) conNextResult(L *lua.LState) int {
	c := st.checkConn(L)
	mr, ok := c.driverConn(L).(db.MoreResults)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	// Detach the current result without closing the driver's rows: closing
	// them would discard the results still pending.
	if c.cur != nil {
		c.cur.closed = true
		c.cur = nil
	}
	res, ok, err := mr.NextResult(context.Background())
	if err != nil {
		st.sqlError(L, c, err, "", false)
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	st.count(res)
	if r := c.open(L, res); r != nil {
		L.Push(r.object(L))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// conCheckError is con:check_error(rs, query), sysbench's internal helper:
// errors are raised where they happen in sbgo, so it returns rs.
func conCheckError(L *lua.LState) int {
	L.Push(L.Get(2))
	return 1
}

// logPrepareError logs a failed prepare as the driver words it.
func (st *state) logPrepareError(c *luaConn, e *db.Error, query string) {
	log := st.script.cfg.Log
	if t, ok := c.drv.(db.PrepareErrorTexter); ok {
		for _, line := range t.PrepareErrorText(e) {
			log.Logf(engine.LevelFatal, "%s", line)
		}
		return
	}
	log.Logf(engine.LevelFatal, "%s", st.queryErrorText(c, e, query, false))
}

// queryErrorText is the FATAL line logged before a fatal SQL error.
func (st *state) queryErrorText(c *luaConn, e *db.Error, query string, prepared bool) string {
	if t, ok := c.drv.(db.ErrorTexter); ok {
		return t.QueryErrorText(e, query, prepared)
	}
	return fmt.Sprintf("error %d (%s) for query '%s'", e.Errno, e.Msg, query)
}

// sqlError handles a failed query or execute the way sysbench's
// check_error does (spec §3.5.8): it raises either the restart table (an
// ignorable error, or one the sql_error_ignorable hook accepts) or a
// fatal "SQL error" string, after logging the driver's FATAL line. It
// never returns.
func (st *state) sqlError(L *lua.LState, c *luaConn, err error, query string, prepared bool) {
	desc, e, ignorable := st.sqlFailure(L, c, err, query, prepared)
	if !ignorable {
		st.logQueryError(c, e, query, prepared)
		L.RaiseError("SQL error, errno = %d, state = '%s': %s", e.Errno, e.State, e.Msg)
	}
	st.restartEvent(L, c, e, desc)
}

// sqlFailure counts a failed call (an error, or a reconnect for a lost
// connection), builds sysbench's error descriptor (also the global
// errdesc) and decides whether the error is ignorable.
func (st *state) sqlFailure(L *lua.LState, c *luaConn, err error, query string, prepared bool) (*lua.LTable, *db.Error, bool) {
	e := db.AsError(err)
	if st.ev != nil {
		if e.Kind == db.Reconnect {
			st.ev.Count(engine.CounterReconnect)
		} else {
			st.ev.Count(engine.CounterError)
		}
	}
	if prepared {
		query = "<prepared statement>"
	}
	desc := L.CreateTable(0, 6)
	desc.RawSetString("connection", c.ud)
	// A copy: the query may be a view of a bulk-insert buffer that the
	// next flush overwrites (see luaConn.bulkSent).
	desc.RawSetString("query", lua.LString(strings.Clone(query)))
	desc.RawSetString("sql_errno", lua.LNumber(e.Errno))
	desc.RawSetString("sql_state", lua.LString(e.State))
	desc.RawSetString("sql_errmsg", lua.LString(e.Msg))
	L.SetGlobal("errdesc", desc)

	ignorable := e.Kind != db.Fatal
	if !ignorable {
		if hook := st.hook("sql_error_ignorable"); hook != nil {
			ret, herr := st.call(hook, desc)
			if herr != nil {
				L.Error(errorObject(herr), 0)
			}
			ignorable = lua.LVAsBool(ret)
		}
	}
	return desc, e, ignorable
}

// logQueryError logs the driver's FATAL lines for a fatal error, naming
// the statement's own SQL even for a prepared statement, as sysbench's
// drivers do. Each line is its own log message, so that a repeated error
// is printed again rather than folded into "last message repeated".
func (st *state) logQueryError(c *luaConn, e *db.Error, query string, prepared bool) {
	for _, line := range strings.Split(st.queryErrorText(c, e, query, prepared), "\nFATAL: ") {
		st.script.cfg.Log.Logf(engine.LevelFatal, "%s", line)
	}
}

// restartEvent raises the restart table for an ignorable error. First it
// rolls back the open transaction, so that the event's retry never
// commits half of a transaction (sysbench can), or, after a lost
// connection, reconnects. It never returns.
func (st *state) restartEvent(L *lua.LState, c *luaConn, e *db.Error, desc *lua.LTable) {
	c.release()
	if e.Kind == db.Reconnect {
		if rerr := st.reconnect(c); rerr != nil && (st.ev == nil || !st.ev.Stopping()) {
			st.logConnectError(c.drv, rerr)
			L.RaiseError("SQL error, errno = %d, state = '%s': %s (reconnecting failed)", e.Errno, e.State, e.Msg)
		}
	} else {
		// Not counted: it is sbgo's own clean-up, not the script's.
		c.driverConn(L).Query(context.Background(), "ROLLBACK")
		c.release()
	}
	desc.RawSetString("errcode", lua.LNumber(1))
	L.Error(desc, 0)
}

// ---- statements and parameters ----

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
		if err := tb.BindTypes(context.Background(), types); err != nil {
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
	res, err := s.settle(L).Execute(context.Background(), s.args)
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
// Why: the two lookups per call, in each worker's own tables, missed the
// cache at nearly every load with many workers: 7 % of the client's CPU
// samples for oltp_point_select at 64 threads on 2 CPUs, where sysbench's
// client CPU per transaction was as low as sbgo's.
//
// Why: for oltp_point_select this function is the whole event, and in Go
// it costs no interpreter frame, no call of rand.uniform through the
// interpreter and no method lookup: with --mysql-dry-run at 1 thread,
// 3.2-3.3 M point selects per second where the Lua function gave
// 1.4-1.8 M; with the round trips, 2 and 8 threads on 2 CPUs, 1.3-1.8 µs
// of user CPU per point select where it took 2.1-3.1 (sysbench 1.6-2.4).
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

// ---- results ----

// luaResult is a result set, read lazily: rows are buffered only when a
// script asks for nrows.
type luaResult struct {
	conn    *luaConn
	rows    db.Rows
	nfields int
	scratch [][]byte
	ud      *lua.LUserData
	closed  bool
	// buffered holds the rows read ahead for nrows; served first.
	buffered  [][]lua.LValue
	delivered int // rows already returned by fetch_row or query_row
	counted   bool
	nrows     int
}

func (r *luaResult) object(L *lua.LState) *lua.LUserData {
	if r.ud == nil {
		// Every SELECT makes one: the metatable comes from the state
		// rather than from a lookup by name in the registry.
		st := r.conn.st
		if st.resultMT == nil {
			st.resultMT = L.GetTypeMetatable(sqlResultType)
		}
		ud := L.NewUserData()
		ud.Value = r
		ud.Metatable = st.resultMT
		r.ud = ud
	}
	return r.ud
}

func checkResult(L *lua.LState, n int) *luaResult {
	if r, ok := L.CheckUserData(n).Value.(*luaResult); ok {
		return r
	}
	L.ArgError(n, "sql result expected")
	return nil
}

func (r *luaResult) close() {
	if !r.closed {
		r.closed = true
		r.rows.Close()
	}
}

// read reads one row from the driver as Lua values.
func (r *luaResult) read(L *lua.LState) ([]lua.LValue, bool) {
	if r.closed {
		return nil, false
	}
	if r.scratch == nil {
		r.scratch = make([][]byte, r.nfields)
	}
	ok, err := r.rows.Next(r.scratch)
	if err != nil {
		r.close()
		r.conn.st.sqlError(L, r.conn, err, "", false)
	}
	if !ok {
		return nil, false
	}
	row := make([]lua.LValue, r.nfields)
	for i, v := range r.scratch {
		if v == nil {
			row[i] = lua.LNil
		} else {
			row[i] = lua.LString(v)
		}
	}
	return row, true
}

// next returns the next row, buffered or not.
func (r *luaResult) next(L *lua.LState) ([]lua.LValue, bool) {
	if len(r.buffered) > 0 {
		row := r.buffered[0]
		r.buffered = r.buffered[1:]
		r.delivered++
		return row, true
	}
	row, ok := r.read(L)
	if ok {
		r.delivered++
	}
	return row, ok
}

// numRows is rs.nrows: the rows of the result set, which are read ahead
// to count them.
func (r *luaResult) numRows(L *lua.LState) int {
	if !r.counted {
		r.counted = true
		r.nrows = r.delivered + len(r.buffered)
		for {
			row, ok := r.read(L)
			if !ok {
				break
			}
			r.buffered = append(r.buffered, row)
			r.nrows++
		}
	}
	return r.nrows
}

// resFetchRow is rs:fetch_row(): the next row as an array of strings with
// nil for NULL, or nil after the last row.
func resFetchRow(L *lua.LState) int {
	r := checkResult(L, 1)
	row, ok := r.next(L)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	t := L.CreateTable(len(row), 0)
	for i, v := range row {
		if v != lua.LNil {
			t.RawSetInt(i+1, v)
		}
	}
	L.Push(t)
	return 1
}

// resFree is rs:free().
func (st *state) resFree(L *lua.LState) int {
	r := checkResult(L, 1)
	if r.conn.cur != r {
		st.script.cfg.Log.Logf(engine.LevelAlert, "attempt to free an invalid result set")
		L.RaiseError("db_free_results() failed")
	}
	r.conn.release()
	L.Push(lua.LTrue)
	return 1
}

// closeConns closes every connection the state opened: gopher-lua never
// runs __gc, so Go does the clean-up sysbench leaves to the collector.
func (st *state) closeConns() {
	for _, c := range st.conns {
		c.close()
	}
	st.conns = nil
}
