// Package mysql is sbgo's MySQL and MariaDB driver (--db-driver=mysql),
// built on go-sql-driver/mysql below database/sql: every db.Conn is one
// server session of its own, never a pooled one, because scripts run
// BEGIN and COMMIT as separate statements.
//
// go-sql-driver opens every session (authentication, TLS, compression).
// On sessions whose negotiated capabilities it implements (not TLS, not
// compression: see wireCarries), the commands of the per-event path
// (queries and prepared statements) are then written and read by sbgo's
// own protocol code (wireConn, wire.go), which costs a fraction of
// go-sql-driver's client CPU per statement; on the others, and with
// --mysql-io-mode=go-sql-driver, go-sql-driver carries everything
// (sqlDriverConn). docs/performance.md has the measurements.
//
// It reproduces what sysbench 1.0.20's driver shows to scripts and users:
// its options, the round-robin choice of host and port, the error numbers
// and texts of libmysqlclient (2013 "Lost connection ...", 2003 "Can't
// connect ...") that scripts test for, --mysql-ignore-errors, and the
// read/write/other classification of results.
package mysql

import (
	"context"
	"crypto/tls"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

func init() { db.Register(Factory{}) }

// Factory registers the driver as "mysql".
type Factory struct{}

var _ db.Factory = Factory{}

func (Factory) Name() string        { return "mysql" }
func (Factory) Description() string { return "MySQL driver" }

// Options are sysbench 1.0.20's mysql options in its order, with the
// --mysql-ssl-key/-ca/-cert of later versions after --mysql-ssl.
// --mysql-ssl keeps 1.0.20's description but is a STRING, so that it
// takes both 1.0.20's on/off and the later SSL modes (DISABLED,
// PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY).
func (Factory) Options() []engine.Option {
	return []engine.Option{
		{Name: "mysql-host", Desc: "MySQL server host", Type: engine.ArgList, Default: engine.Default("localhost")},
		{Name: "mysql-port", Desc: "MySQL server port", Type: engine.ArgList, Default: engine.Default("3306")},
		{Name: "mysql-socket", Desc: "MySQL socket", Type: engine.ArgList},
		{Name: "mysql-user", Desc: "MySQL user", Type: engine.ArgString, Default: engine.Default("sbtest")},
		{Name: "mysql-password", Desc: "MySQL password", Type: engine.ArgString, Default: engine.Default("")},
		{Name: "mysql-db", Desc: "MySQL database name", Type: engine.ArgString, Default: engine.Default("sbtest")},
		{Name: "mysql-ssl", Desc: "use SSL connections, if available in the client library", Type: engine.ArgString, Default: engine.Default("off")},
		{Name: "mysql-ssl-key", Desc: "path name of the client private key file", Type: engine.ArgString},
		{Name: "mysql-ssl-ca", Desc: "path name of the CA file", Type: engine.ArgString},
		{Name: "mysql-ssl-cert", Desc: "path name of the client public key certificate file", Type: engine.ArgString},
		{Name: "mysql-ssl-cipher", Desc: "use specific cipher for SSL connections", Type: engine.ArgString, Default: engine.Default("")},
		{Name: "mysql-compression", Desc: "use compression, if available in the client library", Type: engine.ArgBool, Default: engine.Default("off")},
		{Name: "mysql-debug", Desc: "trace all client library calls", Type: engine.ArgBool, Default: engine.Default("off")},
		{Name: "mysql-ignore-errors", Desc: "list of errors to ignore, or \"all\"", Type: engine.ArgList, Default: engine.Default("1213,1020,1205")},
		{Name: "mysql-dry-run", Desc: "Dry run, pretend that all MySQL client API calls are successful without executing them", Type: engine.ArgBool, Default: engine.Default("off")},
		ioModeOption, // sbgo's own, see dial.go
	}
}

// New reads and checks the options once for the process. --mysql-debug
// raises the verbosity to DEBUG, as in sysbench.
func (Factory) New(opts *engine.Options, log *engine.Logger) (db.Driver, error) {
	s, err := readSettings(opts)
	if err != nil {
		return nil, err
	}
	if s.debug {
		log.SetVerbosity(int(engine.LevelDebug))
	}
	return &Driver{set: s, log: log, endpoints: s.endpoints()}, nil
}

// Driver opens sessions to the configured servers.
type Driver struct {
	set settings
	log *engine.Logger

	// endpoints is every (host, port) pair, or every socket, in
	// sysbench's order; next is the shared round-robin cursor over it.
	// sysbench keeps one cursor per process, and New runs once per
	// process.
	mu        sync.Mutex
	next      int
	endpoints []endpoint
}

var (
	_ db.Driver          = (*Driver)(nil)
	_ db.ErrorTexter     = (*Driver)(nil)
	_ db.ConnectionLoser = (*Driver)(nil)
)

func (d *Driver) Name() string { return "mysql" }

// Connect opens a new session on the next endpoint of the round robin,
// carried by the wire when it implements what the session negotiated,
// by go-sql-driver otherwise (see conn.go). A failure is a *ConnectError.
func (d *Driver) Connect(ctx context.Context) (db.Conn, error) {
	if d.set.dryRun {
		return &dryConn{d: d}, nil
	}
	d.mu.Lock()
	ep := d.endpoints[d.next]
	d.next = (d.next + 1) % len(d.endpoints)
	d.mu.Unlock()
	s := session{d: d, ep: ep}
	hc, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	if w := newWire(hc); w != nil {
		return &wireConn{session: s, w: w}, nil
	}
	return &sqlDriverConn{session: s}, nil
}

// settings are the validated options.
type settings struct {
	hosts   []string
	ports   []int
	sockets []string

	user, password, dbName string

	tls      *tls.Config // nil: no TLS
	tlsMode  sslMode
	compress bool
	debug    bool
	dryRun   bool
	ignore   ignoreList
	emulate  bool   // --db-ps-mode=disable
	ioMode   ioMode // --mysql-io-mode, auto resolved
}

func readSettings(opts *engine.Options) (settings, error) {
	var s settings
	s.hosts = listOption(opts, "mysql-host")
	if len(s.hosts) == 0 {
		return s, errors.New("No MySQL hosts specified, aborting")
	}
	portItems := listOption(opts, "mysql-port")
	if len(portItems) == 0 {
		return s, errors.New("No MySQL ports specified, aborting")
	}
	for _, p := range portItems {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 65535 {
			return s, fmt.Errorf("Invalid value for --mysql-port: '%s'", p)
		}
		if n == 0 { // libmysqlclient's "use the default port"
			n = 3306
		}
		s.ports = append(s.ports, n)
	}
	s.sockets = listOption(opts, "mysql-socket")
	s.user = stringOption(opts, "mysql-user")
	s.password = stringOption(opts, "mysql-password")
	if s.password == "" {
		// libmysqlclient reads MYSQL_PWD when no password is passed, and
		// sysbench passes none for an empty one.
		s.password = os.Getenv("MYSQL_PWD")
	}
	s.dbName = stringOption(opts, "mysql-db")
	s.compress = flagOption(opts, "mysql-compression")
	s.debug = flagOption(opts, "mysql-debug")
	s.dryRun = flagOption(opts, "mysql-dry-run")

	var err error
	if s.ignore, err = parseIgnoreList(listOption(opts, "mysql-ignore-errors")); err != nil {
		return s, err
	}
	switch mode := stringOptionOr(opts, "db-ps-mode", "auto"); mode {
	case "auto":
	case "disable":
		s.emulate = true
	default:
		return s, fmt.Errorf("Invalid value for db-ps-mode: %s", mode)
	}
	if s.ioMode, err = readIOMode(opts); err != nil {
		return s, err
	}
	if s.tlsMode, err = parseSSLMode(opts); err != nil {
		return s, err
	}
	if s.tls, err = tlsConfig(s.tlsMode, tlsFiles(opts, s.tlsMode), stringOption(opts, "mysql-ssl-cipher")); err != nil {
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

func stringOption(opts *engine.Options, name string) string { return stringOptionOr(opts, name, "") }

func stringOptionOr(opts *engine.Options, name, def string) string {
	if v, ok := opts.Lookup(name); ok {
		if v.IsNull() {
			return def
		}
		return v.String()
	}
	return def
}

func flagOption(opts *engine.Options, name string) bool {
	v, ok := opts.Lookup(name)
	return ok && v.Bool()
}

// endpoint is where one session goes: a host and port, or a socket given
// with --mysql-socket.
type endpoint struct {
	host   string
	port   int
	socket string
}

func (s settings) endpoints() []endpoint {
	var eps []endpoint
	if len(s.sockets) > 0 {
		for _, sock := range s.sockets {
			eps = append(eps, endpoint{host: "localhost", socket: sock})
		}
		return eps
	}
	for _, h := range s.hosts {
		for _, p := range s.ports {
			eps = append(eps, endpoint{host: h, port: p})
		}
	}
	return eps
}

// network is "unix" for a socket, and for host localhost: libmysqlclient
// connects to "localhost" through the default Unix socket, never TCP, and
// sysbench users rely on that (it is the default host).
func (ep endpoint) network() string {
	if ep.socket != "" || ep.host == "localhost" {
		return "unix"
	}
	return "tcp"
}

func (ep endpoint) address() string {
	switch {
	case ep.socket != "":
		return ep.socket
	case ep.host == "localhost":
		return defaultSocket()
	}
	return net.JoinHostPort(ep.host, strconv.Itoa(ep.port))
}

func (ep endpoint) describe() string {
	if ep.socket != "" {
		return "socket '" + ep.socket + "'"
	}
	return fmt.Sprintf("host '%s', port %d", ep.host, ep.port)
}

// defaultSocket is libmysqlclient's socket for "localhost": $MYSQL_UNIX_PORT,
// else the first of the usual places that exists, else the Debian one.
func defaultSocket() string {
	if s := os.Getenv("MYSQL_UNIX_PORT"); s != "" {
		return s
	}
	candidates := []string{"/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock"}
	for _, path := range candidates {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return candidates[0]
}

// config is the go-sql-driver configuration of a session to ep:
// multi-statements on (sysbench always sets CLIENT_MULTI_STATEMENTS), no
// client-side interpolation (statements are prepared on the server),
// and go-sql-driver's messages routed to the DEBUG log instead of stderr.
// caching_sha2_password works without TLS: go-sql-driver asks the server
// for its RSA key when it needs it.
func (d *Driver) config(ep endpoint) *gomysql.Config {
	cfg := gomysql.NewConfig()
	cfg.User = d.set.user
	cfg.Passwd = d.set.password
	cfg.DBName = d.set.dbName
	cfg.Net = ep.network()
	cfg.Addr = ep.address()
	cfg.MultiStatements = true
	cfg.InterpolateParams = false
	cfg.AllowNativePasswords = true
	cfg.CheckConnLiveness = false
	cfg.Logger = debugLogger{d.log}
	switch d.set.ioMode {
	case ioBlocking:
		// The same dialer and errors as go-sql-driver's own, on a
		// blocking socket (see dial.go).
		cfg.DialFunc = dialBlocking
	case ioPoller:
		cfg.DialFunc = dialPoller
	}
	if d.set.tls != nil {
		cfg.TLS = d.set.tls.Clone()
		if cfg.TLS.ServerName == "" && !cfg.TLS.InsecureSkipVerify {
			cfg.TLS.ServerName = ep.host
		}
		cfg.AllowFallbackToPlaintext = d.set.tlsMode == sslPreferred
	}
	if d.set.compress {
		// Only fails for a nil option.
		_ = cfg.Apply(gomysql.EnableCompression(true))
	}
	return cfg
}

// dial opens one session to ep.
func (d *Driver) dial(ctx context.Context, ep endpoint) (driver.Conn, error) {
	if d.set.debug {
		pw := ""
		if d.set.password != "" {
			pw = "*****"
		}
		d.log.Logf(engine.LevelDebug, "mysql_real_connect(\"%s\", \"%s\", \"%s\", \"%s\", %d, \"%s\", CLIENT_MULTI_STATEMENTS)",
			ep.host, d.set.user, pw, d.set.dbName, ep.port, ep.socket)
	}
	cfg := d.config(ep)
	probe := watchTLS(cfg, d.log)
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, connectError(err, ep)
	}
	delay := connectRetryDelay
	for attempt := 1; ; attempt++ {
		probe.reset()
		mc, err := connector.Connect(ctx)
		if err == nil && ctx.Err() != nil {
			// go-sql-driver watches ctx until Connect returns: ended by
			// then, it may have closed the session being returned.
			mc.Close()
			err = ctx.Err()
		}
		if err == nil {
			return mc, nil
		}
		if tlsErr := probe.explain(err); tlsErr != nil {
			return nil, connectError(tlsErr, ep)
		}
		if attempt == connectAttempts || !droppedDuringHandshake(err) || ctx.Err() != nil {
			return nil, connectError(err, ep)
		}
		d.log.Logf(engine.LevelDebug, "connection to %s dropped before the session started (%v), retrying", ep.describe(), err)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, connectError(ctx.Err(), ep)
		}
		delay *= 2
	}
}

// A server that accepts thousands of connections at once (--threads in
// the thousands all connecting in thread_init) may reset some of them
// before its greeting, when its accept backlog overflows. Nothing has
// happened on such a connection yet, so it is tried again: up to
// connectAttempts times, waiting connectRetryDelay, then twice as long
// each time (about 1.5 s in all).
const (
	connectAttempts   = 5
	connectRetryDelay = 100 * time.Millisecond
)

// droppedDuringHandshake reports whether a connection attempt failed
// because the server closed or reset the connection, rather than with an
// error the server sent (wrong password, unknown database, too many
// connections), which would fail again.
func droppedDuringHandshake(err error) bool {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return false
	}
	return errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// debugLogger sends go-sql-driver's own messages (which it would print
// on stderr) to the DEBUG log.
type debugLogger struct{ log *engine.Logger }

func (l debugLogger) Print(v ...any) {
	if l.log.Enabled(engine.LevelDebug) {
		l.log.Logf(engine.LevelDebug, "%s", strings.TrimSpace(fmt.Sprint(v...)))
	}
}
