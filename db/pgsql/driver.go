// Package pgsql is sbgo's PostgreSQL driver (--db-driver=pgsql), built on
// jackc/pgx's protocol layer (pgconn): every db.Conn is one pgx.Conn of
// its own, never a pooled one, because scripts run BEGIN and COMMIT as
// separate statements.
//
// It shows scripts and users what sysbench's pgsql driver shows them:
// its options (1.0.20's, with the later --pgsql-sslmode), libpq's wording
// of connection failures, sql_errno 0 with the SQLSTATE in sql_state, a
// ROLLBACK after an ignorable error, and the read/write/other
// classification of results (a result with a row description is a read,
// whatever its row count). What it does differently, and why:
//
//   - --pgsql-host and --pgsql-port are lists, used round-robin as
//     MySQL's are (1.0.20 takes one of each).
//   - --pgsql-ignore-errors lists the SQLSTATEs that are ignorable
//     (1.0.20 hard-codes 40P01, 23505 and 40001, the default). A lost
//     connection is reported with an SQLSTATE of class 08 (08006 unless
//     the server sent a more precise one) or 57P01 when the server shut
//     the session down; when that state is listed the error asks for a
//     reconnect. sysbench crashes there instead.
//   - A call whose context ends (a forced shutdown) closes the session's
//     socket and fails as a lost connection (08006); the server is asked
//     to cancel the statement (watch.go).
//   - Results of text queries are read completely before Query returns,
//     as libpq's PQexec does, into a buffer the connection reuses: an
//     error that the server reports after the row description (a
//     deadlock or serialization failure in SELECT ... FOR UPDATE, a
//     statement timeout) must fail the query, not a later fetch that
//     scripts never make. A multi-statement query returns the last
//     statement's result, or the first error, as PQexec does.
//   - Prepared statements are prepared on the server at the first
//     Execute with the parameter types of its values (BIGINT as int8,
//     DOUBLE as float8, VARCHAR as varchar), as sysbench prepares them at
//     the first bind_param, so scripts see the same type rules;
//     statements without parameters are prepared at once. Their results
//     come back as text, not binary, so that fetch_row works. Parameter
//     values are not cut to 256 bytes, and NULL is sent as NULL.
//   - A '?' inside a string literal, a quoted identifier or a comment is
//     not a placeholder (sysbench rewrites every '?').
//   - With --db-ps-mode=disable, string values are quoted and escaped.
package pgsql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"sbgo/db"
	"sbgo/engine"
)

func init() { db.Register(Factory{}) }

// Factory registers the driver as "pgsql".
type Factory struct{}

var _ db.Factory = Factory{}

func (Factory) Name() string        { return "pgsql" }
func (Factory) Description() string { return "PostgreSQL driver" }

// defaultIgnoreErrors is 1.0.20's hard-coded list: deadlock, unique
// violation and serialization failure. The unique violation belongs
// there: oltp_read_write's DELETE and INSERT of one id race between
// threads under READ COMMITTED, and the loser's INSERT fails with 23505.
const defaultIgnoreErrors = "40P01,23505,40001"

// Options are sysbench 1.0.20's pgsql options in its order, then
// --pgsql-sslmode of later versions and sbgo's own. Host and port are
// lists so that several servers can share the load.
func (Factory) Options() []engine.Option {
	return []engine.Option{
		{Name: "pgsql-host", Desc: "PostgreSQL server host", Type: engine.ArgList, Default: engine.Default("localhost")},
		{Name: "pgsql-port", Desc: "PostgreSQL server port", Type: engine.ArgList, Default: engine.Default("5432")},
		{Name: "pgsql-user", Desc: "PostgreSQL user", Type: engine.ArgString, Default: engine.Default("sbtest")},
		{Name: "pgsql-password", Desc: "PostgreSQL password", Type: engine.ArgString, Default: engine.Default("")},
		{Name: "pgsql-db", Desc: "PostgreSQL database name", Type: engine.ArgString, Default: engine.Default("sbtest")},
		{Name: "pgsql-sslmode", Desc: "PostgreSQL SSL mode (disable, allow, prefer, require, verify-ca, verify-full)", Type: engine.ArgString, Default: engine.Default("prefer")},
		{Name: "pgsql-sslrootcert", Desc: "PostgreSQL SSL root certificate file", Type: engine.ArgString},
		{Name: "pgsql-sslcert", Desc: "PostgreSQL SSL client certificate file", Type: engine.ArgString},
		{Name: "pgsql-sslkey", Desc: "PostgreSQL SSL client key file", Type: engine.ArgString},
		{Name: "pgsql-ignore-errors", Desc: "list of SQLSTATEs of errors to ignore, or \"all\"", Type: engine.ArgList, Default: engine.Default(defaultIgnoreErrors)},
		ioModeOption, // see dial.go
	}
}

// New reads and checks the options once for the process and prepares
// the connection settings of every (host, port) pair.
func (Factory) New(opts *engine.Options, log *engine.Logger) (db.Driver, error) {
	s, err := readSettings(opts)
	if err != nil {
		return nil, err
	}
	d := &Driver{ignore: s.ignore, emulate: s.emulate}
	for _, cs := range s.connStrings() {
		cfg, err := pgx.ParseConfig(cs)
		if err != nil {
			return nil, settingsError(err)
		}
		prepareConfig(cfg)
		useSockets(cfg, s.blocking) // see dial.go
		d.targets = append(d.targets, cfg)
	}
	return d, nil
}

// Driver opens sessions to the configured servers.
type Driver struct {
	// targets holds the settings of every (host, port) pair in
	// sysbench's order: h1:p1, h1:p2, ..., h2:p1, ... next is the
	// process-wide round-robin cursor over them.
	targets []*pgx.ConnConfig
	next    atomic.Uint64

	ignore  ignoreList
	emulate bool // --db-ps-mode=disable
}

var (
	_ db.Driver             = (*Driver)(nil)
	_ db.ErrorTexter        = (*Driver)(nil)
	_ db.PrepareErrorTexter = (*Driver)(nil)
	_ db.ConnectionLoser    = (*Driver)(nil)
	_ db.Conn               = (*conn)(nil)
	_ db.Rows               = (*rows)(nil)
	_ db.Stmt               = (*stmt)(nil)
	_ db.ParamCounter       = (*stmt)(nil)
)

func (d *Driver) Name() string { return "pgsql" }

// Connect opens a new session on the next (host, port) pair. A failure
// is a *db.Error worded as libpq words it.
func (d *Driver) Connect(ctx context.Context) (db.Conn, error) {
	i := (d.next.Add(1) - 1) % uint64(len(d.targets))
	c := &conn{d: d, target: d.targets[i]}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// settings are the validated options.
type settings struct {
	hosts, ports []string // empty: libpq's default (PGHOST, PGPORT, ...)
	user         string
	password     string
	dbName       string
	sslmode      string // "": left to PGSSLMODE
	sslrootcert  string
	sslcert      string
	sslkey       string
	ignore       ignoreList
	emulate      bool
	blocking     bool // --pgsql-io-mode=blocking
}

func readSettings(opts *engine.Options) (settings, error) {
	s := settings{
		hosts:       listOption(opts, "pgsql-host"),
		ports:       listOption(opts, "pgsql-port"),
		user:        stringOption(opts, "pgsql-user", ""),
		password:    stringOption(opts, "pgsql-password", ""),
		dbName:      stringOption(opts, "pgsql-db", ""),
		sslmode:     stringOption(opts, "pgsql-sslmode", "prefer"),
		sslrootcert: stringOption(opts, "pgsql-sslrootcert", ""),
		sslcert:     stringOption(opts, "pgsql-sslcert", ""),
		sslkey:      stringOption(opts, "pgsql-sslkey", ""),
	}
	for _, p := range s.ports {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return s, fmt.Errorf("Invalid value for --pgsql-port: '%s'", p)
		}
	}
	switch s.sslmode {
	case "disable", "allow", "require", "verify-ca", "verify-full":
	case "prefer":
		// The default mode leaves PGSSLMODE in charge, as it was in
		// 1.0.20, which had no option for it.
		if os.Getenv("PGSSLMODE") != "" {
			s.sslmode = ""
		}
	default:
		return s, fmt.Errorf("Invalid value for --pgsql-sslmode: '%s'", s.sslmode)
	}
	var err error
	if s.ignore, err = parseIgnoreList(listOption(opts, "pgsql-ignore-errors")); err != nil {
		return s, err
	}
	switch mode := stringOption(opts, "db-ps-mode", "auto"); mode {
	case "auto":
	case "disable":
		s.emulate = true
	default:
		return s, fmt.Errorf("Invalid value for db-ps-mode: %s", mode)
	}
	if s.blocking, err = readIOMode(opts); err != nil {
		return s, err
	}
	return s, nil
}

func listOption(opts *engine.Options, name string) []string {
	if v, ok := opts.Lookup(name); ok {
		return v.List()
	}
	return nil
}

// stringOption is the option's text, def when it has none.
func stringOption(opts *engine.Options, name, def string) string {
	if v, ok := opts.Lookup(name); ok && !v.IsNull() {
		return v.String()
	}
	return def
}

// connStrings are the libpq keyword/value connection strings of every
// (host, port) pair, in round-robin order.
//
// They follow what PQsetdbLogin does with sysbench's arguments: a
// database name that contains '=' is itself a connection string whose
// settings the explicit host, port, user and password override; an empty
// value is no value, so libpq's environment variables (PGHOST, PGPORT,
// PGUSER, PGPASSWORD, PGSSLMODE, ...) and ~/.pgpass fill it in. A host
// starting with '/' is a Unix socket directory; "localhost" is TCP, as it
// is for libpq.
func (s settings) connStrings() []string {
	var common []byte
	if strings.Contains(s.dbName, "=") {
		common = append(common, s.dbName...)
		common = append(common, ' ')
	} else {
		common = appendSetting(common, "dbname", s.dbName)
	}
	common = appendSetting(common, "user", s.user)
	common = appendSetting(common, "password", s.password)
	common = appendSetting(common, "sslmode", s.sslmode)
	common = appendSetting(common, "sslrootcert", s.sslrootcert)
	common = appendSetting(common, "sslcert", s.sslcert)
	common = appendSetting(common, "sslkey", s.sslkey)

	hosts, ports := s.hosts, s.ports
	if len(hosts) == 0 {
		hosts = []string{""}
	}
	if len(ports) == 0 {
		ports = []string{""}
	}
	var out []string
	for _, h := range hosts {
		for _, p := range ports {
			b := append([]byte(nil), common...)
			b = appendSetting(b, "host", h)
			b = appendSetting(b, "port", p)
			out = append(out, string(b))
		}
	}
	return out
}

// appendSetting appends key='value' to a keyword/value connection
// string, with quotes and backslashes escaped; an empty value is left
// out so that the default applies.
func appendSetting(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, key...)
	b = append(b, "='"...)
	for i := 0; i < len(value); i++ {
		if value[i] == '\'' || value[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, value[i])
	}
	return append(b, "' "...)
}

// settingsError reports connection settings pgx cannot use (a missing
// certificate file, a bad key in a database connection string) without
// repeating the connection string, which may hold the password.
func settingsError(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		err = pe.Unwrap()
	}
	return fmt.Errorf("Invalid PostgreSQL connection settings: %v", err)
}

// cancelGrace is how long a query whose context is cancelled may take to
// end after the server was asked to cancel it; then the socket is closed.
const cancelGrace = 2 * time.Second

// prepareConfig sets what every session needs: notices and notifications
// dropped (sysbench silences notices), a FATAL or PANIC error from the
// server closing the session (whatever the server's language), and the
// bounded contexts of the driver's own goodbyes (closing a session or a
// statement) cancelling the request on the server, not the session. The
// calls of scripts give pgx no context to watch: see watch.go.
func prepareConfig(cfg *pgx.ConnConfig) {
	cfg.OnNotice = nil
	cfg.OnNotification = func(*pgconn.PgConn, *pgconn.Notification) {}
	cfg.OnPgError = func(_ *pgconn.PgConn, e *pgconn.PgError) bool {
		return !endsSession(e)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: cancelGrace}
	}
}

// open connects c to its target, recording the address dialled so that a
// failure names it as libpq does. The end of ctx closes the sockets the
// connect dialled (see dialWatch).
func (c *conn) open(ctx context.Context) error {
	cfg := c.target.Copy()
	dial := cfg.DialFunc
	w := &dialWatch{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		w.add(addr, nc)
		return nc, err
	}
	stop := context.AfterFunc(ctx, w.closeAll)
	pg, err := pgx.ConnectConfig(ctx, cfg)
	if !stop() && err == nil {
		// ctx ended as the connect succeeded: its socket is closed.
		pg.Close(context.Background())
		err = ctx.Err()
	}
	dialed := w.end()
	if err != nil && ctx.Err() != nil {
		err = ctx.Err() // what closed the socket
	}
	if err != nil {
		return connectError(cfg, dialed, err)
	}
	c.pg = pg
	c.gen++
	return nil
}

// dialWatch holds the sockets a connect dialled, so that the end of the
// connect's context closes them, and the last address dialled, which a
// failure names. pgx watches the context itself, but by setting a
// deadline on the socket, which does not wake a read already waiting on
// a blocking socket (sockconn.Conn), and only after its cancel request
// (cancelGrace) otherwise: closing the socket ends the connect at once
// in either io mode. Dials after the connect (pgx's cancel requests,
// which use the same DialFunc from goroutines of their own) are not
// watched.
type dialWatch struct {
	mu     sync.Mutex
	conns  []net.Conn
	dialed string
	ended  bool
}

// add records a dial of addr, which made nc (nil when it failed).
func (w *dialWatch) add(addr string, nc net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	w.dialed = addr
	if nc != nil {
		w.conns = append(w.conns, nc)
	}
}

func (w *dialWatch) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, nc := range w.conns {
		nc.Close()
	}
}

// end stops watching, the connect being over, and returns the last
// address it dialled ("" if none).
func (w *dialWatch) end() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended, w.conns = true, nil
	return w.dialed
}
