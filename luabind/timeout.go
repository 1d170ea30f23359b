package luabind

import (
	"context"
	"sync"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// --db-timeout bounds each driver call of a connection: a call still
// waiting for the server when it passes has its context cancelled, so
// the driver closes the connection and fails the call with its
// lost-connection error (MySQL's 2013, PostgreSQL's 08006), which the
// driver's ignore list may make a reconnect and a restarted event.
//
// Without the option a call gets the state's context as it is: no
// timer, nothing per call. With it, each connection has one stmtTimer,
// made with the connection and re-armed per call (a Reset and a Stop of
// the same timer, no allocation), and one context that lasts from call
// to call until a timeout cancels it: the drivers watch a context once
// per session and context, so a new context per call would cost them a
// registration per call.

// dbTimeout is the script's --db-timeout, 0 when unset.
func (s *Script) dbTimeout() time.Duration {
	d, err := engine.DBTimeout(s.cfg.Options)
	if err != nil {
		return 0 // refused when the options were read
	}
	return d
}

// stmtTimer is one connection's --db-timeout. begin and end bracket a
// call; expire runs in the timer's goroutine. mu is the connection's
// own, taken by its worker and by its timer only.
type stmtTimer struct {
	limit time.Duration
	timer *time.Timer

	mu     sync.Mutex
	parent context.Context // the state's context when ctx was made
	ctx    context.Context // the calls' context, a child of parent
	cancel context.CancelFunc
	due    time.Time // when the call in progress times out; zero between calls
}

// newStmtTimer returns a connection's timer, or nil when limit is 0.
func newStmtTimer(limit time.Duration) *stmtTimer {
	if limit <= 0 {
		return nil
	}
	t := &stmtTimer{limit: limit}
	t.timer = time.AfterFunc(time.Hour, t.expire)
	t.timer.Stop()
	return t
}

// begin starts the clock of a call made in a state whose context is
// parent, and returns the call's context. That context is made again
// only when a timeout has ended it, or when the state's context is
// another (the main state's, from one run to the next).
func (t *stmtTimer) begin(parent context.Context) context.Context {
	t.mu.Lock()
	if parent != t.parent || t.ctx.Err() != nil && parent.Err() == nil {
		if t.cancel != nil {
			t.cancel()
		}
		ctx, cancel := context.WithCancel(parent)
		t.parent, t.ctx, t.cancel = parent, timedOut{ctx, parent}, cancel
	}
	ctx := t.ctx
	t.due = time.Now().Add(t.limit)
	t.mu.Unlock()
	t.timer.Reset(t.limit)
	return ctx
}

// end stops the clock of the call begin started.
func (t *stmtTimer) end() {
	t.mu.Lock()
	t.due = time.Time{}
	t.mu.Unlock()
	t.timer.Stop()
}

// expire cancels the calls' context when the call in progress is past
// its time. A firing that comes late, once that call has ended and
// another begun, finds the new call not yet due and leaves it alone: the
// Reset of its begin fires again at its own time.
func (t *stmtTimer) expire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.due.IsZero() && !time.Now().Before(t.due) {
		t.cancel()
	}
}

// close stops the timer for good.
func (t *stmtTimer) close() {
	t.timer.Stop()
	t.mu.Lock()
	if t.cancel != nil {
		t.cancel()
	}
	t.mu.Unlock()
}

// timedOut is the calls' context of a stmtTimer: its Err says that a
// deadline passed (the drivers word the lost connection with it), unless
// the state's own context ended, which is then the reason.
// Its Done and Value are the embedded context's, so that
// context.AfterFunc finds the cancelCtx beneath and registers on it
// without a goroutine.
type timedOut struct {
	context.Context
	parent context.Context
}

func (c timedOut) Err() error {
	err := c.Context.Err()
	if err == context.Canceled && c.parent.Err() == nil {
		return context.DeadlineExceeded
	}
	return err
}

// callContext returns the context of a driver call on c and starts its
// --db-timeout clock, if any; callEnd stops it.
func (c *luaConn) callContext() context.Context {
	if c.timer == nil {
		return c.st.ctx
	}
	return c.timer.begin(c.st.ctx)
}

// callEnd ends the call callContext started.
func (c *luaConn) callEnd() {
	if c.timer != nil {
		c.timer.end()
	}
}

// query runs a text query on conn, c's settled session, under
// --db-timeout.
func (c *luaConn) query(conn db.Conn, query string) (db.Result, error) {
	ctx := c.callContext()
	res, err := conn.Query(ctx, query)
	c.callEnd()
	return res, err
}

// prepare prepares query on conn, c's settled session, under
// --db-timeout.
func (c *luaConn) prepare(conn db.Conn, query string) (db.Stmt, error) {
	ctx := c.callContext()
	stmt, err := conn.Prepare(ctx, query, nil)
	c.callEnd()
	return stmt, err
}

// execute runs stmt, a statement of c's, under --db-timeout.
func (c *luaConn) execute(stmt db.Stmt, args []db.Value) (db.Result, error) {
	ctx := c.callContext()
	res, err := stmt.Execute(ctx, args)
	c.callEnd()
	return res, err
}

// connectContext is the context of one connection attempt: the state's,
// bounded by connectTimeout and --db-timeout.
func (st *state) connectContext() (context.Context, context.CancelFunc) {
	limit := connectTimeout
	if d := st.script.dbTimeout(); d > 0 {
		limit = min(limit, d)
	}
	return context.WithTimeout(st.ctx, limit)
}
