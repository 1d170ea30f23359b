package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

// session is what go-sql-driver's connection implements and the driver
// uses. The context-free methods are used when the caller's context can
// never be cancelled: they skip go-sql-driver's cancellation watcher, a
// channel round trip per call.
type session interface {
	driver.Conn
	driver.Queryer
	driver.QueryerContext
	driver.Execer
	driver.ExecerContext
	driver.ConnPrepareContext
}

// sessionStmt is what go-sql-driver's prepared statement implements.
type sessionStmt interface {
	driver.Stmt
	driver.StmtQueryContext
	driver.StmtExecContext
}

// conn is one server session. It is used by one goroutine.
//
// With a wire (see wire.go), queries and prepared statements go through
// it, and the answer itself says whether there is a result set. Without
// one (--mysql-io-mode=go-sql-driver, TLS, compression), Query and Execute send
// a statement through go-sql-driver's query path (which reads a result
// set lazily) when its first keyword says it returns rows (see
// returnsRows), and through the exec path otherwise, because only the
// exec path reports the number of affected rows that sysbench's
// read/write/other counters need. A query-path answer without columns
// counts as no result set, with 0 affected rows.
type conn struct {
	d  *Driver
	ep endpoint
	mc session // nil once closed, or after a failed Reconnect
	// gen counts the sessions this conn has had: a statement prepared
	// in an earlier one is gone.
	gen int

	cur *rows // the open result, closed by the next call

	// w reads and writes prepared statements' commands itself (see
	// wire.go); nil when go-sql-driver carries them. wcur is its open
	// result, and wmore says that more results of the last command
	// follow (a CALL's).
	w    *wire
	wcur *wireRows
	// wspare is the last wireRows handed out, reused for the next
	// result once closed (db.Rows: a closed Rows is not used again).
	wspare *wireRows
	wmore  bool
	wtext  bool // the results that follow are a query's (text rows)

	// Reused by every row of every result: the driver's values, the
	// text of the values that are not text already, and where each is.
	dest  []driver.Value
	text  []byte
	spans []span
}

// open dials the session for c.ep.
func (c *conn) open(ctx context.Context) error {
	var hc *handshakeCapture
	if c.d.set.ioMode != ioDriver {
		hc = new(handshakeCapture)
		ctx = context.WithValue(ctx, captureKey{}, hc)
	}
	dc, err := c.d.dial(ctx, c.ep)
	if err != nil {
		return err
	}
	mc, ok := dc.(session)
	if !ok {
		dc.Close()
		return &ConnectError{Err: clientError(crUnknownError, "go-sql-driver connection lacks a needed method"), Endpoint: c.ep.describe()}
	}
	c.mc = mc
	c.w = newWire(hc)
	return nil
}

// debug reports whether calls are traced (--mysql-debug). Callers test
// it before building log arguments, so tracing costs nothing when off.
func (c *conn) debug() bool { return c.d.set.debug }

func (c *conn) logf(format string, args ...any) { c.d.log.Logf(engine.LevelDebug, format, args...) }

// fail converts err to a classified *db.Error. Ignored errors are logged
// at DEBUG when logIgnored is set, as sysbench's check_error does for
// queries and executes (not for prepares).
func (c *conn) fail(err error, logIgnored bool) error {
	e := queryError(err)
	if c.debug() {
		c.logf("mysql_errno(%p) = %d", c, e.Errno)
		c.logf("mysql_state(%p) = %s", c, e.State)
		c.logf("mysql_error(%p) = %s", c, e.Msg)
	}
	return c.classify(e, logIgnored)
}

func (c *conn) classify(e *db.Error, logIgnored bool) error {
	log := c.d.log
	if !logIgnored {
		log = nil
	}
	return classify(e, c.d.set.ignore, log)
}

// release closes the open result, if any: every call on the conn starts
// with it, since the session can carry one command at a time.
func (c *conn) release() {
	if c.cur != nil {
		c.cur.Close()
	}
	if c.wcur != nil {
		c.wcur.Close()
	}
	if c.wmore {
		c.drainResults()
	}
}

// Query runs a text query (several statements separated by ';' are
// allowed). See conn for how the result is read.
func (c *conn) Query(ctx context.Context, query string) (db.Result, error) {
	c.release()
	if c.debug() {
		c.logf("mysql_real_query(%p, \"%s\", %d)", c, query, len(query))
	}
	if c.mc == nil {
		return db.Result{}, c.fail(driver.ErrBadConn, true)
	}
	if c.w != nil {
		return c.queryWire(ctx, query)
	}
	if returnsRows(query) {
		var dr driver.Rows
		var err error
		if ctx.Done() == nil {
			dr, err = c.mc.Query(query, nil)
		} else {
			dr, err = c.mc.QueryContext(ctx, query, nil)
		}
		if err != nil {
			return db.Result{}, c.fail(err, true)
		}
		return c.rowsResult(dr), nil
	}
	var res driver.Result
	var err error
	if ctx.Done() == nil {
		res, err = c.mc.Exec(query, nil)
	} else {
		res, err = c.mc.ExecContext(ctx, query, nil)
	}
	if err != nil {
		return db.Result{}, c.fail(err, true)
	}
	return c.execResult(res), nil
}

// execResult is the result of a statement without a result set. With
// several statements, go-sql-driver reports the last one's count.
func (c *conn) execResult(res driver.Result) db.Result {
	n, _ := res.RowsAffected()
	if c.debug() {
		c.logf("mysql_affected_rows(%p) = %d", c, n)
	}
	return db.Result{Affected: n}
}

// rowsResult makes dr the open result, or closes it when it has no
// columns (a statement of the query path that answered OK).
func (c *conn) rowsResult(dr driver.Rows) db.Result {
	n := len(dr.Columns())
	if c.debug() {
		c.logf("mysql_num_fields(%p) = %d", c, n)
	}
	if n == 0 {
		dr.Close()
		return db.Result{}
	}
	r := &rows{c: c, dr: dr, n: n}
	c.cur = r
	return db.Result{Rows: r}
}

// NextResult steps to the next result set of the open result
// (multi-statement queries, CALL). go-sql-driver skips the results
// without columns in between, so only result sets are seen; after a
// statement of the exec path there is none (its results were read).
func (c *conn) NextResult(ctx context.Context) (db.Result, bool, error) {
	if c.wcur != nil || c.wmore {
		return c.nextWireResult()
	}
	r := c.cur
	if r == nil {
		return db.Result{}, false, nil
	}
	next, ok := r.dr.(driver.RowsNextResultSet)
	if !ok {
		return db.Result{}, false, nil
	}
	// Not HasNextResultSet: it is only known once the rows are read,
	// and NextResultSet skips the rows left.
	if err := next.NextResultSet(); err != nil {
		r.Close()
		if errors.Is(err, io.EOF) {
			return db.Result{}, false, nil
		}
		return db.Result{}, false, c.fail(err, true)
	}
	// The old handle is spent; the driver rows live on in the new one.
	r.closed = true
	nr := &rows{c: c, dr: r.dr, n: len(r.dr.Columns())}
	c.cur = nr
	return db.Result{Rows: nr}, true, nil
}

// Prepare prepares query on the server (--db-ps-mode=auto), or on the
// client (--db-ps-mode=disable, and for the statements a server cannot
// prepare: ER_UNSUPPORTED_PS, logged at INFO as sysbench does). The
// parameter types are not needed: each Execute sends its values' types.
func (c *conn) Prepare(ctx context.Context, query string, _ []db.ParamType) (db.Stmt, error) {
	c.release()
	if c.d.set.emulate {
		return db.NewEmulated(c, query, appendQuoted), nil
	}
	if c.debug() {
		c.logf("mysql_stmt_prepare(%p, \"%s\", %d)", c, query, len(query))
	}
	if c.mc == nil {
		return nil, c.fail(driver.ErrBadConn, false)
	}
	if c.w != nil {
		return c.prepareWire(ctx, query)
	}
	ds, err := c.mc.PrepareContext(ctx, query)
	if err != nil {
		var me *gomysql.MySQLError
		if errors.As(err, &me) && me.Number == erUnsupportedPS {
			c.d.log.Logf(engine.LevelInfo, "Failed to prepare query \"%s\" (%d: %s), using emulation", query, me.Number, me.Message)
			return db.NewEmulated(c, query, appendQuoted), nil
		}
		return nil, c.fail(err, false)
	}
	ss, ok := ds.(sessionStmt)
	if !ok {
		ds.Close()
		return nil, c.classify(clientError(crUnknownError, "go-sql-driver statement lacks a needed method"), false)
	}
	n := ss.NumInput()
	return &stmt{c: c, ds: ss, gen: c.gen, returnsRows: returnsRows(query), vals: make([]driver.Value, n)}, nil
}

// Reconnect closes the session and opens a new one to the same server
// (the same host and port, or socket). It makes one attempt: retrying is
// the caller's choice. Statements prepared on the server before are gone
// (executing one gives error 2056); emulated ones keep working.
func (c *conn) Reconnect(ctx context.Context) error {
	c.d.log.Logf(engine.LevelDebug, "Reconnecting")
	c.closeSession()
	c.gen++
	if err := c.open(ctx); err != nil {
		return err
	}
	c.d.log.Logf(engine.LevelDebug, "Reconnected")
	return nil
}

// Close ends the session. Closing twice is harmless.
func (c *conn) Close() error {
	c.closeSession()
	return nil
}

func (c *conn) closeSession() {
	if c.w != nil {
		// Nothing more is read from it: the session may be broken.
		c.w = nil
		c.wmore = false
		if c.wcur != nil {
			c.wcur.done = true
		}
	}
	c.release()
	if c.mc == nil {
		return
	}
	if c.debug() {
		c.logf("mysql_close(%p)", c)
	}
	// The error of COM_QUIT on a dead session says nothing useful.
	c.mc.Close()
	c.mc = nil
}

// stmt is a statement prepared on the server.
type stmt struct {
	c           *conn
	ds          sessionStmt
	gen         int // the conn's session it belongs to
	returnsRows bool
	closed      bool

	// Reused by every execute.
	vals  []driver.Value
	named []driver.NamedValue
}

// NumParams is the number of '?' the server counted.
func (s *stmt) NumParams() int { return len(s.vals) }

// emptyString is a non-NULL empty string: go-sql-driver sends a nil
// []byte as NULL.
var emptyString = []byte{}

// Execute runs the statement with args, read like Query (by the same
// first-keyword rule). Integers go as BIGINT, doubles as DOUBLE and
// strings as binary strings; string bytes are not copied, since
// go-sql-driver writes them to its buffer before Execute returns.
func (s *stmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	c := s.c
	c.release()
	if c.debug() {
		c.logf("mysql_stmt_execute(%p)", s)
	}
	if s.closed || s.gen != c.gen || c.mc == nil {
		return db.Result{}, c.classify(clientError(crStmtClosed, msgStmtClosed), true)
	}
	if len(args) != len(s.vals) {
		return db.Result{}, c.classify(clientError(crParamsNotBound, "No data supplied for parameters in prepared statement"), true)
	}
	for i, a := range args {
		switch {
		case a.Null:
			s.vals[i] = nil
		case a.Type == db.ParamInt:
			s.vals[i] = a.I
		case a.Type == db.ParamDouble:
			s.vals[i] = a.F
		case a.S == nil:
			s.vals[i] = emptyString
		default:
			s.vals[i] = a.S
		}
	}
	defer s.forgetStrings()
	if ctx.Done() == nil {
		if s.returnsRows {
			dr, err := s.ds.Query(s.vals)
			if err != nil {
				return db.Result{}, c.fail(err, true)
			}
			return c.rowsResult(dr), nil
		}
		res, err := s.ds.Exec(s.vals)
		if err != nil {
			return db.Result{}, c.fail(err, true)
		}
		return c.execResult(res), nil
	}
	if cap(s.named) < len(s.vals) {
		s.named = make([]driver.NamedValue, len(s.vals))
	}
	named := s.named[:len(s.vals)]
	for i, v := range s.vals {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	if s.returnsRows {
		dr, err := s.ds.QueryContext(ctx, named)
		if err != nil {
			return db.Result{}, c.fail(err, true)
		}
		return c.rowsResult(dr), nil
	}
	res, err := s.ds.ExecContext(ctx, named)
	if err != nil {
		return db.Result{}, c.fail(err, true)
	}
	return c.execResult(res), nil
}

// forgetStrings drops the references to the caller's string buffers,
// which the caller reuses.
func (s *stmt) forgetStrings() {
	for i, v := range s.vals {
		if _, ok := v.([]byte); ok {
			s.vals[i] = nil
		}
	}
	for i := range s.named {
		s.named[i].Value = nil
	}
}

// Close deallocates the statement on the server, after closing the
// connection's open result. A statement of an earlier session is gone
// already.
func (s *stmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	c := s.c
	c.release()
	if s.gen != c.gen || c.mc == nil {
		return nil
	}
	if c.debug() {
		c.logf("mysql_stmt_close(%p)", s)
	}
	if err := s.ds.Close(); err != nil {
		return c.fail(err, false)
	}
	return nil
}

// rows is an open result set, read lazily from the session.
type rows struct {
	c      *conn
	dr     driver.Rows
	n      int
	done   bool // all rows read, or reading failed
	closed bool
}

func (r *rows) NumFields() int { return r.n }

// Next reads the next row as text: the text protocol's values are text
// already (go-sql-driver parses numbers, which are written back), the
// binary protocol's are formatted; see appendValue. The slices point into
// the session's buffers and stay valid until the next call.
func (r *rows) Next(row [][]byte) (bool, error) {
	if r.closed || r.done {
		return false, nil
	}
	c := r.c
	if cap(c.dest) < r.n {
		c.dest = make([]driver.Value, r.n)
	}
	dest := c.dest[:r.n]
	if err := r.dr.Next(dest); err != nil {
		r.done = true
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, c.fail(err, true)
	}
	text, spans := c.text[:0], c.spans[:0]
	for i, v := range dest {
		if i >= len(row) {
			break
		}
		switch v := v.(type) {
		case nil:
			row[i] = nil
		case []byte:
			if v == nil {
				v = emptyString
			}
			row[i] = v
		default:
			start := len(text)
			text = appendValue(text, v)
			spans = append(spans, span{col: i, start: start, end: len(text)})
		}
		dest[i] = nil
	}
	// Sliced only now: appending may have moved the buffer.
	for _, s := range spans {
		row[s.col] = text[s.start:s.end:s.end]
	}
	c.text, c.spans = text, spans
	return true, nil
}

// span is where a column's text is in conn.text.
type span struct{ col, start, end int }

// Close discards the rows not read. Closing twice, or closing a result
// the connection has moved past, does nothing.
func (r *rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.c.cur == r {
		r.c.cur = nil
	}
	if err := r.dr.Close(); err != nil {
		return r.c.fail(err, false)
	}
	return nil
}

// dryConn is a session of --mysql-dry-run: every call succeeds, and no
// query returns a result set or changes rows, so every query counts as
// "other".
type dryConn struct{ d *Driver }

func (c *dryConn) Query(ctx context.Context, query string) (db.Result, error) {
	if c.d.set.debug {
		c.d.log.Logf(engine.LevelDebug, "mysql_real_query(%p, \"%s\", %d)", c, query, len(query))
	}
	return db.Result{}, nil
}

func (c *dryConn) Prepare(ctx context.Context, query string, _ []db.ParamType) (db.Stmt, error) {
	return dryStmt{params: strings.Count(query, "?")}, nil
}

func (c *dryConn) Reconnect(ctx context.Context) error { return nil }
func (c *dryConn) Close() error                        { return nil }

type dryStmt struct{ params int }

func (s dryStmt) Execute(ctx context.Context, args []db.Value) (db.Result, error) {
	return db.Result{}, nil
}
func (s dryStmt) Close() error   { return nil }
func (s dryStmt) NumParams() int { return s.params }
