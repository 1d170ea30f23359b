package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"

	"sbgo/db"
)

// sqlDriverConn is a session whose commands go-sql-driver carries: the
// fallback for sessions the wire does not implement (TLS, compression,
// --mysql-io-mode=go-sql-driver, see wireCarries).
//
// Query and Execute send a statement through go-sql-driver's query path
// (which reads a result set lazily) when its first keyword says it
// returns rows (see returnsRows), and through the exec path otherwise,
// because only the exec path reports the number of affected rows that
// sysbench's read/write/other counters need. A query-path answer without
// columns counts as no result set, with 0 affected rows.
type sqlDriverConn struct {
	session
	cur  *rows          // the open result, closed by the next call
	dest []driver.Value // reused by every row: the driver's values
}

var (
	_ db.Conn         = (*sqlDriverConn)(nil)
	_ db.MoreResults  = (*sqlDriverConn)(nil)
	_ db.Stmt         = (*stmt)(nil)
	_ db.ParamCounter = (*stmt)(nil)
	_ db.Rows         = (*rows)(nil)
)

// release closes the open result, if any: every call on the connection
// starts with it, since the session can carry one command at a time.
func (c *sqlDriverConn) release() {
	if c.cur != nil {
		c.cur.Close()
	}
}

// Query runs a text query (several statements separated by ';' are
// allowed), by the first-keyword rule of sqlDriverConn.
func (c *sqlDriverConn) Query(ctx context.Context, query string) (db.Result, error) {
	c.release()
	if c.debug() {
		c.logf("mysql_real_query(%p, \"%s\", %d)", c, query, len(query))
	}
	if c.mc == nil {
		return db.Result{}, c.fail(driver.ErrBadConn, true)
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
		return c.rowsResult(dr, ctx.Done() != nil), nil
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
func (c *sqlDriverConn) execResult(res driver.Result) db.Result {
	n, _ := res.RowsAffected()
	if c.debug() {
		c.logf("mysql_affected_rows(%p) = %d", c, n)
	}
	return db.Result{Affected: n}
}

// rowsResult makes dr the open result, or closes it when it has no
// columns (a statement of the query path that answered OK). watched
// tells whether go-sql-driver watches the call's context (see
// rows.Close).
func (c *sqlDriverConn) rowsResult(dr driver.Rows, watched bool) db.Result {
	n := len(dr.Columns())
	if c.debug() {
		c.logf("mysql_num_fields(%p) = %d", c, n)
	}
	if n == 0 {
		dr.Close()
		return db.Result{}
	}
	r := &rows{c: c, dr: dr, n: n, watched: watched}
	c.cur = r
	return db.Result{Rows: r}
}

// NextResult steps to the next result set of the open result
// (multi-statement queries, CALL). go-sql-driver skips the results
// without columns in between, so only result sets are seen; after a
// statement of the exec path there is none (its results were read).
func (c *sqlDriverConn) NextResult(ctx context.Context) (db.Result, bool, error) {
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
	nr := &rows{c: c, dr: r.dr, n: len(r.dr.Columns()), watched: r.watched}
	c.cur = nr
	return db.Result{Rows: nr}, true, nil
}

// Prepare prepares query on the server (--db-ps-mode=auto), or on the
// client (--db-ps-mode=disable, and for the statements a server cannot
// prepare: see unsupportedPS). The parameter types are not needed: each
// Execute sends its values' types.
func (c *sqlDriverConn) Prepare(ctx context.Context, query string, _ []db.ParamType) (db.Stmt, error) {
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
	ds, err := c.mc.PrepareContext(ctx, query)
	if err != nil {
		if c.unsupportedPS(err, query) {
			return db.NewEmulated(c, query, appendQuoted), nil
		}
		return nil, c.fail(err, false)
	}
	ss, ok := ds.(gomysqlStmt)
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
func (c *sqlDriverConn) Reconnect(ctx context.Context) error {
	c.logf("Reconnecting")
	c.closeSession()
	if _, err := c.reopen(ctx); err != nil {
		return err
	}
	c.logf("Reconnected")
	return nil
}

// Close ends the session. Closing twice is harmless.
func (c *sqlDriverConn) Close() error {
	c.closeSession()
	return nil
}

func (c *sqlDriverConn) closeSession() {
	c.release()
	c.closeGomysql()
}

// stmt is a statement go-sql-driver prepared on the server.
type stmt struct {
	c           *sqlDriverConn
	ds          gomysqlStmt
	gen         int // the connection's session it belongs to
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
	if s.closed || s.gen != c.gen {
		return db.Result{}, c.classify(clientError(crStmtClosed, msgStmtClosed), true)
	}
	if c.mc == nil { // lost, perhaps while the last result's rows were skipped
		return db.Result{}, c.fail(driver.ErrBadConn, true)
	}
	if len(args) != len(s.vals) {
		return db.Result{}, c.classify(clientError(crParamsNotBound, "No data supplied for parameters in prepared statement"), true)
	}
	s.bind(args)
	defer s.forgetStrings()
	if ctx.Done() == nil {
		return s.run()
	}
	return s.runContext(ctx)
}

// bind sets the driver's values of args.
func (s *stmt) bind(args []db.Value) {
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
}

// run executes with the bound values, without go-sql-driver's
// cancellation watcher (see gomysqlConn).
func (s *stmt) run() (db.Result, error) {
	c := s.c
	if s.returnsRows {
		dr, err := s.ds.Query(s.vals)
		if err != nil {
			return db.Result{}, c.fail(err, true)
		}
		return c.rowsResult(dr, false), nil
	}
	res, err := s.ds.Exec(s.vals)
	if err != nil {
		return db.Result{}, c.fail(err, true)
	}
	return c.execResult(res), nil
}

// runContext executes with the bound values, interrupted when ctx is
// cancelled.
func (s *stmt) runContext(ctx context.Context) (db.Result, error) {
	c := s.c
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
		return c.rowsResult(dr, true), nil
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
	c      *sqlDriverConn
	dr     driver.Rows
	n      int
	done   bool // all rows read, or reading failed
	closed bool
	// watched: go-sql-driver watches the context of the call that
	// opened the rows, until they are closed.
	watched bool
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
	if r.watched && !r.done {
		// go-sql-driver stops watching the context before it skips
		// the rows left, so a server that stops sending would hold
		// the skip for ever: they are read while it still watches.
		dest := r.c.dest[:0]
		if cap(dest) < r.n {
			dest = make([]driver.Value, r.n)
			r.c.dest = dest
		}
		for r.dr.Next(dest[:r.n]) == nil {
		}
	}
	if err := r.dr.Close(); err != nil {
		return r.c.fail(err, false)
	}
	return nil
}
