package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

// A session's commands are carried by one of two implementations of
// db.Conn, chosen when the session is opened (Driver.Connect):
//
//   - wireConn (wireconn.go): sbgo's own protocol code, on sessions whose
//     negotiated capabilities it implements (see wireCarries);
//   - sqlDriverConn (sqlconn.go): go-sql-driver's statements, for
//     everything else (TLS, compression, --mysql-io-mode=go-sql-driver).
//
// Both embed a session, the part they share: go-sql-driver opens and
// closes the server session in either case.

// gomysqlConn is what go-sql-driver's connection implements and the
// driver uses.
type gomysqlConn interface {
	driver.Conn
	driver.QueryerContext
	driver.ExecerContext
	driver.ConnPrepareContext
	// Query and Exec are the context-free forms, used when the caller's
	// context can never be cancelled: they skip go-sql-driver's
	// cancellation watcher, a channel round trip per call.
	Query(query string, args []driver.Value) (driver.Rows, error)
	Exec(query string, args []driver.Value) (driver.Result, error)
}

// gomysqlStmt is what go-sql-driver's prepared statement implements.
type gomysqlStmt interface {
	driver.Stmt
	driver.StmtQueryContext
	driver.StmtExecContext
}

// session is one server session, used by one goroutine: what both
// implementations of db.Conn share. It is their first field, so that the
// %p of the --mysql-debug trace is the same whichever method logs.
type session struct {
	d  *Driver
	ep endpoint
	mc gomysqlConn // nil once closed, or after a failed Reconnect
	// gen counts the sessions this connection has had: a statement
	// prepared in an earlier one is gone.
	gen int

	// Reused by every row of every result: the text of the values that
	// are not text already, and where each is.
	text  []byte
	spans []span
}

// span is where a column's text is in session.text.
type span struct{ col, start, end int }

// open dials the session for s.ep. Unless go-sql-driver carries every
// command (--mysql-io-mode=go-sql-driver), it returns what the handshake
// showed, from which newWire decides whether the wire may carry it.
func (s *session) open(ctx context.Context) (*handshakeCapture, error) {
	var hc *handshakeCapture
	if s.d.set.ioMode != ioDriver {
		hc = new(handshakeCapture)
		ctx = context.WithValue(ctx, captureKey{}, hc)
	}
	dc, err := s.d.dial(ctx, s.ep)
	if err != nil {
		return nil, err
	}
	mc, ok := dc.(gomysqlConn)
	if !ok {
		dc.Close()
		return nil, &ConnectError{Err: clientError(crUnknownError, "go-sql-driver connection lacks a needed method"), Endpoint: s.ep.describe()}
	}
	s.mc = mc
	return hc, nil
}

// reopen opens a new session after the old one was closed: statements
// of the old one are gone.
func (s *session) reopen(ctx context.Context) (*handshakeCapture, error) {
	s.gen++
	return s.open(ctx)
}

// closeGomysql ends the session go-sql-driver opened, if it is open.
func (s *session) closeGomysql() {
	if s.mc == nil {
		return
	}
	if s.debug() {
		s.logf("mysql_close(%p)", s)
	}
	// The error of COM_QUIT on a dead session says nothing useful.
	s.mc.Close()
	s.mc = nil
}

// debug reports whether calls are traced (--mysql-debug). Callers test
// it before building log arguments, so tracing costs nothing when off.
func (s *session) debug() bool { return s.d.set.debug }

func (s *session) logf(format string, args ...any) {
	s.d.log.Logf(engine.LevelDebug, format, args...)
}

// fail converts err to a classified *db.Error. Ignored errors are logged
// at DEBUG when logIgnored is set, as sysbench's check_error does for
// queries and executes (not for prepares).
func (s *session) fail(err error, logIgnored bool) error {
	e := queryError(err)
	if s.debug() {
		s.logf("mysql_errno(%p) = %d", s, e.Errno)
		s.logf("mysql_state(%p) = %s", s, e.State)
		s.logf("mysql_error(%p) = %s", s, e.Msg)
	}
	return s.classify(e, logIgnored)
}

func (s *session) classify(e *db.Error, logIgnored bool) error {
	log := s.d.log
	if !logIgnored {
		log = nil
	}
	return classify(e, s.d.set.ignore, log)
}

// unsupportedPS reports whether a prepare failed with ER_UNSUPPORTED_PS,
// logged at INFO as sysbench does: the statement is then emulated on
// the client.
func (s *session) unsupportedPS(err error, query string) bool {
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != erUnsupportedPS {
		return false
	}
	s.d.log.Logf(engine.LevelInfo, "Failed to prepare query \"%s\" (%d: %s), using emulation", query, me.Number, me.Message)
	return true
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
