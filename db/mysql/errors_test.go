package mysql

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
)

func TestParseIgnoreList(t *testing.T) {
	tests := []struct {
		items   []string
		has     []int // numbers that must be ignored
		hasNot  []int // numbers that must not
		wantErr string
	}{
		{items: []string{"1213", "1020", "1205"}, has: []int{1213, 1020, 1205}, hasNot: []int{2013, 0}}, // the default
		{items: []string{"all"}, has: []int{1, 1213, 2013}},                                             // everything
		{items: []string{"2013", "all"}, has: []int{1146}},                                              // all among numbers
		{items: nil, hasNot: []int{1213, 0}},                                                            // empty list
		{items: []string{"none"}, hasNot: []int{1213, 0}},                                               // "none" is empty too
		{items: []string{" 2013 "}, has: []int{2013}},                                                   // blanks around a number
		{items: []string{"1213", "x"}, wantErr: "Invalid value for --mysql-ignore-errors: 'x'"},         // junk
		{items: []string{"-1"}, wantErr: "Invalid value for --mysql-ignore-errors: '-1'"},               // negative
	}
	for _, tt := range tests {
		l, err := parseIgnoreList(tt.items)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("parseIgnoreList(%q) error = %v, want %q", tt.items, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseIgnoreList(%q): %v", tt.items, err)
			continue
		}
		for _, n := range tt.has {
			if !l.has(n) {
				t.Errorf("parseIgnoreList(%q) does not ignore %d", tt.items, n)
			}
		}
		for _, n := range tt.hasNot {
			if l.has(n) {
				t.Errorf("parseIgnoreList(%q) ignores %d", tt.items, n)
			}
		}
	}
}

func TestClassify(t *testing.T) {
	ignore, _ := parseIgnoreList([]string{"1213", "2013", "2006", "2011", "2055", "1146"})
	tests := []struct {
		errno int
		want  db.Kind
	}{
		{1213, db.Ignorable}, // deadlock in the list
		{1146, db.Ignorable}, // any server error in the list
		{2013, db.Reconnect}, // lost connection in the list
		{2006, db.Reconnect}, // gone away in the list
		{2011, db.Reconnect}, // TCP error in the list
		{2055, db.Reconnect}, // lost (extended) in the list
		{1205, db.Fatal},     // not in the list
		{2002, db.Fatal},     // a client error not in the list
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log := engine.NewLogger(&buf, int(engine.LevelDebug))
		e := classify(&db.Error{Errno: tt.errno, Msg: "m"}, ignore, log)
		if e.Kind != tt.want {
			t.Errorf("classify(%d).Kind = %v, want %v", tt.errno, e.Kind, tt.want)
		}
		logged := buf.String()
		wantLog := ""
		if tt.want != db.Fatal {
			wantLog = fmt.Sprintf("DEBUG: Ignoring error %d m, \n", tt.errno)
		}
		if logged != wantLog {
			t.Errorf("classify(%d) logged %q, want %q", tt.errno, logged, wantLog)
		}
	}
}

func TestQueryError(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		errno int
		state string
		msg   string
	}{
		{"server error", &gomysql.MySQLError{Number: 1146, SQLState: [5]byte{'4', '2', 'S', '0', '2'}, Message: "Table 't' doesn't exist"},
			1146, "42S02", "Table 't' doesn't exist"},
		{"server error without state", &gomysql.MySQLError{Number: 1105, Message: "x"}, 1105, "HY000", "x"},
		{"killed session", &gomysql.MySQLError{Number: 1927, SQLState: [5]byte{'7', '0', '1', '0', '0'}, Message: "Connection was killed"},
			2013, "HY000", "Lost connection to MySQL server during query (Connection was killed)"},
		{"shutdown", &gomysql.MySQLError{Number: 1053, Message: "Server shutdown in progress"},
			2013, "HY000", "Lost connection to MySQL server during query (Server shutdown in progress)"},
		{"idle timeout", &gomysql.MySQLError{Number: 4031, Message: "The client was disconnected by the server because of inactivity."},
			2013, "HY000", "Lost connection to MySQL server during query (The client was disconnected by the server because of inactivity.)"},
		{"nothing sent", driver.ErrBadConn, 2006, "HY000", "MySQL server has gone away"},
		{"invalid connection", gomysql.ErrInvalidConn, 2013, "HY000", "Lost connection to MySQL server during query"},
		{"EOF", io.EOF, 2013, "HY000", "Lost connection to MySQL server during query"},
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, 2013, "HY000", "Lost connection to MySQL server during query"},
		{"cancelled", context.Canceled, 2013, "HY000", "Lost connection to MySQL server during query (context canceled)"},
		{"out of sync", gomysql.ErrPktSync, 2014, "HY000", "Commands out of sync; you can't run this command now"},
		{"too large", gomysql.ErrPktTooLarge, 2020, "HY000", "Got packet bigger than 'max_allowed_packet' bytes"},
		{"other", errors.New("boom"), 2000, "HY000", "Unknown MySQL error: boom"},
	}
	for _, tt := range tests {
		e := queryError(tt.err)
		if e.Errno != tt.errno || e.State != tt.state || e.Msg != tt.msg {
			t.Errorf("%s: queryError = %d %q %q, want %d %q %q", tt.name, e.Errno, e.State, e.Msg, tt.errno, tt.state, tt.msg)
		}
	}
}

func TestConnectErrorWording(t *testing.T) {
	tcp := endpoint{host: "db1", port: 3307}
	sock := endpoint{host: "localhost", socket: "/tmp/x.sock"}
	tests := []struct {
		name  string
		err   error
		ep    endpoint
		lines []string
	}{
		{"refused port", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, tcp,
			[]string{"unable to connect to MySQL server on host 'db1', port 3307, aborting...", "error 2003: Can't connect to MySQL server on 'db1' (111)"}},
		{"missing socket", &net.OpError{Op: "dial", Net: "unix", Err: syscall.ENOENT}, sock,
			[]string{"unable to connect to MySQL server on socket '/tmp/x.sock', aborting...", "error 2002: Can't connect to local MySQL server through socket '/tmp/x.sock' (2)"}},
		{"unknown host", &net.OpError{Op: "dial", Err: &net.DNSError{Name: "db1", IsNotFound: true}}, tcp,
			[]string{"unable to connect to MySQL server on host 'db1', port 3307, aborting...", "error 2005: Unknown MySQL server host 'db1' (-2)"}},
		{"access denied", &gomysql.MySQLError{Number: 1045, Message: "Access denied for user 'u'@'localhost' (using password: YES)"}, tcp,
			[]string{"unable to connect to MySQL server on host 'db1', port 3307, aborting...", "error 1045: Access denied for user 'u'@'localhost' (using password: YES)"}},
		{"no TLS", gomysql.ErrNoTLS, tcp,
			[]string{"unable to connect to MySQL server on host 'db1', port 3307, aborting...", "error 2026: SSL connection error: SSL is required but the server doesn't support it"}},
	}
	d := &Driver{}
	for _, tt := range tests {
		got := d.ConnectErrorText(connectError(tt.err, tt.ep))
		if strings.Join(got, "\n") != strings.Join(tt.lines, "\n") {
			t.Errorf("%s: ConnectErrorText = %q, want %q", tt.name, got, tt.lines)
		}
	}
}

func TestErrorTexts(t *testing.T) {
	d := &Driver{}
	e := &db.Error{Errno: 1146, State: "42S02", Msg: "Table 'sbtest.t' doesn't exist"}
	if got, want := d.QueryErrorText(e, "SELECT * FROM t", false),
		"mysql_drv_query() returned error 1146 (Table 'sbtest.t' doesn't exist) for query 'SELECT * FROM t'"; got != want {
		t.Errorf("QueryErrorText = %q, want %q", got, want)
	}
	if got, want := d.QueryErrorText(e, "SELECT * FROM t WHERE id=?", true),
		"mysql_stmt_execute() returned error 1146 (Table 'sbtest.t' doesn't exist) for query 'SELECT * FROM t WHERE id=?'"; got != want {
		t.Errorf("QueryErrorText(prepared) = %q, want %q", got, want)
	}
	got := d.PrepareErrorText(e)
	want := []string{"mysql_stmt_prepare() failed", `MySQL error: 1146 "Table 'sbtest.t' doesn't exist"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PrepareErrorText = %q, want %q", got, want)
	}
	// An error that is not a ConnectError has no "unable to connect" line.
	if got := d.ConnectErrorText(errors.New("x")); len(got) != 1 || got[0] != "error 0: x" {
		t.Errorf("ConnectErrorText(plain) = %q", got)
	}
}
