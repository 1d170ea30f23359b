package luabind

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

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
	// timer is the connection's --db-timeout, nil without one.
	timer *stmtTimer

	// The row being read, reused from row to row: the driver's values
	// (rawRow) and the Lua values made of them (luaRow).
	raw  [][]byte
	vals []lua.LValue
	// queryRow is the result query_row reads, reused from call to call:
	// Lua never sees it.
	queryRow luaResult

	// bulkState is the connection's bulk insert (sql_bulk.go).
	bulkState
}

// newConn makes a session the driver opened a Lua connection object of
// st's, closed with the state.
func (st *state) newConn(L *lua.LState, drv db.Driver, conn db.Conn) *luaConn {
	c := &luaConn{st: st, drv: drv, rawConn: conn, timer: newStmtTimer(st.script.dbTimeout())}
	c.ud = newObject(L, sqlConnType, c)
	st.conns = append(st.conns, c)
	return c
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

// run executes query as a text statement and counts it; errors follow
// sysbench's check_error.
func (c *luaConn) run(L *lua.LState, query string) db.Result {
	res, err := c.query(c.settle(L), query)
	if err != nil {
		c.st.sqlError(L, c, err, query, false)
	}
	c.st.count(res)
	return res
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

// rawRow returns the connection's scratch for a row of the driver's.
func (c *luaConn) rawRow(nfields int) [][]byte {
	if cap(c.raw) < nfields {
		c.raw = make([][]byte, nfields)
	}
	return c.raw[:nfields]
}

// luaRow returns the connection's scratch for a row of Lua values.
func (c *luaConn) luaRow(nfields int) []lua.LValue {
	if cap(c.vals) < nfields {
		c.vals = make([]lua.LValue, nfields)
	}
	return c.vals[:nfields]
}

// conQuery is con:query(sql): a result object for a result set, nothing
// (nil) otherwise.
func (st *state) conQuery(L *lua.LState) int {
	c := st.checkConn(L)
	r := c.open(L, c.run(L, L.CheckString(2)))
	if r == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(r.object(L))
	return 1
}

// conQueryRow is con:query_row(sql): the first row's columns as strings
// (nil for NULL), or nil when there is no row. The result stays the
// connection's current one, as in sysbench, in a luaResult reused from
// call to call since no script can reach it.
func (st *state) conQueryRow(L *lua.LState) int {
	c := st.checkConn(L)
	res := c.run(L, L.CheckString(2))
	if res.Rows == nil {
		L.Push(lua.LNil)
		return 1
	}
	r := &c.queryRow
	*r = luaResult{conn: c, rows: res.Rows, nfields: res.Rows.NumFields()}
	c.cur = r
	row := c.luaRow(r.nfields)
	if !r.next(L, row) {
		L.Push(lua.LNil)
		return 1
	}
	for _, v := range row {
		L.Push(v)
	}
	return len(row)
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
	if c.timer != nil {
		c.timer.close()
	}
	c.closed = true
}

// conReconnect is con:reconnect(): a new session with the same
// parameters; counts one reconnect.
func (st *state) conReconnect(L *lua.LState) int {
	c := st.checkConn(L)
	c.discardBulk()
	c.release()
	if err := st.reconnect(c); err != nil {
		st.abandonedError(L, err)
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
// succeeds, the run stops, the state's context ends, or (outside a run) a
// minute has passed.
func (st *state) reconnect(c *luaConn) error {
	c.stmts = nil // statements of the old session are gone
	delay := time.Millisecond
	deadline := time.Now().Add(time.Minute)
	var stopped <-chan struct{} // nil outside a run: never ready
	if st.ev != nil {
		stopped = st.ev.Done()
	}
	for {
		err := st.reconnectOnce(c)
		if err == nil {
			return nil
		}
		if st.ev != nil && st.ev.Stopping() || st.ev == nil && time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-stopped:
		case <-st.ctx.Done():
		case <-t.C:
			delay = min(delay*2, time.Second)
			continue
		}
		t.Stop()
		return err
	}
}

// reconnectOnce is one attempt of reconnect, bounded as a connect is.
func (st *state) reconnectOnce(c *luaConn) error {
	ctx, cancel := st.connectContext()
	defer cancel()
	return c.idleConn().Reconnect(ctx)
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
	ctx := c.callContext()
	res, ok, err := mr.NextResult(ctx)
	c.callEnd()
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

// closeConns closes every connection the state opened: gopher-lua never
// runs __gc, so Go does the clean-up sysbench leaves to the collector.
func (st *state) closeConns() {
	for _, c := range st.conns {
		c.close()
	}
	st.conns = nil
}
