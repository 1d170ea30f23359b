package pgsql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"sbgo/db"
)

// SQLSTATEs the driver reports for failures the server did not word.
const (
	stateConnectionFailure = "08006" // the session was lost
	stateUnableToConnect   = "08001" // no session could be opened
	stateAdminShutdown     = "57P01" // the server shut the session down
	stateQueryCanceled     = "57014" // the caller's context ended
	stateNoSuchStatement   = "26000" // a statement of an earlier session
	stateClient            = "HY000" // the driver was used wrongly
)

// ignoreList is --pgsql-ignore-errors: the SQLSTATEs a script survives,
// or all of them.
type ignoreList struct {
	all    bool
	states []string
}

// parseIgnoreList reads the option's items: five-character SQLSTATEs (in
// either case), "all", or "none" for an empty list as the MySQL driver
// accepts it. Anything else is rejected.
func parseIgnoreList(items []string) (ignoreList, error) {
	var l ignoreList
	for _, item := range items {
		item = strings.TrimSpace(item)
		switch {
		case item == "all":
			l.all = true
		case item == "none":
		case isSQLState(item):
			l.states = append(l.states, strings.ToUpper(item))
		default:
			return ignoreList{}, fmt.Errorf("Invalid value for --pgsql-ignore-errors: '%s'", item)
		}
	}
	return l, nil
}

func isSQLState(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case for letters, unchanged for digits
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

func (l ignoreList) has(state string) bool {
	if l.all {
		return true
	}
	for _, s := range l.states {
		if s == state {
			return true
		}
	}
	return false
}

// endsSession reports whether the server closes the session after
// sending e: FATAL and PANIC errors do.
func endsSession(e *pgconn.PgError) bool {
	sev := e.SeverityUnlocalized
	if sev == "" {
		sev = e.Severity
	}
	return sev == "FATAL" || sev == "PANIC"
}

// isSessionLost reports whether a server error means the session is gone
// or going: connection exceptions (class 08), and the server shutting
// down or not yet accepting sessions (57P01, 57P02, 57P03).
func isSessionLost(state string) bool {
	return strings.HasPrefix(state, "08") || state == "57P01" || state == "57P02" || state == "57P03"
}

// queryError turns a failed query, prepare or execute into a classified
// *db.Error. closed says whether the session is gone after it.
//
// A server error keeps its SQLSTATE and primary message. A lost session
// is reported with class 08: the server's own 08xxx, or 57P01 (admin
// shutdown, which --pgsql-ignore-errors=08006,57P01 lists for server
// restarts), and 08006 for every other way of losing it (a FATAL error,
// the socket closing, a network error). Its kind is Reconnect when its
// state is ignorable. Other errors of the client are HY000, and 57014
// when the caller's context ended with the session alive.
func (d *Driver) queryError(err error, closed bool) *db.Error {
	e := &db.Error{State: stateClient, Msg: err.Error()}
	lost := closed
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		e.State, e.Msg = pe.Code, pe.Message
		lost = lost || endsSession(pe) || isSessionLost(pe.Code)
	case lost:
		e.Msg = lostMessage(err)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		e.State, e.Msg = stateQueryCanceled, "canceling statement due to user request"
	}
	if lost && !strings.HasPrefix(e.State, "08") && e.State != stateAdminShutdown {
		e.State = stateConnectionFailure
	}
	switch {
	case !d.ignore.has(e.State):
		e.Kind = db.Fatal
	case lost:
		e.Kind = db.Reconnect
	default:
		e.Kind = db.Ignorable
	}
	return e
}

// LostConnection is db.ConnectionLoser: 08006, as a call whose context
// ended fails (see watch.go).
func (d *Driver) LostConnection() *db.Error {
	return d.queryError(errAbandoned, true)
}

// lostMessage words a lost session as libpq would where it can.
func lostMessage(err error) string {
	switch {
	case errors.Is(err, pgconn.ErrConnClosed):
		return "no connection to the server"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "server closed the connection unexpectedly"
	}
	return err.Error()
}

// connectError words a failed connection attempt as libpq's
// PQerrorMessage does, e.g.
//
//	connection to server at "127.0.0.1", port 1 failed: Connection refused
//		Is the server running on that host and accepting TCP/IP connections?
//
// dialed is the last address tried ("" if none was). The State is the
// server's SQLSTATE when it refused the session (28000, 28P01, 3D000,
// 53300, ...), 08001 otherwise.
func connectError(cfg *pgx.ConnConfig, dialed string, err error) *db.Error {
	e := &db.Error{State: stateUnableToConnect, Kind: db.Fatal}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		reason := dnsErr.Err
		if dnsErr.IsNotFound {
			reason = "Name or service not known"
		}
		e.Msg = fmt.Sprintf("could not translate host name \"%s\" to address: %s", dnsErr.Name, reason)
		return e
	}

	socket := strings.HasPrefix(cfg.Host, "/")
	var where string
	if socket {
		_, addr := pgconn.NetworkAddress(cfg.Host, cfg.Port)
		where = fmt.Sprintf("connection to server on socket \"%s\" failed: ", addr)
	} else {
		ip := ""
		if h, _, splitErr := net.SplitHostPort(dialed); splitErr == nil && h != cfg.Host {
			ip = " (" + h + ")"
		}
		where = fmt.Sprintf("connection to server at \"%s\"%s, port %d failed: ", cfg.Host, ip, cfg.Port)
	}

	var pe *pgconn.PgError
	var errno syscall.Errno
	var certErr *tls.CertificateVerificationError
	chainErr := chainError(err)
	switch {
	case errors.As(err, &pe):
		e.State = pe.Code
		e.Msg = where + pe.Severity + ":  " + pe.Message
	case errors.As(err, &errno):
		e.Msg = where + capitalize(errno.Error())
		if errno == syscall.ECONNREFUSED || errno == syscall.ENOENT {
			if socket {
				e.Msg += "\n\tIs the server running locally and accepting connections on that socket?"
			} else {
				e.Msg += "\n\tIs the server running on that host and accepting TCP/IP connections?"
			}
		}
	case errors.Is(err, context.DeadlineExceeded):
		e.Msg = where + "timeout expired" // libpq's, for connect_timeout
	case errors.As(err, &certErr):
		e.Msg = where + "SSL error: " + certErr.Err.Error()
	case chainErr != nil:
		e.Msg = where + "SSL error: " + chainErr.Error()
	default:
		e.Msg = where + innermost(err).Error()
	}
	return e
}

// chainError is the x509 error behind err, nil if there is none. pgx
// checks the chain itself for verify-ca (and for require with a root
// certificate, as libpq does) and returns x509's error unwrapped, where
// crypto/tls's own check (verify-full) wraps it in a
// *tls.CertificateVerificationError.
func chainError(err error) error {
	var (
		unknown x509.UnknownAuthorityError
		invalid x509.CertificateInvalidError
		host    x509.HostnameError
	)
	switch {
	case errors.As(err, &unknown):
		return unknown
	case errors.As(err, &invalid):
		return invalid
	case errors.As(err, &host):
		return host
	}
	return nil
}

// innermost follows err's chain to its first cause: for a joined error
// (pgx joins the errors of every address and TLS fallback it tried),
// the first one.
func innermost(err error) error {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			if errs := u.Unwrap(); len(errs) > 0 {
				next = errs[0]
			}
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		}
		if next == nil {
			return err
		}
		err = next
	}
}

// capitalize makes Go's system error texts ("connection refused") read as
// C's strerror ("Connection refused").
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// QueryErrorText is what sysbench's driver logs at FATAL before a fatal
// error: "PQexec() failed: 7 <message>" and, on a second FATAL line,
// "failed query was: <sql>"; for a prepared statement's execute only
// "PQexecPrepared() failed: 7 <message>". 7 is libpq's
// PGRES_FATAL_ERROR. The two lines come back as one text with
// "\nFATAL: " between them, which the logger prints as sysbench does.
func (d *Driver) QueryErrorText(e *db.Error, query string, prepared bool) string {
	if prepared {
		return "PQexecPrepared() failed: 7 " + e.Msg
	}
	return "PQexec() failed: 7 " + e.Msg + "\nFATAL: failed query was: " + query
}

// PrepareErrorText is what sysbench logs at FATAL when preparing a
// statement fails: "PQprepare() failed: " and libpq's error message,
// whose final newline leaves a blank line.
func (d *Driver) PrepareErrorText(e *db.Error) []string {
	return []string{"PQprepare() failed: ERROR:  " + e.Msg + "\n"}
}

// ConnectErrorText is what sysbench logs at FATAL when a connection
// fails: "Connection to database failed: " and libpq's error message,
// whose final newline leaves a blank line.
func (d *Driver) ConnectErrorText(err error) []string {
	return []string{"Connection to database failed: " + db.AsError(err).Msg + "\n"}
}
