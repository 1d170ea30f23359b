package sqlite

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"

	"sbgo/db"
)

// conn is one SQLite connection, used by one goroutine: its libc.TLS
// (the C stack of the translated code) is never shared.
type conn struct {
	d   *Driver
	tls *libc.TLS
	db  uintptr // the sqlite3 handle; 0 when closed
	// out holds sqlite3_prepare_v2's two out-parameters (the statement
	// and the tail of the text), allocated once.
	out  uintptr
	text cbuf // the text of the query in progress
	rows rows // the current result set, reused by every statement
	// stmts are the statements prepared on this handle, finalized when it
	// closes (a Reconnect leaves the script's statement objects behind).
	stmts []*stmt
	id    uintptr // this conn's key in busyConns

	// The context of the call in progress: see enter.
	callDone <-chan struct{} // its Done channel, nil for none
	watched  context.Context // the context the AfterFunc watches
	stop     func() bool     // unregisters the AfterFunc
	inCall   atomic.Bool     // a call that watches a context is running
	canceled atomic.Bool     // the AfterFunc interrupted that call
	lost     bool            // a call's context ended: unusable until Reconnect
	// closing orders the AfterFunc's interrupt before closing the handle.
	closing sync.Mutex
}

// open opens the database and applies the settings: extended result
// codes, the busy handler, then the PRAGMAs of the options.
func (c *conn) open(ctx context.Context) error {
	c.tls = libc.NewTLS()
	c.out = lib.Xsqlite3_malloc64(c.tls, uint64(2*ptrSize))
	if c.out == 0 {
		c.release()
		return &db.Error{Errno: lib.SQLITE_NOMEM, State: codeName(lib.SQLITE_NOMEM), Msg: "out of memory", Kind: db.Fatal}
	}
	if err := c.openHandle(); err != nil {
		c.release()
		return err
	}
	c.lost = false
	lib.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	c.setBusyHandler()
	for _, p := range c.d.s.setup {
		if err := c.setup(ctx, "PRAGMA "+p); err != nil {
			c.closeSession()
			return err
		}
	}
	c.rows.Close()
	return nil
}

// setup runs one PRAGMA of the settings. Changing the journal mode of a
// new database needs its exclusive lock, which connections opened at the
// same moment (a parallel prepare) ask for while each holds a shared
// one: SQLite then fails all but one at once with SQLITE_BUSY rather than
// let them wait for one another, so the PRAGMA is tried again as the
// busy handler would, up to --sqlite-busy-timeout.
func (c *conn) setup(ctx context.Context, pragma string) error {
	for n := 0; ; n++ {
		_, err := c.Query(ctx, pragma)
		e, ok := err.(*db.Error)
		if !ok || e.Errno != lib.SQLITE_BUSY {
			return err
		}
		delay, waited := busyDelay(n)
		if waited+delay > c.d.s.busyTimeout*1000 {
			return err
		}
		t := time.NewTimer(time.Duration(delay) * time.Microsecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// openHandle calls sqlite3_open_v2. The connection is used by one
// goroutine at a time, so SQLite's per-connection mutex is left out
// (sqlite3_interrupt needs none).
func (c *conn) openHandle() error {
	name := c.text.text(c.tls, c.d.s.uri)
	if name == 0 {
		return &db.Error{Errno: lib.SQLITE_NOMEM, State: codeName(lib.SQLITE_NOMEM), Msg: "out of memory", Kind: db.Fatal}
	}
	flags := int32(lib.SQLITE_OPEN_READWRITE | lib.SQLITE_OPEN_CREATE | lib.SQLITE_OPEN_URI | lib.SQLITE_OPEN_NOMUTEX)
	rc := lib.Xsqlite3_open_v2(c.tls, name, c.out, flags, 0)
	h := cLoad(c.out)
	if rc != lib.SQLITE_OK {
		msg := lib.Xsqlite3_errstr(c.tls, rc)
		if h != 0 {
			msg = lib.Xsqlite3_errmsg(c.tls, h)
		}
		e := &db.Error{Errno: int(rc & 0xff), State: codeName(rc), Msg: goString(msg), Kind: db.Fatal}
		if h != 0 {
			lib.Xsqlite3_close_v2(c.tls, h)
		}
		return e
	}
	c.closing.Lock()
	c.db = h
	c.closing.Unlock()
	return nil
}

// enter starts a call made with ctx. A context that can end is watched
// by one context.AfterFunc per connection and context (the workers pass
// the same run context to every call), which interrupts the statement in
// progress once the context ends; the busy handler ends its waits too.
func (c *conn) enter(ctx context.Context) error {
	if c.db == 0 || c.lost {
		return c.d.LostConnection()
	}
	c.callDone = ctx.Done()
	if c.callDone == nil {
		return nil
	}
	if ctx != c.watched {
		c.watch(ctx)
	}
	c.inCall.Store(true)
	if ctx.Err() != nil {
		c.inCall.Store(false)
		c.lost = true
		return c.d.LostConnection()
	}
	return nil
}

// leave ends a call started by enter; err is its outcome, replaced by
// the lost-connection error when the call was interrupted, or failed
// once its context had ended (the busy handler gives up then, before the
// AfterFunc may have run).
func (c *conn) leave(err error) error {
	done := c.callDone
	if done == nil {
		return err
	}
	c.inCall.Store(false)
	c.callDone = nil
	interrupted := c.canceled.Swap(false)
	if !interrupted && err != nil {
		select {
		case <-done:
			interrupted = true
		default:
		}
	}
	if interrupted {
		c.lost = true
		return c.d.LostConnection()
	}
	return err
}

// interrupt runs on the AfterFunc's goroutine when ctx ends. It
// interrupts only a call that is running and watches ctx (an interrupt between
// calls would be cleared by SQLite when the next statement starts, but
// the next call checks the context itself), under the lock that Close
// takes, so that the handle is never freed under it. It uses a TLS of its
// own: the connection's belongs to the goroutine in the call.
func (c *conn) interrupt(ctx context.Context) {
	c.closing.Lock()
	defer c.closing.Unlock()
	if c.db == 0 || c.watched != ctx || !c.inCall.Load() {
		return
	}
	c.canceled.Store(true)
	tls := libc.NewTLS()
	lib.Xsqlite3_interrupt(tls, c.db)
	tls.Close()
}

// watch makes ctx the context watched. A callback of the context watched
// before may still be on its way: it finds that its context is no longer
// the one watched, and does nothing.
func (c *conn) watch(ctx context.Context) {
	c.unwatch()
	c.closing.Lock()
	c.watched = ctx
	c.closing.Unlock()
	c.stop = context.AfterFunc(ctx, func() { c.interrupt(ctx) })
}

func (c *conn) unwatch() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	c.closing.Lock()
	c.watched = nil
	c.closing.Unlock()
}

// Query runs a text query: each of its statements in turn, returning
// the last one's result or the first error.
func (c *conn) Query(ctx context.Context, query string) (db.Result, error) {
	c.rows.Close()
	if err := c.enter(ctx); err != nil {
		return db.Result{}, err
	}
	res, err := c.runText(query)
	return res, c.leave(err)
}

func (c *conn) runText(query string) (db.Result, error) {
	p := c.text.text(c.tls, query)
	if p == 0 {
		return db.Result{}, c.d.codeError(lib.SQLITE_NOMEM, "out of memory")
	}
	end := p + uintptr(len(query))
	var res db.Result
	for p < end {
		rc := lib.Xsqlite3_prepare_v2(c.tls, c.db, p, int32(end-p), c.out, c.out+ptrSize)
		if rc != lib.SQLITE_OK {
			return db.Result{}, c.error(rc)
		}
		st, tail := cLoad(c.out), cLoad(c.out+ptrSize)
		if tail <= p {
			break
		}
		p = tail
		if st == 0 {
			continue // a comment or white space
		}
		var err error
		res, err = c.run(st)
		lib.Xsqlite3_finalize(c.tls, st)
		if err != nil {
			return db.Result{}, err
		}
	}
	return res, nil
}

// run steps st to its end: the rows of a statement with result columns
// go into c.rows; for any other, the rows it changed are counted when it
// changed any (sqlite3_changes keeps the count of the last INSERT, UPDATE
// or DELETE, whatever ran since). The caller resets or finalizes st.
func (c *conn) run(st uintptr) (db.Result, error) {
	ncol := int(lib.Xsqlite3_column_count(c.tls, st))
	if ncol > 0 {
		c.rows.reset(ncol)
	}
	before := lib.Xsqlite3_total_changes64(c.tls, c.db)
	for {
		rc := lib.Xsqlite3_step(c.tls, st)
		if rc == lib.SQLITE_ROW {
			c.rows.add(c.tls, st)
			continue
		}
		if rc != lib.SQLITE_DONE {
			c.rows.reset(0)
			return db.Result{}, c.error(rc)
		}
		break
	}
	if ncol > 0 {
		c.rows.open = true
		return db.Result{Rows: &c.rows}, nil
	}
	if lib.Xsqlite3_total_changes64(c.tls, c.db) == before {
		return db.Result{}, nil
	}
	return db.Result{Affected: lib.Xsqlite3_changes64(c.tls, c.db)}, nil
}

// Prepare prepares query's single statement; with --db-ps-mode=disable
// the statement is emulated on the client. Parameter types come with
// each Execute's values, so params is not needed.
func (c *conn) Prepare(ctx context.Context, query string, params []db.ParamType) (db.Stmt, error) {
	c.rows.Close()
	if c.d.s.emulate {
		return db.NewEmulated(c, query, quoteLiteral), nil
	}
	if err := c.enter(ctx); err != nil {
		return nil, err
	}
	s, err := c.prepare(query)
	if err = c.leave(err); err != nil {
		return nil, err
	}
	if params != nil && len(params) != s.nparams {
		s.Close()
		return nil, wrongParamCount(len(params), s.nparams)
	}
	return s, nil
}

func (c *conn) prepare(query string) (*stmt, error) {
	p := c.text.text(c.tls, query)
	if p == 0 {
		return nil, c.d.codeError(lib.SQLITE_NOMEM, "out of memory")
	}
	end := p + uintptr(len(query))
	rc := lib.Xsqlite3_prepare_v2(c.tls, c.db, p, int32(len(query)), c.out, c.out+ptrSize)
	if rc != lib.SQLITE_OK {
		return nil, c.error(rc)
	}
	st, tail := cLoad(c.out), cLoad(c.out+ptrSize)
	if st == 0 {
		return nil, c.d.codeError(lib.SQLITE_MISUSE, "no SQL statement to prepare")
	}
	if tail < end && strings.TrimSpace(string(cBytes(tail, int(end-tail)))) != "" {
		lib.Xsqlite3_finalize(c.tls, st)
		return nil, c.d.codeError(lib.SQLITE_ERROR, "a prepared statement holds one SQL statement")
	}
	s := &stmt{c: c, st: st, nparams: int(lib.Xsqlite3_bind_parameter_count(c.tls, st))}
	c.stmts = append(c.stmts, s)
	return s, nil
}

// forget removes s from the statements to finalize.
func (c *conn) forget(s *stmt) {
	for i, x := range c.stmts {
		if x == s {
			c.stmts = append(c.stmts[:i], c.stmts[i+1:]...)
			return
		}
	}
}

// Reconnect closes the connection and opens the database again. The
// statements of the old connection fail from now on.
func (c *conn) Reconnect(ctx context.Context) error {
	c.closeSession()
	return c.open(ctx)
}

// Close closes the connection; later calls fail as on a lost one.
func (c *conn) Close() error {
	c.closeSession()
	return nil
}

// closeSession finalizes the statements, closes the handle and frees
// what the connection allocated in C memory.
func (c *conn) closeSession() {
	c.unwatch()
	c.rows.Close()
	if c.tls == nil {
		return
	}
	for _, s := range c.stmts {
		lib.Xsqlite3_finalize(c.tls, s.st)
		s.free()
		s.st = 0
	}
	c.stmts = nil
	if c.db != 0 {
		busyConns.Delete(c.id)
		c.closing.Lock()
		lib.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
		c.closing.Unlock()
	}
	c.release()
}

// release frees the C memory and the TLS.
func (c *conn) release() {
	c.text.free(c.tls)
	if c.out != 0 {
		lib.Xsqlite3_free(c.tls, c.out)
		c.out = 0
	}
	c.tls.Close()
	c.tls = nil
}
