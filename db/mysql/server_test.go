package mysql

// Tests against the MySQL or MariaDB server on 127.0.0.1:3306 (root
// without a password, and sbtest/sbtest with database sbtest). Without a
// server they are skipped, except under CI=true, where they fail.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sbgo/db"
)

var scratchSeq atomic.Int64

// rootArgs are the options of a root session over TCP.
func rootArgs(dbName string, kv ...string) []string {
	return append([]string{"mysql-host", "127.0.0.1", "mysql-port", "3306", "mysql-user", "root", "mysql-db", dbName}, kv...)
}

// scratchDB creates a database of its own for the test, dropped at the
// end, and returns its name.
func scratchDB(t testing.TB) string {
	t.Helper()
	d, _ := newDriver(t, rootArgs("")...)
	c, err := d.Connect(context.Background())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no MySQL server on 127.0.0.1:3306: %v", err)
		}
		t.Skipf("no MySQL server on 127.0.0.1:3306: %v", err)
	}
	name := fmt.Sprintf("sbgo_mysql_test_%d_%d", os.Getpid(), scratchSeq.Add(1))
	mustQuery(t, c, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		c.Query(context.Background(), "DROP DATABASE IF EXISTS "+name)
		c.Close()
	})
	return name
}

// connect opens a session as root to dbName.
func connect(t testing.TB, dbName string, kv ...string) (db.Conn, *bytes.Buffer) {
	t.Helper()
	d, log := newDriver(t, rootArgs(dbName, kv...)...)
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, log
}

func mustQuery(t testing.TB, c db.Conn, q string) db.Result {
	t.Helper()
	res, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// fetchAll reads every row as strings, "NULL" for NULL, and closes.
func fetchAll(t testing.TB, r db.Rows) [][]string {
	t.Helper()
	var out [][]string
	row := make([][]byte, r.NumFields())
	for {
		ok, err := r.Next(row)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if !ok {
			break
		}
		var s []string
		for _, v := range row {
			if v == nil {
				s = append(s, "NULL")
			} else {
				s = append(s, string(v))
			}
		}
		out = append(out, s)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out
}

// queryRows runs q and returns its rows; q must return a result set.
func queryRows(t testing.TB, c db.Conn, q string) [][]string {
	t.Helper()
	res := mustQuery(t, c, q)
	if res.Rows == nil {
		t.Fatalf("%s: no result set", q)
	}
	return fetchAll(t, res.Rows)
}

func asDBError(t testing.TB, err error) *db.Error {
	t.Helper()
	var e *db.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *db.Error", err, err)
	}
	return e
}

func TestConnectTCPAndSocket(t *testing.T) {
	scratchDB(t) // skips without a server
	tests := []struct {
		name string
		kv   []string
		host string // the session's host as the server sees it
	}{
		{"TCP", []string{"mysql-host", "127.0.0.1", "mysql-user", "sbtest", "mysql-password", "sbtest"}, "127.0.0.1:"},
		{"localhost is the default socket", []string{"mysql-user", "sbtest", "mysql-password", "sbtest"}, "localhost"},
		{"explicit socket", []string{"mysql-host", "127.0.0.1", "mysql-socket", defaultSocket(), "mysql-user", "sbtest", "mysql-password", "sbtest"}, "localhost"},
		{"compression", []string{"mysql-host", "127.0.0.1", "mysql-user", "sbtest", "mysql-password", "sbtest", "mysql-compression", "on"}, "127.0.0.1:"},
	}
	for _, tt := range tests {
		d, _ := newDriver(t, tt.kv...)
		c, err := d.Connect(context.Background())
		if err != nil {
			t.Errorf("%s: Connect: %v", tt.name, err)
			continue
		}
		rows := queryRows(t, c, "SELECT HOST, DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
		host := rows[0][0]
		if strings.HasSuffix(tt.host, ":") {
			// MariaDB may resolve the address to a name.
			if !strings.HasPrefix(host, "127.0.0.1:") && !strings.HasPrefix(host, "localhost:") {
				t.Errorf("%s: session host %q, want a TCP peer", tt.name, host)
			}
		} else if host != tt.host {
			t.Errorf("%s: session host %q, want %q", tt.name, host, tt.host)
		}
		if rows[0][1] != "sbtest" {
			t.Errorf("%s: database %q, want sbtest", tt.name, rows[0][1])
		}
		c.Close()
	}
}

func TestConnectFailures(t *testing.T) {
	scratchDB(t)
	tests := []struct {
		name  string
		kv    []string
		env   string // MYSQL_UNIX_PORT, if set
		errno int
		msg   string // the message's start
		where string
	}{
		{"wrong password", []string{"mysql-host", "127.0.0.1", "mysql-user", "sbtest", "mysql-password", "wrong"},
			"", 1045, "Access denied for user 'sbtest'@", "host '127.0.0.1', port 3306"},
		{"unknown database", rootArgs("sbgo_no_such_database"),
			"", 1049, "Unknown database 'sbgo_no_such_database'", "host '127.0.0.1', port 3306"},
		{"refused port", []string{"mysql-host", "127.0.0.1", "mysql-port", "1"},
			"", 2003, "Can't connect to MySQL server on '127.0.0.1' (111)", "host '127.0.0.1', port 1"},
		{"unknown host", []string{"mysql-host", "sbgo-no-such-host.invalid"},
			"", 2005, "Unknown MySQL server host 'sbgo-no-such-host.invalid' (-", "host 'sbgo-no-such-host.invalid', port 3306"},
		{"missing socket", []string{"mysql-socket", "/nonexistent/mysqld.sock"},
			"", 2002, "Can't connect to local MySQL server through socket '/nonexistent/mysqld.sock' (2)", "socket '/nonexistent/mysqld.sock'"},
		{"MYSQL_UNIX_PORT for localhost", nil,
			"/nonexistent/env.sock", 2002, "Can't connect to local MySQL server through socket '/nonexistent/env.sock' (2)", "host 'localhost', port 3306"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("MYSQL_UNIX_PORT", tt.env)
			}
			d, _ := newDriver(t, tt.kv...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := d.Connect(ctx)
			e := asDBError(t, err)
			if e.Errno != tt.errno || !strings.HasPrefix(e.Msg, tt.msg) {
				t.Errorf("error %d %q, want %d %q...", e.Errno, e.Msg, tt.errno, tt.msg)
			}
			lines := d.ConnectErrorText(err)
			wantFirst := "unable to connect to MySQL server on " + tt.where + ", aborting..."
			if len(lines) != 2 || lines[0] != wantFirst || lines[1] != fmt.Sprintf("error %d: %s", e.Errno, e.Msg) {
				t.Errorf("ConnectErrorText = %q, want [%q, error %d: ...]", lines, wantFirst, tt.errno)
			}
		})
	}
}

func TestQueryResults(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	mustQuery(t, c, "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(20)) ENGINE=InnoDB")

	tests := []struct {
		query    string
		rows     [][]string // nil: no result set
		affected int64
	}{
		{"INSERT INTO t VALUES (1,'a'),(2,'b'),(3,NULL)", nil, 3},                                 // write
		{"SELECT id, c FROM t ORDER BY id", [][]string{{"1", "a"}, {"2", "b"}, {"3", "NULL"}}, 0}, // read
		{"SELECT id FROM t WHERE id > 100", [][]string{}, 0},                                      // read without rows
		{"UPDATE t SET c='x' WHERE id=1", nil, 1},                                                 // write
		{"UPDATE t SET c='x' WHERE id=1", nil, 0},                                                 // unchanged row: 0 affected
		{"BEGIN", nil, 0},                                               // other
		{"COMMIT", nil, 0},                                              // other
		{"SET @v = 5", nil, 0},                                          // other
		{"/* c */ (SELECT @v)", [][]string{{"5"}}, 0},                   // comment and parenthesis
		{"SELECT NULL, '', 'x'", [][]string{{"NULL", "", "x"}}, 0},      // NULL and empty
		{"DELETE FROM t WHERE id=3 RETURNING id", [][]string{{"3"}}, 0}, // MariaDB RETURNING
	}
	for _, tt := range tests {
		res, err := c.Query(context.Background(), tt.query)
		if err != nil {
			t.Errorf("%s: %v", tt.query, err)
			continue
		}
		if tt.rows == nil {
			if res.Rows != nil || res.Affected != tt.affected {
				t.Errorf("%s: rows %v, affected %d; want no result set, %d", tt.query, res.Rows != nil, res.Affected, tt.affected)
			}
			continue
		}
		if res.Rows == nil {
			t.Errorf("%s: no result set", tt.query)
			continue
		}
		got := fetchAll(t, res.Rows)
		if fmt.Sprint(got) != fmt.Sprint(tt.rows) {
			t.Errorf("%s: rows %q, want %q", tt.query, got, tt.rows)
		}
	}

	// ANALYZE answers with a result set.
	if rows := queryRows(t, c, "ANALYZE TABLE t"); len(rows) == 0 || len(rows[0]) != 4 {
		t.Errorf("ANALYZE TABLE: %q, want a row of 4 columns", rows)
	}

	// An empty string is non-NULL.
	res := mustQuery(t, c, "SELECT ''")
	row := make([][]byte, 1)
	if ok, err := res.Rows.Next(row); !ok || err != nil || row[0] == nil {
		t.Errorf("SELECT '': ok %v, err %v, value nil %v", ok, err, row[0] == nil)
	}
}

func TestOpenResultClosedByNextCall(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	res := mustQuery(t, c, "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3")
	row := make([][]byte, 1)
	if ok, _ := res.Rows.Next(row); !ok || string(row[0]) != "1" {
		t.Fatalf("first row %q", row[0])
	}
	// The next query works although two rows were not read.
	if rows := queryRows(t, c, "SELECT 'next'"); rows[0][0] != "next" {
		t.Errorf("next query: %q", rows)
	}
	if ok, err := res.Rows.Next(row); ok || err != nil {
		t.Errorf("old result after the next query: ok %v, err %v; want exhausted", ok, err)
	}
	if err := res.Rows.Close(); err != nil {
		t.Errorf("closing the old result: %v", err)
	}
}

func TestMultiStatements(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	res := mustQuery(t, c, "SELECT 1; SELECT 2, 3")
	if got := fetchAll(t, res.Rows); fmt.Sprint(got) != "[[1]]" {
		t.Errorf("first result %q", got)
	}
	mr := c.(db.MoreResults)
	// The first result was closed by fetchAll: nothing to step to.
	if _, ok, err := mr.NextResult(context.Background()); ok || err != nil {
		t.Errorf("NextResult after Close: ok %v, err %v", ok, err)
	}

	res = mustQuery(t, c, "SELECT 1; SELECT 2, 3")
	next, ok, err := mr.NextResult(context.Background())
	if !ok || err != nil || next.Rows == nil {
		t.Fatalf("NextResult: ok %v, err %v", ok, err)
	}
	if got := fetchAll(t, next.Rows); fmt.Sprint(got) != "[[2 3]]" {
		t.Errorf("second result %q", got)
	}
	// An exec-path first statement consumes every result.
	mustQuery(t, c, "CREATE TABLE m (a INT)")
	res = mustQuery(t, c, "INSERT INTO m VALUES (1),(2); SELECT 1")
	if res.Rows != nil {
		t.Errorf("INSERT; SELECT: got a result set")
	}
	if rows := queryRows(t, c, "SELECT COUNT(*) FROM m"); rows[0][0] != "2" {
		t.Errorf("session unusable after a multi-statement: %q", rows)
	}
}

// The same values read through the text protocol (a query) and the binary
// one (a prepared statement) give the same text.
func TestValueText(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	mustQuery(t, c, `CREATE TABLE v (ti TINYINT, i INT, bi BIGINT, ub BIGINT UNSIGNED, f FLOAT, d DOUBLE,
		dec_ DECIMAL(10,3), dt DATETIME, dt6 DATETIME(6), da DATE, tm TIME, y YEAR, s VARCHAR(10), b BLOB, n INT)`)
	mustQuery(t, c, `INSERT INTO v VALUES (-5, 123456, -9007199254740993, 18446744073709551615, 1234567, 1e20,
		-12.5, '2024-02-29 13:04:05', '2024-02-29 13:04:05.123456', '2024-02-29', '-01:02:03', 2024, 'it''s', 0x00FF, NULL)`)
	want := []string{"-5", "123456", "-9007199254740993", "18446744073709551615", "1234570", "1e20",
		"-12.500", "2024-02-29 13:04:05", "2024-02-29 13:04:05.123456", "2024-02-29", "-01:02:03", "2024", "it's", "\x00\xff", "NULL"}
	text := queryRows(t, c, "SELECT * FROM v")
	if fmt.Sprintf("%q", text[0]) != fmt.Sprintf("%q", want) {
		t.Errorf("text protocol:\n got %q\nwant %q", text[0], want)
	}
	st, err := c.Prepare(context.Background(), "SELECT * FROM v WHERE i = ?", nil)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	res, err := st.Execute(context.Background(), []db.Value{{Type: db.ParamInt, I: 123456}})
	if err != nil || res.Rows == nil {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	bin := fetchAll(t, res.Rows)
	if len(bin) != 1 || fmt.Sprintf("%q", bin[0]) != fmt.Sprintf("%q", want) {
		t.Errorf("binary protocol:\n got %q\nwant %q", bin, want)
	}
}

func TestPreparedStatements(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	ctx := context.Background()
	mustQuery(t, c, "CREATE TABLE p (id BIGINT PRIMARY KEY, d DOUBLE, s VARCHAR(100), n INT NULL)")
	ins, err := c.Prepare(ctx, "INSERT INTO p VALUES (?, ?, ?, ?)", []db.ParamType{db.ParamInt, db.ParamDouble, db.ParamString, db.ParamInt})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if n := ins.(db.ParamCounter).NumParams(); n != 4 {
		t.Errorf("NumParams = %d, want 4", n)
	}
	args := []db.Value{{Type: db.ParamInt}, {Type: db.ParamDouble}, {Type: db.ParamString}, {Type: db.ParamInt}}
	values := []struct {
		id   int64
		d    float64
		s    string
		null bool
	}{
		{1, 0.5, "plain", true},
		{9007199254740993, -1e20, "it's \"quoted\" \\ ", false},
		{3, 0, "", false},
	}
	buf := make([]byte, 0, 100) // reused, as the Lua binding reuses its buffers
	for _, v := range values {
		args[0].I, args[1].F = v.id, v.d
		buf = append(buf[:0], v.s...)
		args[2].S = buf
		args[3].Null, args[3].I = v.null, 7
		res, err := ins.Execute(ctx, args)
		if err != nil || res.Rows != nil || res.Affected != 1 {
			t.Errorf("insert %d: %+v, %v; want 1 affected row", v.id, res, err)
		}
	}
	got := queryRows(t, c, "SELECT id, d, s, n FROM p ORDER BY id")
	want := [][]string{{"1", "0.5", "plain", "NULL"}, {"3", "0", "", "7"}, {"9007199254740993", "-1e20", "it's \"quoted\" \\ ", "7"}}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("rows %q, want %q", got, want)
	}

	sel, err := c.Prepare(ctx, "SELECT s FROM p WHERE id = ?", nil)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	res, err := sel.Execute(ctx, []db.Value{{Type: db.ParamInt, I: 1}})
	if err != nil || res.Rows == nil {
		t.Fatalf("Execute select: %+v, %v", res, err)
	}
	if rows := fetchAll(t, res.Rows); fmt.Sprint(rows) != "[[plain]]" {
		t.Errorf("select rows %q", rows)
	}
	upd, _ := c.Prepare(ctx, "UPDATE p SET n = n + 1 WHERE id > ?", nil)
	if res, err := upd.Execute(ctx, []db.Value{{Type: db.ParamInt, I: 0}}); err != nil || res.Affected != 2 {
		t.Errorf("update: %+v, %v; want 2 affected", res, err)
	}
	// A wrong number of values is an error, not a crash.
	if _, err := sel.Execute(ctx, nil); asDBError(t, err).Errno != 2031 {
		t.Errorf("execute without values: %v, want 2031", err)
	}
	for _, s := range []db.Stmt{ins, sel, upd} {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if _, err := sel.Execute(ctx, []db.Value{{Type: db.ParamInt, I: 1}}); asDBError(t, err).Errno != 2056 {
		t.Errorf("execute after Close: %v, want 2056", err)
	}
	// A failed prepare is the server's error.
	_, err = c.Prepare(ctx, "SELECT * FROM no_such_table", nil)
	if e := asDBError(t, err); e.Errno != 1146 || e.State != "42S02" {
		t.Errorf("prepare of a missing table: %v, want 1146 42S02", err)
	}
}

func TestEmulatedStatements(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name, "db-ps-mode", "disable")
	ctx := context.Background()
	mustQuery(t, c, "CREATE TABLE e (id INT PRIMARY KEY, s VARCHAR(100))")
	st, err := c.Prepare(ctx, "INSERT INTO e VALUES (?, ?)", nil)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if _, ok := st.(*db.Emulated); !ok {
		t.Fatalf("statement %T, want *db.Emulated with --db-ps-mode=disable", st)
	}
	attack := "x'); DROP TABLE e; -- \\\n\x00\x1a\""
	res, err := st.Execute(ctx, []db.Value{{Type: db.ParamInt, I: 1}, {Type: db.ParamString, S: []byte(attack)}})
	if err != nil || res.Affected != 1 {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	if rows := queryRows(t, c, "SELECT s FROM e WHERE id = 1"); rows[0][0] != attack {
		t.Errorf("stored %q, want %q", rows[0][0], attack)
	}
}

func TestUnsupportedPSFallsBack(t *testing.T) {
	name := scratchDB(t)
	c, log := connect(t, name)
	ctx := context.Background()
	q := "PREPARE sbgo_inner FROM 'SELECT 42'"
	st, err := c.Prepare(ctx, q, nil)
	if err != nil {
		var e *db.Error
		if errors.As(err, &e) && e.Errno != erUnsupportedPS {
			t.Skipf("this server prepares %q (%v): cannot trigger 1295", q, err)
		}
		t.Fatalf("Prepare: %v", err)
	}
	if _, ok := st.(*db.Emulated); !ok {
		t.Skipf("this server prepares %q: cannot trigger 1295", q)
	}
	if !strings.Contains(log.String(), `Failed to prepare query "`+q+`" (1295: `) || !strings.Contains(log.String(), "), using emulation") {
		t.Errorf("log %q lacks the fallback line", log.String())
	}
	if _, err := st.Execute(ctx, nil); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if rows := queryRows(t, c, "EXECUTE sbgo_inner"); rows[0][0] != "42" {
		t.Errorf("EXECUTE gave %q", rows)
	}
}

func TestDeadlockIsIgnorable(t *testing.T) {
	name := scratchDB(t)
	a, logA := connect(t, name)
	b, logB := connect(t, name)
	ctx := context.Background()
	mustQuery(t, a, "CREATE TABLE dl (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
	mustQuery(t, a, "INSERT INTO dl VALUES (1,0),(2,0)")
	mustQuery(t, a, "SET SESSION innodb_lock_wait_timeout = 10")
	mustQuery(t, b, "SET SESSION innodb_lock_wait_timeout = 10")
	mustQuery(t, a, "BEGIN")
	mustQuery(t, b, "BEGIN")
	mustQuery(t, a, "UPDATE dl SET v=1 WHERE id=1")
	mustQuery(t, b, "UPDATE dl SET v=1 WHERE id=2")
	var wg sync.WaitGroup
	var errA error
	wg.Add(1)
	go func() { // blocks on b's row lock
		defer wg.Done()
		_, errA = a.Query(ctx, "UPDATE dl SET v=2 WHERE id=2")
	}()
	time.Sleep(200 * time.Millisecond) // let a wait first, so that b closes the cycle
	_, errB := b.Query(ctx, "UPDATE dl SET v=2 WHERE id=1")
	if errB == nil {
		// b got the lock: a was chosen as the victim; end b to free a.
		mustQuery(t, b, "COMMIT")
	}
	wg.Wait()
	a.Query(ctx, "ROLLBACK")
	b.Query(ctx, "ROLLBACK")

	err, log := errB, logB
	if err == nil {
		err, log = errA, logA
	}
	if err == nil {
		t.Fatal("no deadlock happened")
	}
	e := asDBError(t, err)
	if e.Errno != 1213 || e.State != "40001" || e.Kind != db.Ignorable {
		t.Errorf("deadlock error %d %s kind %v, want 1213 40001 Ignorable", e.Errno, e.State, e.Kind)
	}
	if !strings.Contains(log.String(), "DEBUG: Ignoring error 1213 Deadlock found") {
		t.Errorf("log %q lacks the ignored-error line", log.String())
	}
}

func TestKilledSessionReconnects(t *testing.T) {
	name := scratchDB(t)
	ctx := context.Background()
	admin, _ := connect(t, name)
	tests := []struct {
		name   string
		ignore string
		kind   db.Kind
	}{
		{"ignored", "1213,2013,2006", db.Reconnect},  // lost connection in the list: reconnect
		{"default list", "1213,1020,1205", db.Fatal}, // not in the list: fatal
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := connect(t, name, "mysql-ignore-errors", tt.ignore)
			st, err := c.Prepare(ctx, "SELECT ?", nil)
			if err != nil {
				t.Fatal(err)
			}
			id := queryRows(t, c, "SELECT CONNECTION_ID()")[0][0]
			mustQuery(t, admin, "KILL CONNECTION "+id)
			_, err = c.Query(ctx, "SELECT 1")
			e := asDBError(t, err)
			if (e.Errno != 2013 && e.Errno != 2006) || e.State != "HY000" || e.Kind != tt.kind {
				t.Fatalf("query on a killed session: %d %s %q kind %v; want 2013 or 2006, kind %v", e.Errno, e.State, e.Msg, e.Kind, tt.kind)
			}
			if err := c.Reconnect(ctx); err != nil {
				t.Fatalf("Reconnect: %v", err)
			}
			newID := queryRows(t, c, "SELECT CONNECTION_ID()")[0][0]
			if newID == id {
				t.Errorf("same session id %s after Reconnect", id)
			}
			// Statements prepared before are gone.
			if _, err := st.Execute(ctx, []db.Value{{Type: db.ParamInt, I: 1}}); asDBError(t, err).Errno != 2056 {
				t.Errorf("old statement after Reconnect: %v, want 2056", err)
			}
		})
	}
}

func TestCancelledQuery(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Query(ctx, "SELECT SLEEP(5)")
	if e := asDBError(t, err); e.Errno != 2013 {
		t.Errorf("cancelled query: %v, want 2013", err)
	}
	// The session was closed by the cancellation.
	_, err = c.Query(context.Background(), "SELECT 1")
	if e := asDBError(t, err); e.Errno != 2006 && e.Errno != 2013 {
		t.Errorf("query after a cancellation: %v, want 2006", err)
	}
}

func TestClosedConn(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	c.Close()
	_, err := c.Query(context.Background(), "SELECT 1")
	if e := asDBError(t, err); e.Errno != 2006 || e.Msg != "MySQL server has gone away" {
		t.Errorf("query on a closed conn: %v, want 2006", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestDebugHidesPassword(t *testing.T) {
	scratchDB(t)
	d, log := newDriver(t, "mysql-host", "127.0.0.1", "mysql-user", "sbtest", "mysql-password", "sbtest", "mysql-debug", "on")
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, c, "SELECT 1")
	c.Close()
	out := log.String()
	if strings.Contains(out, `"sbtest", "sbtest"`) || !strings.Contains(out, `mysql_real_connect("127.0.0.1", "sbtest", "*****", "sbtest", 3306`) {
		t.Errorf("debug log:\n%s", out)
	}
	if !strings.Contains(out, `mysql_real_query(`) || !strings.Contains(out, `"SELECT 1", 8)`) {
		t.Errorf("debug log lacks the query:\n%s", out)
	}
}

func TestCachingSHA2Password(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	rows := queryRows(t, c, "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'caching_sha2_password' AND PLUGIN_STATUS = 'ACTIVE'")
	if rows[0][0] == "0" {
		t.Skip("the server has no caching_sha2_password (MariaDB): go-sql-driver's support is untested here")
	}
	t.Skip("caching_sha2_password server: a test would have to create a user; not done on a shared server")
}

func TestTLSRequiredWithoutServerTLS(t *testing.T) {
	name := scratchDB(t)
	c, _ := connect(t, name)
	rows := queryRows(t, c, "SHOW VARIABLES LIKE 'have_ssl'")
	if len(rows) == 1 && rows[0][1] == "YES" {
		t.Skip("the server has TLS: the refusal cannot be shown")
	}
	for _, mode := range []string{"REQUIRED", "on", "VERIFY_CA"} {
		d, _ := newDriver(t, rootArgs(name, "mysql-ssl", mode)...)
		_, err := d.Connect(context.Background())
		if e := asDBError(t, err); e.Errno != 2026 || !strings.Contains(e.Msg, "SSL is required but the server doesn't support it") {
			t.Errorf("--mysql-ssl=%s against a server without TLS: %v, want 2026", mode, err)
		}
	}
	// PREFERRED falls back to plain text.
	d, _ := newDriver(t, rootArgs(name, "mysql-ssl", "PREFERRED")...)
	pc, err := d.Connect(context.Background())
	if err != nil {
		t.Fatalf("--mysql-ssl=PREFERRED: %v", err)
	}
	pc.Close()
}

// BenchmarkPointSelect is the per-event path of oltp_point_select: a
// prepared point select whose row is fetched.
func BenchmarkPointSelect(b *testing.B) {
	name := scratchDB(b)
	c, _ := connect(b, name)
	ctx := context.Background()
	mustQuery(b, c, "CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))")
	mustQuery(b, c, "INSERT INTO sbtest1 SELECT seq, seq, REPEAT('c', 120), REPEAT('p', 60) FROM seq_1_to_100")
	st, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?", nil)
	if err != nil {
		b.Fatal(err)
	}
	args := []db.Value{{Type: db.ParamInt}}
	row := make([][]byte, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[0].I = int64(i%100 + 1)
		res, err := st.Execute(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		if ok, err := res.Rows.Next(row); !ok || err != nil {
			b.Fatalf("Next: %v %v", ok, err)
		}
		res.Rows.Close()
	}
}

// TestConnectRetriesDroppedHandshakes stands a listener in front of the
// server that resets the first connections before the server's greeting,
// as an overflowing accept backlog does when thousands of threads connect
// at once: Connect tries again and gets its session. A listener that
// resets every connection fails after connectAttempts attempts.
func TestConnectRetriesDroppedHandshakes(t *testing.T) {
	dbName := scratchDB(t)
	for _, tt := range []struct {
		name     string
		drops    int64
		wantConn bool
	}{
		{"two dropped", 2, true},
		{"all dropped", 1 << 30, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var accepted atomic.Int64
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					if accepted.Add(1) <= tt.drops {
						c.(*net.TCPConn).SetLinger(0) // RST, not FIN
						c.Close()
						continue
					}
					up, err := net.Dial("tcp", "127.0.0.1:3306")
					if err != nil {
						c.Close()
						continue
					}
					go func() { io.Copy(up, c); up.Close() }()
					go func() { io.Copy(c, up); c.Close() }()
				}
			}()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			d, _ := newDriver(t, "mysql-host", "127.0.0.1", "mysql-port", port, "mysql-user", "root", "mysql-db", dbName)
			c, err := d.Connect(context.Background())
			if tt.wantConn {
				if err != nil {
					t.Fatalf("Connect after %d dropped attempts: %v", tt.drops, err)
				}
				defer c.Close()
				mustQuery(t, c, "SELECT 1")
				if got := accepted.Load(); got != tt.drops+1 {
					t.Errorf("%d connections, want %d", got, tt.drops+1)
				}
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded through a listener that resets every connection")
			}
			if got := accepted.Load(); got != connectAttempts {
				t.Errorf("%d attempts, want %d", got, connectAttempts)
			}
			if e := asDBError(t, err); e.Errno == 0 {
				t.Errorf("error without a MySQL errno: %v", err)
			}
		})
	}
}
