package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// The tests run SQLite itself, in the test process, on files in the
// test's own temporary directory.

// newOptions returns the driver's options and --db-ps-mode with their
// defaults, --sqlite-db in a temporary directory, then sets name/value
// pairs.
func newOptions(t testing.TB, kv ...string) *engine.Options {
	t.Helper()
	o := engine.NewOptions()
	if err := o.Register(Factory{}.Options()...); err != nil {
		t.Fatal(err)
	}
	if err := o.Register(engine.Option{Name: "db-ps-mode", Type: engine.ArgString, Default: engine.Default("auto")}); err != nil {
		t.Fatal(err)
	}
	kv = append([]string{"sqlite-db", filepath.Join(t.TempDir(), "test.db")}, kv...)
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if err := o.Set(kv[i], &v); err != nil {
			t.Fatalf("--%s=%s: %v", kv[i], v, err)
		}
	}
	return o
}

func newDriver(t testing.TB, kv ...string) *Driver {
	t.Helper()
	d, err := Factory{}.New(newOptions(t, kv...), engine.NewLogger(nil, 0))
	if err != nil {
		t.Fatalf("New(%q): %v", kv, err)
	}
	return d.(*Driver)
}

func connect(t testing.TB, d *Driver) db.Conn {
	t.Helper()
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func exec(t testing.TB, c db.Conn, queries ...string) db.Result {
	t.Helper()
	var res db.Result
	for _, q := range queries {
		var err error
		if res, err = c.Query(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return res
}

// readAll reads a result's rows as text, "NULL" for SQL NULL.
func readAll(t testing.TB, res db.Result) [][]string {
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

func TestRegistered(t *testing.T) {
	f, ok := db.Lookup("sqlite")
	if !ok || f.Name() != "sqlite" {
		t.Fatal("sqlite is not registered")
	}
}

// TestResults: values come back as text the way SQLite writes them,
// and each statement is counted as sysbench's drivers count results.
func TestResults(t *testing.T) {
	c := connect(t, newDriver(t))
	exec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, f REAL, b BLOB)")
	res := exec(t, c, "INSERT INTO t(v, f, b) VALUES ('a', 1.5, x'6869'), ('it''s', NULL, NULL), ('', 100.0, NULL)")
	if res.Rows != nil || res.Affected != 3 {
		t.Errorf("INSERT of 3 rows: %+v", res)
	}
	got := readAll(t, exec(t, c, "SELECT id, v, f, b FROM t ORDER BY id"))
	want := [][]string{{"1", "a", "1.5", "hi"}, {"2", "it's", "NULL", "NULL"}, {"3", "", "100.0", "NULL"}}
	if !equalRows(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	res = exec(t, c, "SELECT v FROM t WHERE id > 10")
	if n := res.Rows.(*rows).NumRows(); n != 0 {
		t.Errorf("empty result set: %d rows", n)
	}
	for _, tc := range []struct {
		query    string
		affected int64
	}{
		{"UPDATE t SET v = 'b' WHERE id = 1", 1},
		// sqlite3_changes still says 1 here: not a change of this statement
		{"BEGIN", 0},
		{"UPDATE t SET v = 'b' WHERE id = 99", 0},
		{"COMMIT", 0},
		{"DELETE FROM t", 3},
	} {
		if res := exec(t, c, tc.query); res.Rows != nil || res.Affected != tc.affected {
			t.Errorf("%s: %+v, want %d affected", tc.query, res, tc.affected)
		}
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

// TestMultiStatementQuery: the statements of a text query run in order;
// the last one's result is returned, or the first error.
func TestMultiStatementQuery(t *testing.T) {
	c := connect(t, newDriver(t))
	res := exec(t, c, "CREATE TABLE t(x); INSERT INTO t VALUES (1); -- comment\n SELECT count(*) FROM t; ")
	if got := readAll(t, res); !equalRows(got, [][]string{{"1"}}) {
		t.Errorf("last result %q", got)
	}
	_, err := c.Query(context.Background(), "INSERT INTO t VALUES (2); SELECT * FROM nosuch; INSERT INTO t VALUES (3)")
	if e := db.AsError(err); e.Errno != 1 || e.State != "SQLITE_ERROR" || !strings.Contains(e.Msg, "no such table") {
		t.Errorf("error %v", err)
	}
	if got := readAll(t, exec(t, c, "SELECT group_concat(x) FROM t")); got[0][0] != "1,2" {
		t.Errorf("after the error: %q, want the statements before it only", got)
	}
}

// TestPrepared: parameters of every type, bound again for each execute.
func TestPrepared(t *testing.T) {
	for _, mode := range []string{"auto", "disable"} {
		t.Run(mode, func(t *testing.T) {
			c := connect(t, newDriver(t, "db-ps-mode", mode))
			exec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, f REAL)")
			ins, err := c.Prepare(context.Background(), "INSERT INTO t VALUES (?, ?, ?)", nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := ins.(db.ParamCounter).NumParams(); n != 3 {
				t.Errorf("NumParams %d", n)
			}
			args := []db.Value{{Type: db.ParamInt}, {Type: db.ParamString}, {Type: db.ParamDouble}}
			for i, s := range []string{"a", "it's", "", "?"} {
				args[0].I, args[1].S, args[2].F = int64(i+1), []byte(s), float64(i)/2
				args[1].Null = i == 2
				if res, err := ins.Execute(context.Background(), args); err != nil || res.Affected != 1 {
					t.Fatalf("execute %d: %+v %v", i, res, err)
				}
			}
			sel, err := c.Prepare(context.Background(), "SELECT s, f FROM t WHERE id BETWEEN ? AND ? ORDER BY id", nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sel.Execute(context.Background(), []db.Value{{Type: db.ParamInt, I: 2}, {Type: db.ParamInt, I: 4}})
			if err != nil {
				t.Fatal(err)
			}
			want := [][]string{{"it's", "0.5"}, {"NULL", "1.0"}, {"?", "1.5"}}
			if got := readAll(t, res); !equalRows(got, want) {
				t.Errorf("rows %q, want %q", got, want)
			}
			if _, err := sel.Execute(context.Background(), args[:1]); err == nil {
				t.Error("an execute with 1 value for 2 parameters succeeded")
			}
			sel.Close()
			ins.Close()
		})
	}
}

func TestPrepareOneStatement(t *testing.T) {
	c := connect(t, newDriver(t))
	for _, q := range []string{"SELECT 1; SELECT 2", "", "-- nothing"} {
		if _, err := c.Prepare(context.Background(), q, nil); err == nil {
			t.Errorf("%q prepared", q)
		}
	}
	if _, err := c.Prepare(context.Background(), "SELECT 1;  ", nil); err != nil {
		t.Errorf("a final ';': %v", err)
	}
}

// TestErrors: codes, names and kinds, with the default ignore list.
func TestErrors(t *testing.T) {
	c := connect(t, newDriver(t))
	exec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY)", "INSERT INTO t VALUES (1)")
	for _, tc := range []struct {
		query string
		errno int
		state string
	}{
		{"SELEC 1", 1, "SQLITE_ERROR"},
		{"INSERT INTO t VALUES (1)", 19, "SQLITE_CONSTRAINT_PRIMARYKEY"},
		{"COMMIT", 1, "SQLITE_ERROR"},
	} {
		_, err := c.Query(context.Background(), tc.query)
		var e *db.Error
		if !errors.As(err, &e) || e.Errno != tc.errno || e.State != tc.state || e.Kind != db.Fatal || e.Msg == "" {
			t.Errorf("%s: %#v, want fatal %d %s", tc.query, e, tc.errno, tc.state)
		}
	}
}

// TestBusy: a writer waits for the lock up to --sqlite-busy-timeout,
// then fails with SQLITE_BUSY, which is ignorable by default.
func TestBusy(t *testing.T) {
	opts := newOptions(t, "sqlite-busy-timeout", "100")
	d1, _ := Factory{}.New(opts, engine.NewLogger(nil, 0))
	a, b := connect(t, d1.(*Driver)), connect(t, d1.(*Driver))
	exec(t, a, "CREATE TABLE t(x)", "BEGIN IMMEDIATE")
	_, err := b.Query(context.Background(), "BEGIN IMMEDIATE")
	var e *db.Error
	if !errors.As(err, &e) || e.Errno != 5 || e.State != "SQLITE_BUSY" || e.Kind != db.Ignorable {
		t.Fatalf("second writer: %#v, want an ignorable SQLITE_BUSY", err)
	}
	// In WAL mode a reader does not wait for the writer.
	if got := readAll(t, exec(t, b, "SELECT count(*) FROM t")); got[0][0] != "0" {
		t.Errorf("reader: %q", got)
	}
	// Released while a patient writer waits: it gets the lock.
	d2, _ := Factory{}.New(opts, engine.NewLogger(nil, 0))
	d2.(*Driver).s.busyTimeout = 60000
	b = connect(t, d2.(*Driver))
	committed := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, err := a.Query(context.Background(), "COMMIT")
		committed <- err
	}()
	if _, err := b.Query(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Errorf("lock released while waiting: %v", err)
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	exec(t, b, "COMMIT")
}

// TestStaleSnapshot: a transaction that read before another connection
// committed cannot write; the error is ignorable, so the event restarts.
func TestStaleSnapshot(t *testing.T) {
	d := newDriver(t)
	a, b := connect(t, d), connect(t, d)
	exec(t, a, "CREATE TABLE t(x)", "BEGIN", "SELECT count(*) FROM t")
	exec(t, b, "INSERT INTO t VALUES (1)")
	_, err := a.Query(context.Background(), "INSERT INTO t VALUES (2)")
	var e *db.Error
	if !errors.As(err, &e) || e.Errno != 5 || e.State != "SQLITE_BUSY_SNAPSHOT" || e.Kind != db.Ignorable {
		t.Fatalf("%#v, want an ignorable SQLITE_BUSY_SNAPSHOT", err)
	}
	exec(t, a, "ROLLBACK")
}

// TestContextEnds: a call whose context ends returns with
// SQLITE_INTERRUPT, whether it waits for a lock or runs a statement;
// the connection then fails until Reconnect.
func TestContextEnds(t *testing.T) {
	d := newDriver(t, "sqlite-busy-timeout", "60000", "sqlite-ignore-errors", "busy,interrupt")
	a, b := connect(t, d), connect(t, d)
	exec(t, a, "CREATE TABLE t(x)", "BEGIN IMMEDIATE")
	for _, query := range []string{
		"BEGIN IMMEDIATE", // waits for a's lock
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", // runs for ever
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		done := make(chan error, 1)
		go func() { _, err := b.Query(ctx, query); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: still running after its context ended", query)
		}
		var e *db.Error
		if !errors.As(err, &e) || e.Errno != 9 || e.State != "SQLITE_INTERRUPT" || e.Kind != db.Reconnect {
			t.Fatalf("%s: %#v, want SQLITE_INTERRUPT asking for a reconnect", query, err)
		}
		if _, err := b.Query(context.Background(), "SELECT 1"); err == nil {
			t.Error("the connection works after an interrupted call")
		}
		if err := b.Reconnect(context.Background()); err != nil {
			t.Fatal(err)
		}
		exec(t, b, "SELECT 1")
	}
}

// TestReconnect: statements of the old connection fail; new ones work.
func TestReconnect(t *testing.T) {
	c := connect(t, newDriver(t))
	s, err := c.Prepare(context.Background(), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(context.Background(), nil); err == nil {
		t.Error("a statement of the old connection executed")
	}
	s.Close()
	exec(t, c, "SELECT 1")
}

// TestMemoryDatabase: --sqlite-db=:memory: is one database for all the
// connections of the process, and outlives them.
func TestMemoryDatabase(t *testing.T) {
	d := newDriver(t, "sqlite-db", ":memory:")
	a := connect(t, d)
	exec(t, a, "DROP TABLE IF EXISTS mem", "CREATE TABLE mem(x)", "INSERT INTO mem VALUES (7)")
	a.Close()
	b := connect(t, newDriver(t, "sqlite-db", ":memory:"))
	if got := readAll(t, exec(t, b, "SELECT x FROM mem")); !equalRows(got, [][]string{{"7"}}) {
		t.Errorf("second connection reads %q", got)
	}
}

// TestSettings: the PRAGMAs of the options reach every connection.
func TestSettings(t *testing.T) {
	c := connect(t, newDriver(t, "sqlite-journal-mode", "DELETE", "sqlite-synchronous", "full",
		"sqlite-cache-size", "4096", "sqlite-pragma", "foreign_keys=on,temp_store=memory"))
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "delete"}, {"synchronous", "2"}, {"cache_size", "-4096"},
		{"foreign_keys", "1"}, {"temp_store", "2"},
	} {
		if got := readAll(t, exec(t, c, "PRAGMA "+tc.pragma)); got[0][0] != tc.want {
			t.Errorf("%s = %s, want %s", tc.pragma, got[0][0], tc.want)
		}
	}
	c = connect(t, newDriver(t))
	if got := readAll(t, exec(t, c, "PRAGMA journal_mode")); got[0][0] != "wal" {
		t.Errorf("default journal mode %s", got[0][0])
	}
}

func TestOptionErrors(t *testing.T) {
	for _, kv := range [][]string{
		{"sqlite-journal-mode", "fast"},
		{"sqlite-synchronous", "sometimes"},
		{"sqlite-busy-timeout", "-1"},
		{"sqlite-ignore-errors", "SQLITE_NOPE"},
		{"sqlite-pragma", "a=1;DROP TABLE t"},
		{"db-ps-mode", "maybe"},
	} {
		if _, err := (Factory{}).New(newOptions(t, kv...), engine.NewLogger(nil, 0)); err == nil {
			t.Errorf("--%s=%s accepted", kv[0], kv[1])
		}
	}
}

func TestConnectError(t *testing.T) {
	d := newDriver(t, "sqlite-db", filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"))
	_, err := d.Connect(context.Background())
	var e *db.Error
	if !errors.As(err, &e) || e.Errno != 14 || e.State != "SQLITE_CANTOPEN" {
		t.Fatalf("%#v, want SQLITE_CANTOPEN", err)
	}
	if lines := d.ConnectErrorText(err); len(lines) != 1 || !strings.Contains(lines[0], "x.db") {
		t.Errorf("connect error text %q", lines)
	}
}

// TestIgnoreList: names with or without the prefix in any case, numbers,
// all and none; a primary code covers its extended codes.
func TestIgnoreList(t *testing.T) {
	for _, tc := range []struct {
		items []string
		rc    int32
		want  bool
	}{
		{[]string{"SQLITE_BUSY"}, 5, true},            // by name
		{[]string{"SQLITE_BUSY"}, 517, true},          // an extended code of a listed primary one
		{[]string{"busy_snapshot"}, 517, true},        // an extended name, prefix and case left out
		{[]string{"busy_snapshot"}, 5, false},         // an extended code covers only itself
		{[]string{"6"}, 262, true},                    // by number
		{[]string{"19"}, 2067, true},                  // SQLITE_CONSTRAINT_UNIQUE
		{[]string{"all"}, 11, true},                   // everything
		{[]string{"none"}, 5, false},                  // nothing
		{[]string{defaultIgnoreErrors}, 6, true},      // the default list holds LOCKED
		{[]string{"SQLITE_BUSY", "LOCKED"}, 1, false}, // not SQLITE_ERROR
		{[]string{" sqlite_interrupt "}, 9, true},     // spaces around an item
	} {
		l, err := parseIgnoreList(strings.Split(strings.Join(tc.items, ","), ","))
		if err != nil {
			t.Errorf("%q: %v", tc.items, err)
			continue
		}
		if got := l.has(tc.rc); got != tc.want {
			t.Errorf("%q has %d: %v, want %v", tc.items, tc.rc, got, tc.want)
		}
	}
	for _, bad := range []string{"SQLITE_NOPE", "0", "-5", "busy5"} {
		if _, err := parseIgnoreList([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestExecuteAllocatesNothing: the per-event path, a point select and an
// UPDATE with a string, allocates nothing in Go, with and without a
// context that can end.
func TestExecuteAllocatesNothing(t *testing.T) {
	c := connect(t, newDriver(t))
	exec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, c TEXT)", "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	sel, _ := c.Prepare(context.Background(), "SELECT c FROM t WHERE id = ?", nil)
	upd, _ := c.Prepare(context.Background(), "UPDATE t SET c = ? WHERE id = ?", nil)
	selArgs := []db.Value{{Type: db.ParamInt, I: 1}}
	updArgs := []db.Value{{Type: db.ParamString, S: []byte("some text")}, {Type: db.ParamInt, I: 2}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), ctx} {
		sel.Execute(ctx, selArgs) // the first call with a context watches it
		n := testing.AllocsPerRun(200, func() {
			if _, err := sel.Execute(ctx, selArgs); err != nil {
				t.Fatal(err)
			}
			if _, err := upd.Execute(ctx, updArgs); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%v allocations per execute pair", n)
		}
	}
}

// TestConnectTogether: connections opened at the same moment on a new
// file all come up, though each asks to change its journal mode.
func TestConnectTogether(t *testing.T) {
	for round := 0; round < 5; round++ {
		d := newDriver(t)
		errs := make(chan error, 8)
		for i := 0; i < cap(errs); i++ {
			go func() {
				c, err := d.Connect(context.Background())
				if err == nil {
					_, err = c.Query(context.Background(), "CREATE TABLE IF NOT EXISTS t(x)")
					c.Close()
				}
				errs <- err
			}()
		}
		for i := 0; i < cap(errs); i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
