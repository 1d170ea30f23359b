// Package db is the seam between the Lua bindings and the database
// drivers: the Driver, Conn, Stmt and Rows interfaces, the Error that
// carries sysbench's error classes, and the registry of drivers by name.
//
// A Conn is one server session used by one goroutine (a worker's Lua
// state); there is never a pool behind it, because scripts run BEGIN and
// COMMIT as statements. Results are read lazily: a script that never
// fetches rows (all of sysbench's OLTP reads) costs no row buffering.
//
// Contexts: every call that may wait for the server takes a ctx, which
// bounds that wait and nothing else. In a run, the Lua bindings pass the
// worker's run context (engine.Events.Context), cancelled when the run
// abandons the work in flight (a forced shutdown, a second interrupt);
// elsewhere a background one. Connects get a bounded child of it. The
// contract, for every method below that takes a ctx:
//   - once ctx is done, the call returns promptly with an error of the
//     lost-connection kind (MySQL's 2013, PostgreSQL's 08006, SQLite's
//     SQLITE_INTERRUPT; Kind Reconnect where the driver's ignore list has
//     it), even while the server has not answered;
//   - the session is then unusable until Conn.Reconnect or Conn.Close
//     (the drivers close its socket, as go-sql-driver does; PostgreSQL's
//     is also asked to cancel the statement);
//   - a driver keeps no reference to ctx once the call has returned
//     (Connect's ctx included: the session outlives it).
//
// A ctx that can never be done (context.Background) must cost nothing per
// call. A cancellable one may cost a registration per call (a watch on the
// socket); docs/performance.md has the figures.
//
// Optional capabilities are optional interfaces:
//   - MoreResults: a Conn that can step through multi-statement results.
//   - ParamCounter: a Stmt that knows its number of parameters.
//   - TypeBinder: a Stmt prepared once its parameter types are known.
//   - ErrorTexter, PrepareErrorTexter: a Driver that words its errors as
//     sysbench's driver logs them.
//   - ConnectionLoser: a Driver that tells the error of a lost connection.
//   - ThreadBlocker: a Factory whose sessions may block their OS thread.
package db

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"sbgo/engine"
)

// Kind is how sysbench treats a failed query (spec §3.5.8).
type Kind int

const (
	// Fatal errors end the run (unless a sql_error_ignorable hook says
	// otherwise).
	Fatal Kind = iota
	// Ignorable errors (in the driver's ignore list) restart the event.
	Ignorable
	// Reconnect errors are ignorable errors that lost the connection: the
	// session must be reopened (Conn.Reconnect) before the event restarts.
	Reconnect
)

// Error is a failed database call, with the numbers scripts test for.
type Error struct {
	Errno int    // MySQL server or client error number; 0 for PostgreSQL
	State string // SQLSTATE ("HY000" for MySQL client errors)
	Msg   string // the server's or client's message
	Kind  Kind
	// InDoubt says the session was lost after the statement was sent, or
	// while sending it: the server may have run it, and the client
	// cannot know. For a COMMIT that is a transaction that may or may
	// not have committed. A statement that never left the client (the
	// session was found closed) is not in doubt.
	InDoubt bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("error %d (%s): %s", e.Errno, e.State, e.Msg)
}

// AsError returns err as a *Error, wrapping any other error as a fatal one.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{State: "HY000", Msg: err.Error(), Kind: Fatal}
}

// ParamType is the type of a prepared-statement parameter, after
// sysbench's folding of its SQL types (spec §3.5.4).
type ParamType int

const (
	ParamInt    ParamType = iota // TINYINT .. BIGINT: an int64
	ParamDouble                  // FLOAT, DOUBLE
	ParamString                  // CHAR, VARCHAR
)

// Value is one parameter value. Its fields are reused from execute to
// execute; a driver must not keep S after Execute returns.
type Value struct {
	Type ParamType
	Null bool
	I    int64
	F    float64
	S    []byte
}

// Rows is the result set of one statement, read row by row. Only one
// Rows per Conn is open at a time: the next call on the Conn closes it.
// A closed Rows is not used again, so that a driver can reuse it for the
// next result instead of allocating one per statement.
type Rows interface {
	// NumFields is the number of columns.
	NumFields() int
	// Next reads the next row into row (len NumFields): each value as
	// text, nil for SQL NULL. The slices stay valid until the next call
	// on the Rows or its Conn. It returns false after the last row.
	Next(row [][]byte) (bool, error)
	// Close discards the rows not read.
	Close() error
}

// Result is the outcome of a statement: a result set (a read), or the
// number of rows it changed.
type Result struct {
	Rows     Rows // nil when the statement returned no result set
	Affected int64
}

// Conn is one database session, used by one goroutine. Query and Execute
// are the per-event path: they must not allocate more than the driver
// needs.
type Conn interface {
	// Query runs query as it is; ctx bounds the wait (see the package
	// doc). A driver keeps no reference to query
	// (nor to any part of it, errors included) once Query has returned:
	// callers may pass a view of a buffer they reuse next (bulk inserts
	// do).
	Query(ctx context.Context, query string) (Result, error)
	// Prepare prepares query, whose parameters are marked '?'. params may
	// be nil: scripts declare parameter types after preparing, so a driver
	// that needs them takes them from the first Execute's values.
	Prepare(ctx context.Context, query string, params []ParamType) (Stmt, error)
	// Reconnect closes the session and opens a new one with the same
	// parameters; prepared statements of the old session are gone. ctx
	// bounds the new session's connect only.
	Reconnect(ctx context.Context) error
	Close() error
}

// Stmt is a prepared statement of one Conn. Execute's ctx bounds the wait
// as Conn.Query's does, and its cancellation loses the Conn's session.
type Stmt interface {
	Execute(ctx context.Context, args []Value) (Result, error)
	Close() error
}

// ParamCounter is a Stmt that knows how many parameters it takes, so that
// a wrong bind_param count is reported at bind time as in sysbench.
type ParamCounter interface {
	NumParams() int
}

// TypeBinder is a Stmt that is prepared on the server only once its
// parameter types are known (PostgreSQL needs them). sysbench prepares
// such statements when the script binds its parameters, outside any
// transaction; the binding calls BindTypes at that moment so that the
// server sees the same statements at the same time.
type TypeBinder interface {
	BindTypes(ctx context.Context, types []ParamType) error
}

// ErrorTexter is a Driver that words errors the way sysbench's driver
// logs them (e.g. "mysql_drv_query() returned error 1146 (...) for query
// '...'"), for the FATAL lines printed before a script's error.
type ErrorTexter interface {
	// QueryErrorText is logged before a fatal query or execute error;
	// prepared is true for a prepared statement's execute.
	QueryErrorText(e *Error, query string, prepared bool) string
	// ConnectErrorText is what is logged, one line each, when Connect or
	// Reconnect fails with err.
	ConnectErrorText(err error) []string
}

// PrepareErrorTexter is a Driver with sysbench's wording for a failed
// prepare (e.g. "mysql_stmt_prepare() failed" then the server's error).
type PrepareErrorTexter interface {
	PrepareErrorText(e *Error) []string
}

// ConnectionLoser is a Driver that tells the error its calls fail with
// when their connection is lost, as after their context ended: the run
// counts an event it abandons at its deadline as that error
// (engine.ConnectionLoss).
type ConnectionLoser interface {
	// LostConnection returns a new copy of that error, its Kind set by
	// the driver's ignore list.
	LostConnection() *Error
}

// MoreResults is a Conn whose last Query may have returned several
// results (multi-statements, CALL).
type MoreResults interface {
	// NextResult advances to the next result; ok is false when there is
	// none.
	NextResult(ctx context.Context) (res Result, ok bool, err error)
}

// Driver opens sessions with its options. Connect's ctx bounds the connect
// and handshake only; the session does not watch it afterwards.
type Driver interface {
	Name() string
	Connect(ctx context.Context) (Conn, error)
}

// Factory is a registered driver kind: its name, help and options, and
// how to make the Driver from the parsed options. New is called once per
// process, the first time a script asks for the driver.
type Factory interface {
	Name() string        // "mysql"
	Description() string // "MySQL driver", as in --help
	Options() []engine.Option
	New(opts *engine.Options, log *engine.Logger) (Driver, error)
}

// ThreadBlocker is a Factory whose sessions may wait for the server in
// blocking system calls, holding their OS thread, rather than through the
// runtime's network poller.
type ThreadBlocker interface {
	// BlocksThreads reports whether sessions made with opts block, for a
	// run whose thread policy is p so far (engine.DecideThreadPolicy asks
	// it with Threads, CPUs and MayOwnThreads set). A driver that opens
	// its sessions later reads the decided policy from
	// opts.ThreadPolicy, and must come to the same answer.
	BlocksThreads(opts *engine.Options, p engine.ThreadPolicy) bool
}

// BlocksThreads reports whether the sessions of the --db-driver driver
// wait in blocking system calls with opts and policy p, so that the
// engine can give each worker an OS thread of its own
// (engine.ThreadPolicy.OwnThreads).
func BlocksThreads(opts *engine.Options, p engine.ThreadPolicy) bool {
	name := "mysql"
	if v, ok := opts.Lookup("db-driver"); ok && v.String() != "" {
		name = v.String()
	}
	f, ok := Lookup(name)
	if !ok {
		return false
	}
	b, ok := f.(ThreadBlocker)
	return ok && b.BlocksThreads(opts, p)
}

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register makes a driver available by name. Drivers call it from init;
// registering a name twice is a programming error.
func Register(f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[f.Name()]; dup {
		panic("db: driver registered twice: " + f.Name())
	}
	registry[f.Name()] = f
}

// Lookup returns the driver registered as name.
func Lookup(name string) (Factory, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	f, ok := registry[name]
	return f, ok
}

// Factories returns the registered drivers, by name.
func Factories() []Factory {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Factory, 0, len(registry))
	for _, f := range registry {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}
