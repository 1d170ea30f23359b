package pgsql

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// watch is how a session honours the context of a call (db/db.go's
// contract) without pgx's help: pgx is always given context.Background,
// which it does not watch, because watching a cancellable context costs
// pgx a handoff and allocations per call (docs/performance.md). Callers
// pass the same context call after call (a worker's run context), so the
// session registers one context.AfterFunc per session and context, and
// again only when a different context arrives.
//
// When the context ends during a call, the watch closes the session's
// socket: the call's read or write fails at once, and pgconn, seeing its
// socket fail, sends the server a cancel request itself, so the
// statement stops there too. Between calls (busy is false) the watch does
// nothing, and the next call fails at its start. busy is set before the
// context's Err is read, and a context sets Err before it runs its
// AfterFunc, so an ending is never missed by both.
type watch struct {
	ctx  context.Context // the context watched; nil for none
	stop func() bool     // ends the watch of ctx
	busy atomic.Bool     // a call is waiting for the server
}

// errAbandoned is the cause of a session closed because the context of
// its call ended.
var errAbandoned = errors.New("connection closed by the client")

// begin returns the session for a call made with ctx, marked busy until
// c.idle, so that the end of ctx closes its socket. A call started on a
// context already done closes the session and fails at once with a lost
// connection.
func (c *conn) begin(ctx context.Context) (*pgconn.PgConn, error) {
	pc, err := c.session()
	c.wasOpen = err == nil && !pc.IsClosed()
	if err != nil || ctx.Done() == nil {
		return pc, err
	}
	if ctx != c.watch.ctx {
		c.watchSession(ctx, pc)
	}
	c.watch.busy.Store(true)
	if ctx.Err() != nil {
		pc.Conn().Close() // so that the goodbye below does not wait
		c.closeSession()
		return nil, c.abandoned(ctx)
	}
	return pc, nil
}

// idle ends a call that begin started.
func (c *conn) idle() { c.watch.busy.Store(false) }

// watchSession ends the watch of the last context, if any, and watches
// ctx: while a call is busy, its end closes pc's socket.
func (c *conn) watchSession(ctx context.Context, pc *pgconn.PgConn) {
	c.endWatch()
	nc, busy := pc.Conn(), &c.watch.busy
	c.watch.ctx = ctx
	c.watch.stop = context.AfterFunc(ctx, func() {
		if busy.Load() {
			nc.Close()
		}
	})
}

// endWatch ends the watch of the last context, if any.
func (c *conn) endWatch() {
	if c.watch.stop != nil {
		c.watch.stop()
		c.watch.ctx, c.watch.stop = nil, nil
	}
	c.watch.busy.Store(false)
}

// abandoned is the error of a call whose context ended: the session is
// lost, which is an SQLSTATE of class 08 (08006), so that the caller
// sees the same error whether ctx ended before or during the call.
func (c *conn) abandoned(ctx context.Context) error {
	return c.d.queryError(fmt.Errorf("%w (%w)", errAbandoned, ctx.Err()), true)
}
