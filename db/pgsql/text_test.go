package pgsql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"sbgo/db"
	"sbgo/engine"
)

func TestRewritePlaceholders(t *testing.T) {
	tests := []struct {
		in   string
		want string
		n    int
	}{
		// No placeholder: the text is returned as is.
		{"SELECT 1", "SELECT 1", 0},
		// Placeholders are numbered in order.
		{"SELECT c FROM t WHERE id=? AND k BETWEEN ? AND ?", "SELECT c FROM t WHERE id=$1 AND k BETWEEN $2 AND $3", 3},
		// Ten and more.
		{"VALUES (?,?,?,?,?,?,?,?,?,?)", "VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)", 10},
		// A '?' in a string literal is text.
		{"SELECT '?', ?", "SELECT '?', $1", 1},
		// A doubled quote does not end the literal.
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1", 1},
		// Standard strings: a backslash does not escape the quote.
		{`SELECT 'a\', ?`, `SELECT 'a\', $1`, 1},
		// E'' strings: it does.
		{`SELECT E'a\'?', ?`, `SELECT E'a\'?', $1`, 1},
		// An identifier ending in e before a quote is not an E string.
		{`SELECT name'a\', ?`, `SELECT name'a\', $1`, 1},
		// Quoted identifiers.
		{`SELECT "what?" FROM t WHERE id=?`, `SELECT "what?" FROM t WHERE id=$1`, 1},
		// Line comments end at the newline.
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2", 2},
		// A line comment at the end.
		{"SELECT ? -- why?", "SELECT $1 -- why?", 1},
		// Block comments, nested.
		{"SELECT /* a /* b? */ c? */ ?", "SELECT /* a /* b? */ c? */ $1", 1},
		// An apostrophe inside a comment opens no literal.
		{"SELECT ? /* don't */, ?", "SELECT $1 /* don't */, $2", 2},
		// An unterminated literal runs to the end.
		{"SELECT ?, 'abc?", "SELECT $1, 'abc?", 1},
		// Casts after a placeholder stay.
		{"SELECT ?::int", "SELECT $1::int", 1},
	}
	for _, tt := range tests {
		got, n := rewritePlaceholders(tt.in)
		if got != tt.want || n != tt.n {
			t.Errorf("rewritePlaceholders(%q) = %q, %d; want %q, %d", tt.in, got, n, tt.want, tt.n)
		}
	}
}

func TestQuoteLiteral(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Plain text.
		{"abc", "'abc'"},
		// Empty.
		{"", "''"},
		// Quotes are doubled.
		{"it's", "'it''s'"},
		// An injection attempt stays one literal.
		{"x'; DROP TABLE t; --", "'x''; DROP TABLE t; --'"},
		// A backslash makes an E string with the backslash doubled.
		{`a\b`, `E'a\\b'`},
		// Backslash and quote together.
		{`\'`, `E'\\'''`},
		// NUL is written as an escape the server rejects.
		{"a\x00b", `E'a\000b'`},
	}
	for _, tt := range tests {
		if got := string(quoteLiteral([]byte("x="), []byte(tt.in))); got != "x="+tt.want {
			t.Errorf("quoteLiteral(%q) = %s; want x=%s", tt.in, got, tt.want)
		}
	}
}

// testOptions is the option table a run has for this driver, with the
// given values set.
func testOptions(t testing.TB, set map[string]string) *engine.Options {
	t.Helper()
	o := engine.NewOptions()
	if err := o.Register(Factory{}.Options()...); err != nil {
		t.Fatal(err)
	}
	if err := o.Register(engine.Option{Name: "db-ps-mode", Type: engine.ArgString, Default: engine.Default("auto")},
		engine.Option{Name: "threads", Type: engine.ArgInt, Default: engine.Default("1")}); err != nil {
		t.Fatal(err)
	}
	for name, value := range set {
		if err := o.Set(name, &value); err != nil {
			t.Fatalf("set %s=%s: %v", name, value, err)
		}
	}
	return o
}

func TestReadSettingsErrors(t *testing.T) {
	tests := []struct {
		set  map[string]string
		want string
	}{
		// A port must be a number.
		{map[string]string{"pgsql-port": "abc"}, "Invalid value for --pgsql-port: 'abc'"},
		// ... within range, in every item.
		{map[string]string{"pgsql-port": "5432,70000"}, "Invalid value for --pgsql-port: '70000'"},
		// libpq's SSL modes only.
		{map[string]string{"pgsql-sslmode": "on"}, "Invalid value for --pgsql-sslmode: 'on'"},
		// SQLSTATEs have five characters.
		{map[string]string{"pgsql-ignore-errors": "40P01,1213"}, "Invalid value for --pgsql-ignore-errors: '1213'"},
		// sysbench's message for a bad --db-ps-mode.
		{map[string]string{"db-ps-mode": "foo"}, "Invalid value for db-ps-mode: foo"},
	}
	for _, tt := range tests {
		_, err := Factory{}.New(testOptions(t, tt.set), nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("New with %v: error %v; want %q", tt.set, err, tt.want)
		}
	}
}

func TestReadSettings(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	s, err := readSettings(testOptions(t, map[string]string{
		"pgsql-ignore-errors": "08006,57p01,none",
		"db-ps-mode":          "disable",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.ignore.states, []string{"08006", "57P01"}) || s.ignore.all {
		t.Errorf("ignore list %+v; want 08006 and 57P01 (upper-cased), none adds nothing", s.ignore)
	}
	if !s.emulate {
		t.Error("db-ps-mode=disable does not emulate")
	}
	if s.sslmode != "prefer" {
		t.Errorf("sslmode %q; want the default prefer", s.sslmode)
	}
	// The default mode gives way to PGSSLMODE, as libpq's default does.
	t.Setenv("PGSSLMODE", "disable")
	if s, _ := readSettings(testOptions(t, nil)); s.sslmode != "" {
		t.Errorf("with PGSSLMODE set, sslmode %q; want it left to the environment", s.sslmode)
	}
	// An explicit mode wins over PGSSLMODE.
	if s, _ := readSettings(testOptions(t, map[string]string{"pgsql-sslmode": "require"})); s.sslmode != "require" {
		t.Errorf("explicit sslmode %q; want require", s.sslmode)
	}
	// The default ignore list is 1.0.20's.
	s, _ = readSettings(testOptions(t, nil))
	if !slices.Equal(s.ignore.states, []string{"40P01", "23505", "40001"}) {
		t.Errorf("default ignore list %v", s.ignore.states)
	}
}

func TestConnStrings(t *testing.T) {
	s := settings{
		hosts: []string{"h1", "/run/pg"}, ports: []string{"5432", "5433"},
		user: "u", password: `p'w\`, dbName: "db", sslmode: "require",
	}
	want := []string{
		`dbname='db' user='u' password='p\'w\\' sslmode='require' host='h1' port='5432' `,
		`dbname='db' user='u' password='p\'w\\' sslmode='require' host='h1' port='5433' `,
		`dbname='db' user='u' password='p\'w\\' sslmode='require' host='/run/pg' port='5432' `,
		`dbname='db' user='u' password='p\'w\\' sslmode='require' host='/run/pg' port='5433' `,
	}
	if got := s.connStrings(); !slices.Equal(got, want) {
		t.Errorf("connStrings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Empty values are left to libpq's defaults; a database name with
	// '=' is a connection string of its own, overridden by the options.
	s = settings{dbName: "dbname=x application_name=sb user=ignored", user: "u"}
	want = []string{"dbname=x application_name=sb user=ignored user='u' "}
	if got := s.connStrings(); !slices.Equal(got, want) {
		t.Errorf("connStrings = %q; want %q", got, want)
	}
}

func TestEnvironment(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGPASSWORD", "from-env")
	t.Setenv("PGHOST", "/from/env")
	t.Setenv("PGPORT", "6543")
	tests := []struct {
		set            map[string]string
		password, host string
		port           uint16
	}{
		// Options win over the environment.
		{map[string]string{"pgsql-password": "opt", "pgsql-host": "h", "pgsql-port": "7"}, "opt", "h", 7},
		// An empty password, host or port is libpq's: the environment's.
		{map[string]string{"pgsql-host": "", "pgsql-port": ""}, "from-env", "/from/env", 6543},
	}
	for _, tt := range tests {
		d, err := Factory{}.New(testOptions(t, tt.set), nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := d.(*Driver).targets[0]
		if cfg.Password != tt.password || cfg.Host != tt.host || cfg.Port != tt.port {
			t.Errorf("%v: password %q host %q port %d; want %q %q %d", tt.set, cfg.Password, cfg.Host, cfg.Port, tt.password, tt.host, tt.port)
		}
	}
	// A certificate file that cannot be read is reported at once.
	_, err := Factory{}.New(testOptions(t, map[string]string{"pgsql-sslmode": "verify-ca", "pgsql-sslrootcert": "/nonexistent"}), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "Invalid PostgreSQL connection settings: unable to read CA file") {
		t.Errorf("missing root certificate: %v", err)
	}
}

func TestQueryErrorClassification(t *testing.T) {
	d := &Driver{ignore: ignoreList{states: []string{"40P01", "08006", "57P01"}}}
	deadlock := &pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"}
	tests := []struct {
		name   string
		err    error
		closed bool
		state  string
		msg    string
		kind   db.Kind
	}{
		// A listed server error is ignorable.
		{"deadlock", deadlock, false, "40P01", "deadlock detected", db.Ignorable},
		// Wrapped errors are found.
		{"wrapped", fmt.Errorf("x: %w", deadlock), false, "40P01", "deadlock detected", db.Ignorable},
		// An unlisted one is fatal.
		{"syntax", &pgconn.PgError{Severity: "ERROR", Code: "42601", Message: "syntax error"}, false, "42601", "syntax error", db.Fatal},
		// Admin shutdown keeps its state and asks for a reconnect.
		{"admin shutdown", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}, true,
			"57P01", "terminating connection due to administrator command", db.Reconnect},
		// Another FATAL error is a lost connection: 08006.
		{"idle timeout", &pgconn.PgError{Severity: "FATAL", Code: "25P03", Message: "terminating connection due to idle-in-transaction timeout"}, true,
			"08006", "terminating connection due to idle-in-transaction timeout", db.Reconnect},
		// So is a crash of another backend (57P02).
		{"crash", &pgconn.PgError{Severity: "FATAL", Code: "57P02", Message: "terminating connection because of crash of another server process"}, true,
			"08006", "terminating connection because of crash of another server process", db.Reconnect},
		// The socket closing.
		{"eof", io.ErrUnexpectedEOF, true, "08006", "server closed the connection unexpectedly", db.Reconnect},
		// A session closed before.
		{"closed", pgconn.ErrConnClosed, true, "08006", "no connection to the server", db.Reconnect},
		// The caller's context ended but the session lives.
		{"cancelled", context.Canceled, false, "57014", "canceling statement due to user request", db.Fatal},
		// Anything else from the client.
		{"client", errors.New("boom"), false, "HY000", "boom", db.Fatal},
	}
	for _, tt := range tests {
		e := d.queryError(tt.err, tt.closed)
		if e.Errno != 0 || e.State != tt.state || e.Msg != tt.msg || e.Kind != tt.kind {
			t.Errorf("%s: got %d %s %q kind %d; want 0 %s %q kind %d", tt.name, e.Errno, e.State, e.Msg, e.Kind, tt.state, tt.msg, tt.kind)
		}
	}

	// A lost connection that is not listed is fatal.
	d = &Driver{}
	if e := d.queryError(io.EOF, true); e.Kind != db.Fatal || e.State != "08006" {
		t.Errorf("unlisted lost connection: %+v; want fatal 08006", e)
	}
	// "all" lists everything.
	d = &Driver{ignore: ignoreList{all: true}}
	if e := d.queryError(io.EOF, true); e.Kind != db.Reconnect {
		t.Errorf("lost connection with all: kind %d; want Reconnect", e.Kind)
	}
}

func TestErrorTexts(t *testing.T) {
	d := &Driver{}
	e := &db.Error{State: "42P01", Msg: `relation "t" does not exist`}
	if got, want := d.QueryErrorText(e, "SELECT * FROM t", false),
		"PQexec() failed: 7 relation \"t\" does not exist\nFATAL: failed query was: SELECT * FROM t"; got != want {
		t.Errorf("query text %q; want %q", got, want)
	}
	if got, want := d.QueryErrorText(e, "<prepared statement>", true),
		`PQexecPrepared() failed: 7 relation "t" does not exist`; got != want {
		t.Errorf("execute text %q; want %q", got, want)
	}
	if got, want := d.PrepareErrorText(e), []string{"PQprepare() failed: ERROR:  relation \"t\" does not exist\n"}; !slices.Equal(got, want) {
		t.Errorf("prepare text %q; want %q", got, want)
	}
	if got, want := d.ConnectErrorText(&db.Error{Msg: "m"}), []string{"Connection to database failed: m\n"}; !slices.Equal(got, want) {
		t.Errorf("connect text %q; want %q", got, want)
	}
}
