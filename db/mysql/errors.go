package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

// Client error numbers, as libmysqlclient reports them. go-sql-driver has
// no numbers for its own failures, and scripts test for these (2013 and
// 2006 decide a reconnect), so sbgo words them the same way.
const (
	crUnknownError         = 2000 // CR_UNKNOWN_ERROR
	crConnectionError      = 2002 // CR_CONNECTION_ERROR: Unix socket
	crConnHostError        = 2003 // CR_CONN_HOST_ERROR: TCP
	crUnknownHost          = 2005 // CR_UNKNOWN_HOST
	crServerGone           = 2006 // CR_SERVER_GONE_ERROR
	crTCPConnection        = 2011 // CR_TCP_CONNECTION
	crServerLost           = 2013 // CR_SERVER_LOST
	crCommandsOutOfSync    = 2014 // CR_COMMANDS_OUT_OF_SYNC
	crPacketTooLarge       = 2020 // CR_NET_PACKET_TOO_LARGE
	crSSLConnectionError   = 2026 // CR_SSL_CONNECTION_ERROR
	crMalformedPacket      = 2027 // CR_MALFORMED_PACKET
	crParamsNotBound       = 2031 // CR_PARAMS_NOT_BOUND
	crServerLostExtended   = 2055 // CR_SERVER_LOST_EXTENDED
	crStmtClosed           = 2056 // CR_STMT_CLOSED
	crAuthPluginCannotLoad = 2059 // CR_AUTH_PLUGIN_CANNOT_LOAD
	crLocalInfileRejected  = 2068 // CR_LOAD_DATA_LOCAL_INFILE_REJECTED
)

// Server error numbers the driver reacts to.
const (
	erServerShutdown           = 1053 // ER_SERVER_SHUTDOWN
	erUnsupportedPS            = 1295 // ER_UNSUPPORTED_PS
	erConnectionKilled         = 1927 // ER_CONNECTION_KILLED (MariaDB)
	erClientInteractionTimeout = 4031 // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
)

const (
	clientState            = "HY000" // SQLSTATE of every client error
	msgServerGone          = "MySQL server has gone away"
	msgServerLost          = "Lost connection to MySQL server during query"
	msgOutOfSync           = "Commands out of sync; you can't run this command now"
	msgTooLarge            = "Got packet bigger than 'max_allowed_packet' bytes"
	msgMalformed           = "Malformed packet"
	msgStmtClosed          = "Statement closed indirectly because of a preceding mysql_close() call"
	msgNoTLS               = "SSL connection error: SSL is required but the server doesn't support it"
	msgLocalInfileRejected = "LOAD DATA LOCAL INFILE file request rejected due to restrictions on access."
	msgHandshakeEOF        = "Lost connection to MySQL server at 'reading initial communication packet', system error: 0"
)

// ignoreList is --mysql-ignore-errors: the error numbers a script
// survives, or all of them.
type ignoreList struct {
	all   bool
	codes []int
}

// parseIgnoreList reads the option's items: numbers, or "all". "none" is
// accepted as an empty list because sysbench users write it (sysbench
// reads it as error 0, which never happens); anything else is rejected
// instead of being read as 0.
func parseIgnoreList(items []string) (ignoreList, error) {
	var l ignoreList
	for _, item := range items {
		item = strings.TrimSpace(item)
		switch {
		case item == "all":
			l.all = true
		case item == "none":
		default:
			n, err := strconv.Atoi(item)
			if err != nil || n < 0 {
				return ignoreList{}, fmt.Errorf("Invalid value for --mysql-ignore-errors: '%s'", item)
			}
			l.codes = append(l.codes, n)
		}
	}
	return l, nil
}

func (l ignoreList) has(errno int) bool {
	if l.all {
		return true
	}
	for _, c := range l.codes {
		if c == errno {
			return true
		}
	}
	return false
}

// isLostConnection reports the client errors after which sysbench
// reconnects (when they are ignorable).
func isLostConnection(errno int) bool {
	switch errno {
	case crServerLost, crServerGone, crTCPConnection, crServerLostExtended:
		return true
	}
	return false
}

// classify sets e.Kind from the ignore list, and logs an ignored error at
// DEBUG as sysbench does (unless log is nil). Fatal errors are not logged
// here: the caller logs them with the query (Driver.QueryErrorText),
// after a script hook had its say.
func classify(e *db.Error, ignore ignoreList, log *engine.Logger) *db.Error {
	if !ignore.has(e.Errno) {
		e.Kind = db.Fatal
		return e
	}
	e.Kind = db.Ignorable
	if isLostConnection(e.Errno) {
		e.Kind = db.Reconnect
	}
	if log != nil && log.Enabled(engine.LevelDebug) {
		log.Logf(engine.LevelDebug, "Ignoring error %d %s, ", e.Errno, e.Msg)
	}
	return e
}

// LostConnection is db.ConnectionLoser: 2013, as a call whose context
// ended fails.
func (d *Driver) LostConnection() *db.Error {
	return classify(clientError(crServerLost, msgServerLost), d.set.ignore, nil)
}

func clientError(errno int, msg string) *db.Error {
	return &db.Error{Errno: errno, State: clientState, Msg: msg}
}

// queryError words a failure of a query, prepare, execute or fetch as
// libmysqlclient would (Kind still unset):
//
//   - a server error keeps its number, SQLSTATE and text, except the ones
//     that mean the server has closed the session (1927 connection killed,
//     1053 shutdown, 4031 idle timeout): they become 2013 with the
//     server's text in parentheses, so that --mysql-ignore-errors=2013
//     reconnects after them as it does after any lost connection;
//   - driver.ErrBadConn (go-sql-driver sent nothing: the session was
//     already closed) is 2006 "MySQL server has gone away";
//   - a read or write that failed mid-command (ErrInvalidConn, EOF, a
//     network error) is 2013 "Lost connection to MySQL server during
//     query"; so is a context cancellation, which closes the session;
//   - protocol errors have their own client numbers; anything else is
//     2000 with go-sql-driver's text.
//
// Every 2013 is in doubt (db.Error.InDoubt): the statement was sent, or
// was being sent, when the session ended; a 2006 is not.
func queryError(err error) *db.Error {
	e := wordQueryError(err)
	e.InDoubt = e.Errno == crServerLost
	return e
}

// wordQueryError is queryError's wording, without InDoubt.
func wordQueryError(err error) *db.Error {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erConnectionKilled, erServerShutdown, erClientInteractionTimeout:
			return clientError(crServerLost, msgServerLost+" ("+me.Message+")")
		}
		state := clientState
		if me.SQLState != [5]byte{} {
			state = string(me.SQLState[:])
		}
		return &db.Error{Errno: int(me.Number), State: state, Msg: me.Message}
	}
	switch {
	case errors.Is(err, driver.ErrBadConn):
		return clientError(crServerGone, msgServerGone)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return clientError(crServerLost, msgServerLost+" ("+err.Error()+")")
	case errors.Is(err, gomysql.ErrPktSync), errors.Is(err, gomysql.ErrPktSyncMul):
		return clientError(crCommandsOutOfSync, msgOutOfSync)
	case errors.Is(err, gomysql.ErrPktTooLarge):
		return clientError(crPacketTooLarge, msgTooLarge)
	case errors.Is(err, gomysql.ErrMalformPkt):
		return clientError(crMalformedPacket, msgMalformed)
	case isNetworkError(err):
		return clientError(crServerLost, msgServerLost)
	}
	return clientError(crUnknownError, "Unknown MySQL error: "+err.Error())
}

// isNetworkError is a failure of the session's socket.
func isNetworkError(err error) bool {
	var ne net.Error
	var errno syscall.Errno
	return errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || errors.As(err, &errno)
}

// ConnectError is a failed Connect or Reconnect: the error, and which
// server the attempt was for.
type ConnectError struct {
	Err *db.Error
	// Endpoint is "host '<h>', port <p>" or, with --mysql-socket,
	// "socket '<s>'", as sysbench words it.
	Endpoint string
}

func (e *ConnectError) Error() string { return e.Describe() + " " + e.Err.Error() }

// Unwrap gives the *db.Error, so db.AsError finds it.
func (e *ConnectError) Unwrap() error { return e.Err }

// Describe is the line sysbench logs (at FATAL) before the error itself:
// "unable to connect to MySQL server on host 'h', port 3306, aborting...".
func (e *ConnectError) Describe() string {
	return "unable to connect to MySQL server on " + e.Endpoint + ", aborting..."
}

// connectError words a failed connection attempt to ep as
// libmysqlclient would: 2002 for a Unix socket and 2003 for TCP, with the
// system error number in parentheses; 2005 for a host name that does not
// resolve (-2 is EAI_NONAME, -3 EAI_AGAIN); the server's own error (1045
// access denied, 1049 unknown database, 1040 too many connections) as it
// is; 2026 for TLS failures, including a server without TLS when TLS is
// required.
func connectError(err error, ep endpoint) *ConnectError {
	return &ConnectError{Err: connectDBError(err, ep), Endpoint: ep.describe()}
}

func connectDBError(err error, ep endpoint) *db.Error {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return queryError(me)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		code := -3
		if dnsErr.IsNotFound {
			code = -2
		}
		return clientError(crUnknownHost, fmt.Sprintf("Unknown MySQL server host '%s' (%d)", ep.host, code))
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return dialError(ep, systemErrno(err))
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return dialError(ep, int(syscall.ETIMEDOUT))
	case errors.Is(err, context.Canceled):
		return dialError(ep, int(syscall.EINTR))
	case errors.Is(err, gomysql.ErrNoTLS):
		return clientError(crSSLConnectionError, msgNoTLS)
	case isTLSError(err):
		return clientError(crSSLConnectionError, "SSL connection error: "+err.Error())
	case errors.Is(err, gomysql.ErrOldPassword), errors.Is(err, gomysql.ErrCleartextPassword),
		errors.Is(err, gomysql.ErrNativePassword), errors.Is(err, gomysql.ErrUnknownPlugin):
		return clientError(crAuthPluginCannotLoad, "Authentication plugin cannot be used: "+err.Error())
	case isNetworkError(err):
		return clientError(crServerLost, msgHandshakeEOF)
	}
	return clientError(crUnknownError, "Unknown MySQL error: "+err.Error())
}

func dialError(ep endpoint, errno int) *db.Error {
	if ep.network() == "unix" {
		return clientError(crConnectionError,
			fmt.Sprintf("Can't connect to local MySQL server through socket '%s' (%d)", ep.address(), errno))
	}
	return clientError(crConnHostError, fmt.Sprintf("Can't connect to MySQL server on '%s' (%d)", ep.host, errno))
}

// systemErrno is the errno behind a dial failure (111 for a refused
// connection, 2 for a missing socket), 110 for a timeout.
func systemErrno(err error) int {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return int(syscall.ETIMEDOUT)
	}
	return 0
}

// isTLSError is a failure of the TLS layer: a certificate check, a
// handshake error, or an alert the server sent (crypto/tls reports those
// as a *net.OpError whose Op is "remote error").
func isTLSError(err error) bool {
	var (
		rec     tls.RecordHeaderError
		alert   tls.AlertError
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		client  *clientCertError
		op      *net.OpError
	)
	return errors.As(err, &rec) || errors.As(err, &alert) || errors.As(err, &verify) ||
		errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid) ||
		errors.As(err, &client) || (errors.As(err, &op) && op.Op == "remote error") ||
		strings.HasPrefix(err.Error(), "tls: ")
}

// QueryErrorText is the line sysbench's driver logs at FATAL before a
// fatal query error: "mysql_drv_query() returned error 1146 (Table
// 'sbtest.t' doesn't exist) for query 'SELECT * FROM t'"; for a prepared
// statement's execute the function is mysql_stmt_execute() (sysbench puts
// the statement's SQL text there).
func (d *Driver) QueryErrorText(e *db.Error, query string, prepared bool) string {
	fn := "mysql_drv_query()"
	if prepared {
		fn = "mysql_stmt_execute()"
	}
	return fmt.Sprintf("%s returned error %d (%s) for query '%s'", fn, e.Errno, e.Msg, query)
}

// PrepareErrorText is what sysbench logs at FATAL, one line each, when
// preparing a statement fails.
func (d *Driver) PrepareErrorText(e *db.Error) []string {
	return []string{"mysql_stmt_prepare() failed", fmt.Sprintf("MySQL error: %d \"%s\"", e.Errno, e.Msg)}
}

// ConnectErrorText is what sysbench logs at FATAL, one line each, when a
// connection fails: where it tried (for a *ConnectError), then
// "error <errno>: <message>".
func (d *Driver) ConnectErrorText(err error) []string {
	e := db.AsError(err)
	last := fmt.Sprintf("error %d: %s", e.Errno, e.Msg)
	var ce *ConnectError
	if errors.As(err, &ce) {
		return []string{ce.Describe(), last}
	}
	return []string{last}
}
