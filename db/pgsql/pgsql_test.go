package pgsql

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/internal/testcert"
)

// The tests below run against the local PostgreSQL server (127.0.0.1:5432,
// database sbtest, role sbtest). Without one they are skipped, except in
// CI, where they fail.

var (
	serverOnce sync.Once
	serverErr  error
)

func requireServer(t testing.TB) {
	t.Helper()
	serverOnce.Do(func() {
		var c net.Conn
		c, serverErr = net.DialTimeout("tcp", "127.0.0.1:5432", 2*time.Second)
		if serverErr == nil {
			c.Close()
		}
	})
	if serverErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is not reachable: %v", serverErr)
		}
		t.Skipf("PostgreSQL is not reachable: %v", serverErr)
	}
}

// testDriver is the driver made from the default options, on 127.0.0.1
// without TLS, with set applied.
func testDriver(t testing.TB, set map[string]string) *Driver {
	t.Helper()
	requireServer(t)
	all := map[string]string{"pgsql-host": "127.0.0.1", "pgsql-sslmode": "disable"}
	for k, v := range set {
		all[k] = v
	}
	d, err := Factory{}.New(testOptions(t, all), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.(*Driver)
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connect(t testing.TB, d *Driver) *conn {
	t.Helper()
	c, err := d.Connect(testContext(t))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*conn)
}

func mustQuery(t testing.TB, c db.Conn, query string) db.Result {
	t.Helper()
	res, err := c.Query(testContext(t), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// text reads all rows of res as text, "NULL" for NULL.
func text(t testing.TB, res db.Result) [][]string {
	t.Helper()
	if res.Rows == nil {
		t.Fatal("no result set")
	}
	var out [][]string
	row := make([][]byte, res.Rows.NumFields())
	for {
		ok, err := res.Rows.Next(row)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		var r []string
		for _, v := range row {
			if v == nil {
				r = append(r, "NULL")
			} else {
				r = append(r, string(v))
			}
		}
		out = append(out, r)
	}
}

func rowsText(rows [][]string) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, strings.Join(r, "|"))
	}
	return strings.Join(parts, ";")
}

var tableSeq int

// testTable creates a table (id int primary key, v int, s varchar) with
// ids 1..n, v = id*10 and s = 's<id>', dropped when the test ends.
func testTable(t testing.TB, c db.Conn, n int) string {
	t.Helper()
	tableSeq++
	name := "sbgo_pgsql_test_" + strconv.Itoa(os.Getpid()) + "_" + strconv.Itoa(tableSeq)
	mustQuery(t, c, "DROP TABLE IF EXISTS "+name+"; CREATE TABLE "+name+" (id int PRIMARY KEY, v int, s varchar(20))")
	mustQuery(t, c, "INSERT INTO "+name+" SELECT g, g*10, 's'||g FROM generate_series(1, "+strconv.Itoa(n)+") g")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if pc, err := c.(*conn).session(); err == nil {
			pc.Exec(ctx, "DROP TABLE IF EXISTS "+name).Close()
		}
	})
	return name
}

func asDBError(t testing.TB, err error) *db.Error {
	t.Helper()
	var e *db.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *db.Error", err, err)
	}
	return e
}

func TestConnect(t *testing.T) {
	requireServer(t)
	tests := []struct {
		name  string
		set   map[string]string
		state string // "" for success
		msg   string // a regexp for the libpq-style message
	}{
		// TCP to the default database and role.
		{"tcp", nil, "", ""},
		// Server-side TLS (sslmode=prefer is the default).
		{"prefer", map[string]string{"pgsql-sslmode": "prefer"}, "", ""},
		// A host starting with '/' is a Unix socket directory.
		{"socket", map[string]string{"pgsql-host": "/var/run/postgresql"}, "", ""},
		// The server refuses an unknown role.
		{"unknown role", map[string]string{"pgsql-user": "sbgo_no_such_role"}, "28000",
			`^connection to server at "127\.0\.0\.1", port 5432 failed: FATAL:  role "sbgo_no_such_role" does not exist$`},
		// ... and an unknown database.
		{"unknown database", map[string]string{"pgsql-db": "sbgo_no_such_db"}, "3D000",
			`^connection to server at "127\.0\.0\.1", port 5432 failed: FATAL:  database "sbgo_no_such_db" does not exist$`},
		// Nothing listens on port 1.
		{"refused", map[string]string{"pgsql-port": "1"}, "08001",
			"^connection to server at \"127\\.0\\.0\\.1\", port 1 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections\\?$"},
		// A host name shows with the address tried.
		{"refused by name", map[string]string{"pgsql-host": "localhost", "pgsql-port": "1"}, "08001",
			`^connection to server at "localhost" \([0-9a-f.:]+\), port 1 failed: Connection refused\n`},
		// A missing socket.
		{"no socket", map[string]string{"pgsql-host": "/nonexistent", "pgsql-port": "1"}, "08001",
			"^connection to server on socket \"/nonexistent/\\.s\\.PGSQL\\.1\" failed: No such file or directory\n\tIs the server running locally and accepting connections on that socket\\?$"},
		// A host that does not resolve.
		{"unknown host", map[string]string{"pgsql-host": "nosuch.invalid"}, "08001",
			`^could not translate host name "nosuch\.invalid" to address: Name or service not known$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "socket" {
				if _, err := os.Stat("/var/run/postgresql/.s.PGSQL.5432"); err != nil {
					t.Skip("no socket at /var/run/postgresql")
				}
			}
			d := testDriver(t, tt.set)
			c, err := d.Connect(testContext(t))
			if tt.state == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if got := rowsText(text(t, mustQuery(t, c, "SELECT current_user, current_database()"))); got != "sbtest|sbtest" {
					t.Errorf("session of %s", got)
				}
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			e := asDBError(t, err)
			if e.State != tt.state || e.Errno != 0 || !regexp.MustCompile(tt.msg).MatchString(e.Msg) {
				t.Errorf("error %s %q; want %s %s", e.State, e.Msg, tt.state, tt.msg)
			}
			lines := d.ConnectErrorText(err)
			if len(lines) != 1 || lines[0] != "Connection to database failed: "+e.Msg+"\n" {
				t.Errorf("ConnectErrorText = %q", lines)
			}
		})
	}
}

func TestRoundRobin(t *testing.T) {
	// Ports are taken in order, wrapping around: 5432, 1, 5432.
	d := testDriver(t, map[string]string{"pgsql-port": "5432,1"})
	for i, wantOK := range []bool{true, false, true} {
		c, err := d.Connect(testContext(t))
		if (err == nil) != wantOK {
			t.Errorf("connection %d: error %v; want success %v", i, err, wantOK)
		}
		if err == nil {
			c.Close()
		}
	}
}

// sslSession connects with the options set and reports whether the
// server sees the session encrypted.
func sslSession(t *testing.T, set map[string]string) (bool, error) {
	t.Helper()
	c, err := testDriver(t, set).Connect(testContext(t))
	if err != nil {
		return false, err
	}
	defer c.Close()
	got := rowsText(text(t, mustQuery(t, c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")))
	return got == "t", nil
}

// TestSSL runs each --pgsql-sslmode against the local server, which
// serves TLS with a self-signed certificate (Debian's snakeoil). Under
// CI=true a server without TLS fails the test; elsewhere it is only
// checked to refuse the modes that require TLS.
func TestSSL(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	ssl := rowsText(text(t, mustQuery(t, c, "SHOW ssl")))
	serverCert := rowsText(text(t, mustQuery(t, c, "SHOW ssl_cert_file")))
	if ssl != "on" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the PostgreSQL server has ssl=off")
		}
		sslWithoutServerTLS(t)
		return
	}
	if !filepath.IsAbs(serverCert) {
		t.Fatalf("ssl_cert_file %q: want an absolute path the test can read", serverCert)
	}
	unrelated := filepath.Join(t.TempDir(), "unrelated-ca.pem")
	testcert.NewCA(t, "unrelated CA").WriteCert(t, unrelated)
	const where = `connection to server at "127.0.0.1", port 5432 failed: SSL error: `
	tests := []struct {
		name    string
		set     map[string]string
		tls     bool   // the session is encrypted
		wantErr string // the start of the failure's message
	}{
		// No TLS asked for.
		{"disable", map[string]string{"pgsql-sslmode": "disable"}, false, ""},
		// The default: TLS when the server has it.
		{"prefer", map[string]string{"pgsql-sslmode": "prefer"}, true, ""},
		// Encrypted, the certificate unchecked.
		{"require", map[string]string{"pgsql-sslmode": "require"}, true, ""},
		// The server's certificate is its own root.
		{"verify-ca, the server's certificate as root", map[string]string{"pgsql-sslmode": "verify-ca", "pgsql-sslrootcert": serverCert}, true, ""},
		{"verify-ca, an unrelated CA", map[string]string{"pgsql-sslmode": "verify-ca", "pgsql-sslrootcert": unrelated}, false,
			where + "x509: certificate signed by unknown authority"},
		// As in libpq, require with a root certificate checks the chain.
		{"require, an unrelated CA", map[string]string{"pgsql-sslmode": "require", "pgsql-sslrootcert": unrelated}, false,
			where + "x509: certificate signed by unknown authority"},
		// The right root, but the certificate names a host, not 127.0.0.1.
		{"verify-full, address not in the certificate", map[string]string{"pgsql-sslmode": "verify-full", "pgsql-sslrootcert": serverCert}, false,
			where + "x509: cannot validate certificate for 127.0.0.1"},
	}
	for _, tt := range tests {
		on, err := sslSession(t, tt.set)
		if tt.wantErr == "" {
			if err != nil || on != tt.tls {
				t.Errorf("%s: TLS %v, error %v; want TLS %v", tt.name, on, err, tt.tls)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: connected, want %q", tt.name, tt.wantErr)
			continue
		}
		if msg := asDBError(t, err).Msg; !strings.HasPrefix(msg, tt.wantErr) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line starting %q", tt.name, msg, tt.wantErr)
		}
	}
}

// sslWithoutServerTLS: against a server without TLS, disable connects
// and the modes that require TLS fail.
func sslWithoutServerTLS(t *testing.T) {
	if on, err := sslSession(t, map[string]string{"pgsql-sslmode": "disable"}); err != nil || on {
		t.Errorf("sslmode=disable: TLS %v, error %v", on, err)
	}
	for _, mode := range []string{"require", "verify-ca", "verify-full"} {
		_, err := sslSession(t, map[string]string{"pgsql-sslmode": mode})
		if err == nil {
			t.Errorf("sslmode=%s connected to a server without TLS", mode)
		} else if msg := asDBError(t, err).Msg; !strings.Contains(msg, "TLS") {
			t.Errorf("sslmode=%s: error %q does not say TLS was refused", mode, msg)
		}
	}
}

func TestQuery(t *testing.T) {
	d := testDriver(t, nil)
	c := connect(t, d)
	tbl := testTable(t, c, 5)
	tests := []struct {
		query    string
		rows     string // "-" when no result set is expected
		affected int64
	}{
		// Values come back as text; NULL is not the empty string.
		{"SELECT 1, NULL, 'x', '', 2.50::numeric", "1|NULL|x||2.50", 0},
		// A SELECT without rows is still a result set.
		{"SELECT id FROM " + tbl + " WHERE id < 0", "", 0},
		// Rows without columns.
		{"SELECT FROM " + tbl + " WHERE id <= 2", ";", 0},
		// Several rows.
		{"SELECT id, s FROM " + tbl + " WHERE id <= 3 ORDER BY id", "1|s1;2|s2;3|s3", 0},
		// An UPDATE reports the rows it matched.
		{"UPDATE " + tbl + " SET v = v WHERE id <= 3", "-", 3},
		// Nothing matched.
		{"UPDATE " + tbl + " SET v = v WHERE id < 0", "-", 0},
		// A multi-row INSERT.
		{"INSERT INTO " + tbl + " VALUES (100, 1, 'a'), (101, 2, 'b')", "-", 2},
		{"DELETE FROM " + tbl + " WHERE id >= 100", "-", 2},
		// Transaction control has no rows.
		{"BEGIN", "-", 0},
		{"COMMIT", "-", 0},
		// Several statements: the last one's result.
		{"SELECT 1; SELECT 2", "2", 0},
		{"UPDATE " + tbl + " SET v = v WHERE id = 1; SELECT 'last'", "last", 0},
		{"SELECT 1; UPDATE " + tbl + " SET v = v WHERE id <= 2", "-", 2},
		// An empty query.
		{"", "-", 0},
		// Notices are dropped.
		{"DO $$ BEGIN RAISE NOTICE 'hello?'; END $$", "-", 0},
		// CREATE TABLE AS reports its rows, as libpq's PQcmdTuples does.
		{"CREATE TEMP TABLE tmp_ctas AS SELECT 1 UNION SELECT 2", "-", 2},
	}
	for _, tt := range tests {
		res, err := c.Query(testContext(t), tt.query)
		if err != nil {
			t.Errorf("%q: %v", tt.query, err)
			continue
		}
		if tt.rows == "-" {
			if res.Rows != nil || res.Affected != tt.affected {
				t.Errorf("%q: rows %v, affected %d; want no result set, %d", tt.query, res.Rows != nil, res.Affected, tt.affected)
			}
			continue
		}
		if got := rowsText(text(t, res)); got != tt.rows {
			t.Errorf("%q: rows %q; want %q", tt.query, got, tt.rows)
		}
	}
}

func TestRowsLifetime(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	res := mustQuery(t, c, "SELECT 1 UNION ALL SELECT 2")
	if res.Rows.NumFields() != 1 {
		t.Fatalf("NumFields %d", res.Rows.NumFields())
	}
	if n := res.Rows.(interface{ NumRows() int }).NumRows(); n != 2 {
		t.Fatalf("NumRows %d; want 2", n)
	}
	row := make([][]byte, 1)
	if ok, _ := res.Rows.Next(row); !ok || string(row[0]) != "1" {
		t.Fatalf("first row %q", row)
	}
	// The next call on the conn closes the rows not read.
	mustQuery(t, c, "SET application_name = 'x'")
	if ok, _ := res.Rows.Next(row); ok {
		t.Error("rows still readable after the next query")
	}
	// So does Close.
	res = mustQuery(t, c, "SELECT 1")
	res.Rows.Close()
	if ok, _ := res.Rows.Next(row); ok {
		t.Error("rows readable after Close")
	}
}

func TestQueryErrors(t *testing.T) {
	d := testDriver(t, nil)
	c := connect(t, d)
	tbl := testTable(t, c, 3)
	tests := []struct {
		query string
		state string
		msg   string
	}{
		// A syntax error.
		{"SELEC 1", "42601", `syntax error at or near "SELEC"`},
		// A missing table.
		{"SELECT * FROM sbgo_no_such_table", "42P01", `relation "sbgo_no_such_table" does not exist`},
		// An error after rows were sent: the query fails, not a fetch.
		{"SELECT 1/(id-2) FROM " + tbl + " ORDER BY id", "22012", "division by zero"},
		// The second statement fails: the first is rolled back with it.
		{"UPDATE " + tbl + " SET v = 0; SELECT 1/0", "22012", "division by zero"},
	}
	for _, tt := range tests {
		_, err := c.Query(testContext(t), tt.query)
		if err == nil {
			t.Errorf("%q succeeded", tt.query)
			continue
		}
		e := asDBError(t, err)
		if e.Errno != 0 || e.State != tt.state || e.Msg != tt.msg || e.Kind != db.Fatal {
			t.Errorf("%q: %d %s %q kind %d; want 0 %s %q fatal", tt.query, e.Errno, e.State, e.Msg, e.Kind, tt.state, tt.msg)
		}
	}
	if got := rowsText(text(t, mustQuery(t, c, "SELECT sum(v) FROM "+tbl))); got != "60" {
		t.Errorf("after the failed multi-statement the values sum to %s; want 60 (unchanged)", got)
	}
}

func TestIgnorableErrorRollsBack(t *testing.T) {
	d := testDriver(t, nil) // 23505 is in the default list
	c := connect(t, d)
	tbl := testTable(t, c, 3)
	mustQuery(t, c, "BEGIN")
	mustQuery(t, c, "UPDATE "+tbl+" SET v = 0 WHERE id = 1")
	_, err := c.Query(testContext(t), "INSERT INTO "+tbl+" VALUES (1, 1, 'dup')")
	e := asDBError(t, err)
	if e.State != "23505" || e.Kind != db.Ignorable {
		t.Fatalf("duplicate key: %s kind %d; want 23505 ignorable", e.State, e.Kind)
	}
	// The driver rolled the transaction back: the session works, and the
	// UPDATE before the error is gone.
	if got := rowsText(text(t, mustQuery(t, c, "SELECT v FROM "+tbl+" WHERE id = 1"))); got != "10" {
		t.Errorf("v = %s after the rollback; want 10", got)
	}
	// A fatal error is left to the caller: the transaction stays aborted.
	mustQuery(t, c, "BEGIN")
	if _, err := c.Query(testContext(t), "SELECT 1/0"); asDBError(t, err).Kind != db.Fatal {
		t.Fatalf("division by zero is not fatal")
	}
	_, err = c.Query(testContext(t), "SELECT 1")
	if e := asDBError(t, err); e.State != "25P02" {
		t.Errorf("after a fatal error in a transaction: %v; want 25P02", err)
	}
	mustQuery(t, c, "ROLLBACK")
}

func TestDeadlock(t *testing.T) {
	d := testDriver(t, nil)
	c1, c2 := connect(t, d), connect(t, d)
	tbl := testTable(t, c1, 2)
	mustQuery(t, c1, "BEGIN")
	mustQuery(t, c1, "UPDATE "+tbl+" SET v = v + 1 WHERE id = 1")
	mustQuery(t, c2, "BEGIN")
	mustQuery(t, c2, "UPDATE "+tbl+" SET v = v + 1 WHERE id = 2")
	errs := make(chan error, 2)
	go func() {
		_, err := c1.Query(testContext(t), "UPDATE "+tbl+" SET v = v + 1 WHERE id = 2")
		if err == nil {
			_, err = c1.Query(testContext(t), "COMMIT")
		}
		errs <- err
	}()
	// c1 waits for c2's row lock; the lock c2 now asks for closes the cycle.
	time.Sleep(100 * time.Millisecond)
	_, err := c2.Query(testContext(t), "UPDATE "+tbl+" SET v = v + 1 WHERE id = 1")
	if err == nil {
		_, err = c2.Query(testContext(t), "COMMIT")
	}
	errs <- err
	var deadlocks int
	for range 2 {
		if err := <-errs; err != nil {
			e := asDBError(t, err)
			if e.State != "40P01" || e.Kind != db.Ignorable || e.Errno != 0 {
				t.Errorf("error %+v; want an ignorable 40P01", e)
			}
			deadlocks++
		}
	}
	if deadlocks != 1 {
		t.Fatalf("%d deadlocks; want 1", deadlocks)
	}
	// Both sessions are usable: the loser's transaction was rolled back.
	for _, c := range []*conn{c1, c2} {
		if got := rowsText(text(t, mustQuery(t, c, "SELECT sum(v) FROM "+tbl))); got != "32" {
			t.Errorf("sum %s; want 32 (one transaction committed)", got)
		}
	}
}

func TestLostConnection(t *testing.T) {
	admin := connect(t, testDriver(t, nil))
	tests := []struct {
		name   string
		ignore string
		kind   db.Kind
	}{
		// Listed: the caller must reconnect.
		{"listed", "08006,57P01", db.Reconnect},
		// Not listed: fatal, with the same state.
		{"unlisted", "40P01", db.Fatal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := connect(t, testDriver(t, map[string]string{"pgsql-ignore-errors": tt.ignore}))
			pid := rowsText(text(t, mustQuery(t, c, "SELECT pg_backend_pid()")))
			stale, err := c.Prepare(testContext(t), "SELECT ?", nil)
			if err != nil {
				t.Fatal(err)
			}
			mustQuery(t, admin, "SELECT pg_terminate_backend("+pid+")")
			_, err = c.Query(testContext(t), "SELECT 1")
			e := asDBError(t, err)
			t.Logf("after termination: %s %s", e.State, e.Msg)
			if (e.State != "57P01" && e.State != "08006") || e.Kind != tt.kind || e.Errno != 0 {
				t.Fatalf("after termination: %+v; want 57P01 or 08006, kind %d", e, tt.kind)
			}
			// Every call fails cleanly until the session is reopened.
			_, err = c.Query(testContext(t), "SELECT 1")
			if e := asDBError(t, err); e.State != "08006" || e.Kind != tt.kind {
				t.Errorf("second query: %+v; want 08006", e)
			}
			if _, err := stale.Execute(testContext(t), []db.Value{{Type: db.ParamInt, I: 1}}); err == nil {
				t.Error("execute on a lost session succeeded")
			}
			if err := c.Reconnect(testContext(t)); err != nil {
				t.Fatal(err)
			}
			if got := rowsText(text(t, mustQuery(t, c, "SELECT pg_backend_pid() <> "+pid))); got != "t" {
				t.Errorf("same backend after Reconnect")
			}
			// Statements of the old session fail without a panic.
			_, err = stale.Execute(testContext(t), []db.Value{{Type: db.ParamInt, I: 1}})
			if e := asDBError(t, err); e.State != "26000" || e.Kind != db.Fatal {
				t.Errorf("stale statement: %+v; want fatal 26000", e)
			}
			stale.Close()
		})
	}
}

func TestClosedConn(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	s, err := c.Prepare(testContext(t), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Close() // twice is harmless
	if _, err := c.Query(testContext(t), "SELECT 1"); asDBError(t, err).State != "08006" {
		t.Errorf("query after Close: %v", err)
	}
	if _, err := s.Execute(testContext(t), nil); asDBError(t, err).State != "08006" {
		t.Errorf("execute after Close: %v", err)
	}
	if _, err := c.Prepare(testContext(t), "SELECT 1", nil); err == nil {
		t.Error("prepare after Close succeeded")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestPrepared(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	tbl := testTable(t, c, 5)
	str := func(s string) db.Value { return db.Value{Type: db.ParamString, S: []byte(s)} }
	i64 := func(i int64) db.Value { return db.Value{Type: db.ParamInt, I: i} }
	f64 := func(f float64) db.Value { return db.Value{Type: db.ParamDouble, F: f} }
	null := func(t db.ParamType) db.Value { return db.Value{Type: t, Null: true} }
	tests := []struct {
		query   string
		nparams int
		args    [][]db.Value // one Execute each
		want    []string     // rows per Execute, or "affected N"
	}{
		// Each type comes back as text; the same statement runs again
		// with other values.
		{"SELECT ?, ?, ?", 3,
			[][]db.Value{{i64(42), f64(2.5), str("it's")}, {i64(-1), f64(1e-7), str("")}},
			[]string{"42|2.5|it's", "-1|1e-07|"}},
		// NULL of each type.
		{"SELECT ?, ?, ?", 3,
			[][]db.Value{{null(db.ParamInt), null(db.ParamDouble), null(db.ParamString)}},
			[]string{"NULL|NULL|NULL"}},
		// A point select on an int column with an int8 parameter.
		{"SELECT s, v FROM " + tbl + " WHERE id = ?", 1,
			[][]db.Value{{i64(3)}, {i64(4)}},
			[]string{"s3|30", "s4|40"}},
		// No rows: still a result set.
		{"SELECT s FROM " + tbl + " WHERE id = ?", 1, [][]db.Value{{i64(99)}}, []string{""}},
		// A range.
		{"SELECT id FROM " + tbl + " WHERE id BETWEEN ? AND ? ORDER BY id", 2,
			[][]db.Value{{i64(2), i64(4)}}, []string{"2;3;4"}},
		// Writes report affected rows.
		{"UPDATE " + tbl + " SET s = ? WHERE id <= ?", 2,
			[][]db.Value{{str("new"), i64(2)}}, []string{"affected 2"}},
		// A '?' inside a literal is not a parameter.
		{"SELECT '?', ? || '?'", 1, [][]db.Value{{str("a")}}, []string{"?|a?"}},
		// No parameters at all.
		{"SELECT count(*) FROM " + tbl, 0, [][]db.Value{nil}, []string{"5"}},
	}
	for _, tt := range tests {
		s, err := c.Prepare(testContext(t), tt.query, nil)
		if err != nil {
			t.Errorf("prepare %q: %v", tt.query, err)
			continue
		}
		if n := s.(db.ParamCounter).NumParams(); n != tt.nparams {
			t.Errorf("%q: NumParams %d; want %d", tt.query, n, tt.nparams)
		}
		for i, args := range tt.args {
			res, err := s.Execute(testContext(t), args)
			if err != nil {
				t.Errorf("%q %v: %v", tt.query, args, err)
				continue
			}
			got := "affected " + strconv.FormatInt(res.Affected, 10)
			if res.Rows != nil {
				got = rowsText(text(t, res))
			}
			if got != tt.want[i] {
				t.Errorf("%q %v: %q; want %q", tt.query, args, got, tt.want[i])
			}
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestPreparedErrors(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	// Without parameters the statement is prepared at once.
	_, err := c.Prepare(testContext(t), "SELECT * FROM sbgo_no_such_table", nil)
	if e := asDBError(t, err); e.State != "42P01" || e.Kind != db.Fatal {
		t.Errorf("prepare of a missing table: %+v", e)
	}
	// With parameters, at the first Execute (their types are known then).
	s, err := c.Prepare(testContext(t), "SELECT * FROM sbgo_no_such_table WHERE id = ?", nil)
	if err != nil {
		t.Fatal(err)
	}
	args := []db.Value{{Type: db.ParamInt, I: 1}}
	for range 2 { // a failed prepare is tried again
		_, err = s.Execute(testContext(t), args)
		if e := asDBError(t, err); e.State != "42P01" {
			t.Errorf("execute of a missing table: %+v", e)
		}
	}
	// A wrong number of values.
	_, err = s.Execute(testContext(t), nil)
	if e := asDBError(t, err); e.State != "HY000" || e.Msg != "wrong number of parameters: 0 for 1 placeholders" {
		t.Errorf("no values: %+v", e)
	}
	// A value the parameter's type cannot take fails on the server.
	s, err = c.Prepare(testContext(t), "SELECT ?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(testContext(t), []db.Value{{Type: db.ParamString, S: []byte("a\x00b")}}); asDBError(t, err).State != "22021" {
		t.Errorf("NUL in a value: %v; want 22021", err)
	}
	// Closing twice is harmless; executing a closed statement fails.
	s.Close()
	s.Close()
	if _, err := s.Execute(testContext(t), []db.Value{{Type: db.ParamInt, I: 1}}); asDBError(t, err).State != "26000" {
		t.Errorf("closed statement: %v; want 26000", err)
	}
	// The session is fine after all this.
	mustQuery(t, c, "SELECT 1")
}

func TestEmulated(t *testing.T) {
	c := connect(t, testDriver(t, map[string]string{"db-ps-mode": "disable"}))
	tbl := testTable(t, c, 3)
	s, err := c.Prepare(testContext(t), "SELECT ?, ?, ?, ?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*db.Emulated); !ok {
		t.Fatalf("statement %T; want client-side emulation", s)
	}
	values := []string{"x'; DROP TABLE " + tbl + "; --", `back\slash\'`, "", "plain"}
	var args []db.Value
	for _, v := range values {
		args = append(args, db.Value{Type: db.ParamString, S: []byte(v)})
	}
	res, err := s.Execute(testContext(t), args)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); len(got) != 1 || strings.Join(got[0], "\x01") != strings.Join(values, "\x01") {
		t.Errorf("values came back as %q; want %q", got, values)
	}
	// The table survived the injection attempt.
	mustQuery(t, c, "SELECT 1 FROM "+tbl)
	// NUL cannot be sent: the server rejects it, as it does a parameter.
	s, _ = c.Prepare(testContext(t), "SELECT ?", nil)
	_, err = s.Execute(testContext(t), []db.Value{{Type: db.ParamString, S: []byte("a\x00")}})
	if e := asDBError(t, err); e.State != "22021" {
		t.Errorf("NUL: %+v; want 22021", e)
	}
	// Numbers and NULL.
	s, _ = c.Prepare(testContext(t), "SELECT ?, ?, ?", nil)
	res, err = s.Execute(testContext(t), []db.Value{{Type: db.ParamInt, I: -7}, {Type: db.ParamDouble, F: 0.25}, {Type: db.ParamInt, Null: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsText(text(t, res)); got != "-7|0.25|NULL" {
		t.Errorf("numbers: %s", got)
	}
}

// BenchmarkPointSelect connects as the postgres superuser, which every
// server has, so that it runs before the sbtest role exists.
func BenchmarkPointSelect(b *testing.B) {
	d := testDriver(b, map[string]string{"pgsql-user": "postgres", "pgsql-db": "postgres"})
	c := connect(b, d)
	tbl := testTable(b, c, 1000)
	ctx := context.Background()
	s, err := c.Prepare(ctx, "SELECT s FROM "+tbl+" WHERE id = ?", nil)
	if err != nil {
		b.Fatal(err)
	}
	args := []db.Value{{Type: db.ParamInt}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		args[0].I = int64(i%1000 + 1)
		res, err := s.Execute(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		res.Rows.Close()
	}
}
