package luabind

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

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

// abandonedError raises err as it is, unlogged and uncounted, when the
// state's context has ended: the run gave up on the call (engine
// Events.Context), so the event must neither restart (the restart would
// fail at once, for ever) nor reach the sql_error_ignorable hook, and the
// worker ends with the error, which the engine does not report. It
// returns otherwise.
func (st *state) abandonedError(L *lua.LState, err error) {
	if st.ctx.Err() != nil {
		L.RaiseError("%s: %s", st.ctx.Err(), err)
	}
}

// sqlFailure builds sysbench's error descriptor (also the global
// errdesc), decides whether the error is ignorable and counts the
// failure (countFailure), and an ambiguous commit for a COMMIT whose
// session was lost in doubt, even when the run abandoned it.
func (st *state) sqlFailure(L *lua.LState, c *luaConn, err error, query string, prepared bool) (*lua.LTable, *db.Error, bool) {
	e := db.AsError(err)
	if st.ev != nil && e.InDoubt && isCommit(query) {
		st.ev.Count(engine.CounterAmbiguousCommit)
	}
	st.abandonedError(L, err)
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
	st.countFailure(e, ignorable)
	return desc, e, ignorable
}

// countFailure counts a failed call: a reconnect for a lost connection
// the ignore list has, an error for another ignored one, and nothing
// for a fatal one, which ends the run: the report's "ignored errors" are
// the errors the run went on after (sysbench counts the fatal one too).
// The errors by code of the results file have every failure.
func (st *state) countFailure(e *db.Error, ignorable bool) {
	if st.ev == nil {
		return
	}
	switch {
	case e.Kind == db.Reconnect:
		st.ev.Count(engine.CounterReconnect)
		return
	case ignorable:
		st.ev.Count(engine.CounterError)
	}
	if st.ev.Recording() {
		st.ev.CountError(errorCode(e), e.Msg)
	}
}

// isCommit reports whether query is a COMMIT (any form: AND CHAIN,
// PREPARED, ...) or PostgreSQL's END, in any case. It runs on the error
// path only, where a lost session may have left a transaction in doubt.
func isCommit(query string) bool {
	word := strings.TrimLeft(query, " \t\r\n")
	if i := strings.IndexAny(word, " \t\r\n;"); i >= 0 {
		word = word[:i]
	}
	return strings.EqualFold(word, "COMMIT") || strings.EqualFold(word, "END")
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
		c.query(c.driverConn(L), "ROLLBACK")
		c.release()
	}
	desc.RawSetString("errcode", lua.LNumber(1))
	L.Error(desc, 0)
}

// errorCode is e's code in the results file: the MySQL errno in decimal,
// else the SQLSTATE (PostgreSQL's only code).
func errorCode(e *db.Error) string {
	if e.Errno != 0 {
		return strconv.Itoa(e.Errno)
	}
	if e.State != "" {
		return e.State
	}
	return "unknown"
}
