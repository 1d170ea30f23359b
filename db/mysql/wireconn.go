package mysql

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"math"
	"sync/atomic"

	"sbgo/db"
)

// wireConn is a session whose commands sbgo's own protocol code carries
// (see wire.go): text queries, and prepared statements (wireStmt). The
// answer itself says whether there is a result set, so no keyword rule
// is needed.
type wireConn struct {
	session
	w *wire // nil once the session is closed or lost

	cur *wireRows // the open result, closed by the next call
	// spare is the last wireRows handed out, reused for the next result
	// once closed (db.Rows: a closed Rows is not used again).
	spare *wireRows
	// more says that more results of the last command follow (a CALL's,
	// or a multi-statement query's); textResults, that they are a
	// query's (text rows).
	more        bool
	textResults bool

	// The watch of the context calls are made with (see watch): watched
	// is the context, unwatch ends the watch, busy is true while a
	// command waits for the server, idle clears it.
	watched context.Context
	unwatch func() bool
	busy    atomic.Bool
	idle    func() bool
}

var (
	_ db.Conn        = (*wireConn)(nil)
	_ db.MoreResults = (*wireConn)(nil)
	_ db.Rows        = (*wireRows)(nil)
)

// release closes the open result and reads the results left of the last
// command, if any: every call on the connection starts with it, since the
// session can carry one command at a time.
func (c *wireConn) release() {
	if c.cur != nil {
		c.cur.Close()
	}
	if c.more {
		c.drainResults()
	}
	c.commandDone()
}

// Query runs a text query with COM_QUERY (several statements separated
// by ';' are allowed). Its first result is the answer, as in
// libmysqlclient: a result set, read lazily, or the rows the statement
// changed; the results of further statements are stepped through with
// NextResult, or skipped by the next call.
func (c *wireConn) Query(ctx context.Context, query string) (db.Result, error) {
	c.release()
	if c.debug() {
		c.logf("mysql_real_query(%p, \"%s\", %d)", c, query, len(query))
	}
	w := c.w
	if w == nil {
		return db.Result{}, c.fail(driver.ErrBadConn, true)
	}
	stop := c.watch(ctx)
	if err := w.send(append(w.begin(comQuery), query...)); err != nil {
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	res, err := c.readResult(nil, true)
	if err != nil {
		return db.Result{}, c.lost(ctx, stop, err, true)
	}
	c.commandDone()
	return res, nil
}

// Prepare prepares query on the server (--db-ps-mode=auto), or on the
// client (--db-ps-mode=disable, and for the statements a server cannot
// prepare: see unsupportedPS).
func (c *wireConn) Prepare(ctx context.Context, query string, _ []db.ParamType) (db.Stmt, error) {
	c.release()
	if c.d.set.emulate {
		return db.NewEmulated(c, query, appendQuoted), nil
	}
	if c.debug() {
		c.logf("mysql_stmt_prepare(%p, \"%s\", %d)", c, query, len(query))
	}
	if c.w == nil {
		return nil, c.fail(driver.ErrBadConn, false)
	}
	return c.prepareWire(ctx, query)
}

// prepareWire prepares query with COM_STMT_PREPARE. The answer is the
// statement's id and counts, then the parameters' definitions (skipped)
// and the result columns' (kept for decoding rows).
func (c *wireConn) prepareWire(ctx context.Context, query string) (db.Stmt, error) {
	w := c.w
	stop := c.watch(ctx)
	if err := w.send(append(w.begin(comStmtPrepare), query...)); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	p, err := w.readPacket()
	if err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	if len(p) > 0 && p[0] == 0xff {
		stop()
		err := serverError(p)
		if c.unsupportedPS(err, query) {
			return db.NewEmulated(c, query, appendQuoted), nil
		}
		return nil, c.fail(err, false)
	}
	if len(p) < 12 || p[0] != 0x00 {
		return nil, c.lost(ctx, stop, errMalformed, false)
	}
	s := &wireStmt{
		c:       c,
		id:      binary.LittleEndian.Uint32(p[1:]),
		gen:     c.gen,
		nparams: int(binary.LittleEndian.Uint16(p[7:])),
	}
	ncols := int(binary.LittleEndian.Uint16(p[5:]))
	if _, err := w.readColumns(s.nparams, nil, false); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	if s.cols, err = w.readColumns(ncols, make([]column, 0, ncols), true); err != nil {
		return nil, c.lost(ctx, stop, err, false)
	}
	stop()
	return s, nil
}

// readResult reads the first packet of a statement's result: an OK
// packet, a server error (returned as a *db.Error, with the session
// intact) or a result set's column count and definitions, after which the
// result set is the connection's open one. Other errors mean the session
// is lost. cols holds the columns of the last result set of the
// statement, and is updated when the server sends them.
func (c *wireConn) readResult(cols *[]column, text bool) (db.Result, error) {
	c.textResults = text
	p, err := c.w.readPacket()
	if err != nil {
		return db.Result{}, err
	}
	if len(p) == 0 {
		return db.Result{}, errMalformed
	}
	switch p[0] {
	case 0x00:
		affected, status, err := okStatus(p)
		if err != nil {
			return db.Result{}, err
		}
		c.more = status&statusMoreResults != 0
		n := int64(affected)
		if c.debug() {
			c.logf("mysql_affected_rows(%p) = %d", c, n)
		}
		return db.Result{Affected: n}, nil
	case 0xff:
		return db.Result{}, c.fail(serverError(p), true)
	case 0xfb:
		return db.Result{}, c.refuseLocalFile()
	}
	return c.openRows(p, cols, text)
}

// openRows reads a result set's column count (p) and definitions, and
// makes the result set the open one.
func (c *wireConn) openRows(p []byte, cols *[]column, text bool) (db.Result, error) {
	w := c.w
	n, pos, _, ok := lenenc(p, 0)
	if !ok || n == 0 || n > math.MaxUint16 {
		return db.Result{}, errMalformed
	}
	follows := true
	if w.cacheMetadata && pos < len(p) {
		follows = p[pos] != 0
	}
	// The last result's rows are closed by now (only one is open per
	// session), so its struct is reused: no allocation per result set.
	r := c.spare
	if r == nil || !r.closed {
		r = new(wireRows)
		c.spare = r
	}
	*r = wireRows{c: c, n: int(n), text: text}
	var err error
	switch {
	case text: // text values need no column types
		if _, err = w.readColumns(r.n, nil, false); err != nil {
			return db.Result{}, err
		}
	case follows:
		if *cols, err = w.readColumns(r.n, *cols, true); err != nil {
			return db.Result{}, err
		}
		fallthrough
	default:
		if len(*cols) != r.n {
			return db.Result{}, errMalformed // no definitions known for these columns
		}
		r.cols = *cols
	}
	if c.debug() {
		c.logf("mysql_num_fields(%p) = %d", c, n)
	}
	c.cur = r
	return db.Result{Rows: r}, nil
}

// refuseLocalFile answers a LOAD DATA LOCAL INFILE's request for a client
// file with no data (sbgo sends no files), reads how the server ends the
// statement, and reports the refusal.
func (c *wireConn) refuseLocalFile() error {
	w := c.w
	var empty [4]byte
	putHeader(empty[:], 0, w.seq)
	w.seq++
	if _, err := w.nc.Write(empty[:]); err != nil {
		return err
	}
	p, err := w.readPacket()
	switch {
	case err != nil:
		return err
	case len(p) > 0 && p[0] == 0xff:
		return c.fail(serverError(p), true)
	case len(p) > 0 && p[0] == 0x00:
		_, status, err := okStatus(p)
		if err != nil {
			return err
		}
		c.more = status&statusMoreResults != 0
		return c.classify(clientError(crLocalInfileRejected, msgLocalInfileRejected), true)
	}
	return errMalformed
}

// NextResult steps to the next result set of the last command (a CALL,
// a multi-statement query): the rows left of the open one are skipped,
// and so are the results without rows.
func (c *wireConn) NextResult(ctx context.Context) (db.Result, bool, error) {
	if c.cur != nil {
		if err := c.cur.skip(); err != nil {
			return db.Result{}, false, err
		}
	}
	for c.more && c.w != nil {
		c.more = false
		var cols []column
		res, err := c.readResult(&cols, c.textResults)
		if err != nil {
			return db.Result{}, false, c.lostNow(err, true)
		}
		if res.Rows != nil {
			return res, true, nil
		}
	}
	return db.Result{}, false, nil
}

// drainResults reads and drops the results that follow the last one,
// so that the session is ready for its next command.
func (c *wireConn) drainResults() {
	for c.more && c.w != nil {
		c.more = false
		var cols []column
		res, err := c.readResult(&cols, c.textResults)
		if err != nil {
			var de *db.Error
			if !errors.As(err, &de) {
				c.lostNow(err, false)
			}
			return
		}
		if res.Rows != nil {
			res.Rows.Close()
		}
	}
}

// watch closes the session's socket if ctx is cancelled while a command
// waits for the server, as go-sql-driver does: the blocked read then
// fails and the session is lost. A command is over when the whole of its
// answer is read: its result set's rows, and the results that follow,
// may be read after its call has returned (Rows.Next, the next call's
// release), and the watch covers them too, so that a server that stops
// sending in the middle of a result cannot hold the session past its
// context. commandDone, or stop on a failure, ends the watch of the
// command; a context that cannot be cancelled costs nothing.
//
// Callers pass the same context call after call (a worker's run
// context), so the watch is registered once per session and context, not
// per command: a registration per command allocated. Between commands
// the watch only notes the cancellation (busy is false), so that a
// context cancelled while the session is idle does not close it. busy is
// set before ctx.Err is read, and the context sets Err before it calls
// the watch, so a cancellation is never missed by both.
func (c *wireConn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil {
		return noStop
	}
	nc := c.w.nc
	if ctx != c.watched {
		c.endWatch()
		busy := &c.busy
		c.watched = ctx
		c.unwatch = context.AfterFunc(ctx, func() {
			if busy.Load() {
				nc.Close()
			}
		})
		if c.idle == nil {
			c.idle = func() bool { busy.Store(false); return true }
		}
	}
	c.busy.Store(true)
	if ctx.Err() != nil {
		nc.Close()
	}
	return c.idle
}

// commandDone ends the watch of the command in progress once nothing of
// its answer is left to read (see watch).
func (c *wireConn) commandDone() {
	if c.more || c.cur != nil && !c.cur.done {
		return
	}
	c.busy.Store(false)
}

// endWatch ends the watch of the last context, if any.
func (c *wireConn) endWatch() {
	if c.unwatch != nil {
		c.unwatch()
		c.unwatch, c.watched = nil, nil
	}
	c.busy.Store(false)
}

func noStop() bool { return false }

// lost ends a command that failed on the socket or on the protocol: the
// session can no longer be used (libmysqlclient closes it too), so it is
// closed, and the next call reports 2006. A server's error (a *db.Error
// already) leaves the session as it is.
func (c *wireConn) lost(ctx context.Context, stop func() bool, err error, logIgnored bool) error {
	stop()
	var de *db.Error
	if errors.As(err, &de) {
		return err
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	c.closeSession()
	return c.fail(err, logIgnored)
}

// lostNow is lost for a failure outside a command's own call (reading
// rows, skipping results): no context, no watch.
func (c *wireConn) lostNow(err error, logIgnored bool) error {
	return c.lost(context.Background(), noStop, err, logIgnored)
}

// Reconnect closes the session and opens a new one to the same server
// (the same host and port, or socket). It makes one attempt: retrying is
// the caller's choice. Statements prepared on the server before are gone
// (executing one gives error 2056); emulated ones keep working.
//
// The connection keeps its implementation, chosen at Connect: should the
// new session negotiate capabilities the wire does not implement (the
// server was reconfigured or replaced in between), it is closed and
// Reconnect fails rather than being misread.
func (c *wireConn) Reconnect(ctx context.Context) error {
	c.logf("Reconnecting")
	c.closeSession()
	hc, err := c.reopen(ctx)
	if err != nil {
		return err
	}
	if c.w = newWire(hc); c.w == nil {
		c.closeSession()
		return &ConnectError{Err: clientError(crUnknownError, "the new session's capabilities differ from the first one's"), Endpoint: c.ep.describe()}
	}
	c.logf("Reconnected")
	return nil
}

// Close ends the session. Closing twice is harmless.
func (c *wireConn) Close() error {
	c.closeSession()
	return nil
}

func (c *wireConn) closeSession() {
	c.endWatch()
	if c.w != nil {
		// Nothing more is read from it: the session may be broken.
		c.w = nil
		c.more = false
		if c.cur != nil {
			c.cur.done = true
		}
	}
	c.release()
	c.closeGomysql()
}
