package luabind

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/db/dbtest"
	"sbgo/engine"
)

// These tests run sysbench.sql against the in-memory dbtest driver: what
// the bindings do with results, errors and bulk inserts, without a
// server. Whether the SQL works is tested against the servers.

// fakeBuffer collects output written from several goroutines.
type fakeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (f *fakeBuffer) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.b.Write(p)
}

func (f *fakeBuffer) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.b.String()
}

// fakeScript is a script loaded against a dbtest server.
type fakeScript struct {
	*Script
	srv *dbtest.Server
	out *fakeBuffer // print
	log *fakeBuffer // the logger: reports, FATAL lines
	lg  *engine.Logger
}

// loadFake writes src as a script (declaring an option, so that it is not
// a legacy script) and loads it for command with --db-driver=dbtest on a
// new server.
func loadFake(t *testing.T, command, src string, args ...string) *fakeScript {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake.lua")
	src = "sysbench.cmdline.options = {x = {'x', 1}}\n" + src
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeScript{srv: dbtest.NewServer(), out: &fakeBuffer{}, log: &fakeBuffer{}}
	t.Cleanup(f.srv.Close)
	f.lg = engine.NewLogger(f.log, 3)
	opts := engine.NewGeneralOptions()
	factory, _ := db.Lookup(dbtest.Name)
	if err := opts.Register(factory.Options()...); err != nil {
		t.Fatal(err)
	}
	argv := append(append([]string{"sbgo", "--db-driver=" + dbtest.Name, f.srv.Option()}, args...), path, command)
	if _, err := engine.ParseCommandLine(argv[1:], opts); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Config{TestName: path, Command: command, Argv: argv, Out: f.out,
		Log: f.lg, Options: opts, VersionString: "sbgo test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.Configure(DefaultRandOptions(), 1)
	f.Script = s
	return f
}

// run runs the run command with threads workers for events events and
// returns the exit code.
func (f *fakeScript) run(threads int, events uint64) int {
	return engine.NewRun(engine.Config{Threads: threads, Events: events, Percentile: 95, ForcedShutdown: -1}, f.lg).Execute(f.Script)
}

// fakeCounts are the counters of a run's final SQL report.
type fakeCounts struct {
	read, write, other, transactions, errors, reconnects uint64
}

var reportCounter = regexp.MustCompile(`(?m)^ +(read|write|other|transactions|ignored errors|reconnects): +(\d+)`)

// counts reads the counters from the report in f's log.
func (f *fakeScript) counts(t *testing.T) fakeCounts {
	t.Helper()
	var c fakeCounts
	found := 0
	for _, m := range reportCounter.FindAllStringSubmatch(f.log.String(), -1) {
		n, _ := strconv.ParseUint(m[2], 10, 64)
		found++
		switch m[1] {
		case "read":
			c.read = n
		case "write":
			c.write = n
		case "other":
			c.other = n
		case "transactions":
			c.transactions = n
		case "ignored errors":
			c.errors = n
		case "reconnects":
			c.reconnects = n
		}
	}
	if found != 6 {
		t.Fatalf("no SQL report in the log:\n%s", f.log.String())
	}
	return c
}

// TestFakeResultSets pins how scripts read results: rs.nfields, rs.nrows
// (which reads ahead without losing rows for fetch_row), fetch_row with
// nil for NULL and after the last row, query_row's columns as values,
// nil from statements that return no result set, a prepared statement's
// bound values (a string cut to its max_len), and further results.
func TestFakeResultSets(t *testing.T) {
	f := loadFake(t, "prepare", `
function prepare()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("SELECT a, b FROM t")
  print(rs.nfields, rs.nrows)
  local row = rs:fetch_row()
  while row do
    print(row[1], row[2])
    row = rs:fetch_row()
  end
  print(con:query_row("SELECT a, b FROM t"))
  print(con:query_row("SELECT a FROM empty"))
  print(con:query("SELECT a FROM empty").nrows)
  print(con:query("BEGIN"), con:query("UPDATE t SET a = 1"))
  local stmt = con:prepare("UPDATE t SET a = ? WHERE b = ?")
  local a = stmt:bind_create(sysbench.sql.type.INT)
  local b = stmt:bind_create(sysbench.sql.type.VARCHAR, 10)
  print(stmt:bind_param(a, b))
  a:set(5)
  b:set("it's longer than ten")
  print(stmt:execute())
  b:set(nil)
  stmt:execute()
  stmt:close()
  rs = con:query("CALL p()")
  print(rs:fetch_row()[1], con:more_results())
  print(con:next_result():fetch_row()[1])
  print(con:next_result())
end
`)
	f.srv.On(dbtest.Exact("SELECT a, b FROM t"), dbtest.Reply{Columns: []string{"a", "b"},
		Rows: [][]any{{"x", nil}, {2, "y"}, {nil, nil}}})
	f.srv.On(dbtest.Exact("SELECT a FROM empty"), dbtest.Reply{Columns: []string{"a"}})
	f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
	f.srv.On(dbtest.Exact("CALL p()"), dbtest.Reply{Columns: []string{"a"}, Rows: [][]any{{"first"}},
		More: []dbtest.Reply{{Columns: []string{"b"}, Rows: [][]any{{"second"}}}}})
	if err := f.CallFunction("prepare"); err != nil {
		t.Fatal(err)
	}
	want := "2\t3\n" + "x\tnil\n" + "2\ty\n" + "nil\tnil\n" + // fetch_row after nrows
		"x\tnil\n" + // query_row: the first row's columns
		"nil\n" + // query_row: no row
		"0\n" + // nrows of an empty result set
		"nil\tnil\n" + // BEGIN and an UPDATE return nothing
		"0\n" + // bind_param
		"nil\n" + // execute of an UPDATE
		"first\ttrue\n" + "second\n" + "nil\n" // further results
	if got := f.out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	wantLog := []string{
		"1 prepare UPDATE t SET a = ? WHERE b = ?",
		"1 bind UPDATE t SET a = ? WHERE b = ? [int string]",
		"1 execute UPDATE t SET a = ? WHERE b = ? [5 'it''s longe']",
		"1 execute UPDATE t SET a = ? WHERE b = ? [5 NULL]",
		"1 close-stmt UPDATE t SET a = ? WHERE b = ?",
	}
	if got := f.srv.Log(dbtest.OpPrepare, dbtest.OpBind, dbtest.OpExecute, dbtest.OpCloseStmt); !reflect.DeepEqual(got, wantLog) {
		t.Errorf("statement calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}
}

// TestFakeRunCountsExactly pins the run's counting with several workers
// and --events: exactly N events, and each statement counted once by its
// result (a result set, even empty, is a read; changed rows a write;
// anything else other), prepared or not; prepare and connect count
// nothing.
func TestFakeRunCountsExactly(t *testing.T) {
	f := loadFake(t, "run", `
function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM t WHERE id = ?")
  id = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(id)
end
function event(tid)
  con:query("BEGIN")                 -- other
  id:set(tid)
  stmt:execute()                     -- read: an empty result set
  con:query("SELECT 1")              -- read
  con:query("UPDATE t SET c = 1")    -- write
  con:query("DELETE FROM t WHERE 0") -- other: nothing changed
  con:query("COMMIT")                -- other
end
function thread_done()
  con:disconnect()
end
`)
	f.srv.On(dbtest.Prefix("SELECT"), dbtest.Reply{Columns: []string{"c"}})
	f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
	const threads, events = 4, 250
	if code := f.run(threads, events); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, f.log.String())
	}
	want := fakeCounts{read: 2 * events, write: events, other: 3 * events, transactions: events}
	if got := f.counts(t); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	if n := len(f.srv.Log(dbtest.OpConnect)); n != threads {
		t.Errorf("%d connections, want %d", n, threads)
	}
	if n := len(f.srv.Log(dbtest.OpExecute)); n != events {
		t.Errorf("%d executes reached the driver, want %d", n, events)
	}
	if n := len(f.srv.Log(dbtest.OpQuery)); n != 5*events {
		t.Errorf("%d queries reached the driver, want %d", n, 5*events)
	}
}

// fakeTxnEvent is an event of three statements on a worker's connection,
// whose UPDATE the error tests make fail.
const fakeTxnEvent = `
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  con:query("BEGIN")
  con:query("UPDATE t SET c = 1")
  con:query("COMMIT")
end
`

// TestFakeErrorClasses pins what a failed statement does to a run, by
// the error's class (docs/lua-api.md 4.8): the second UPDATE of a run of
// three events fails.
func TestFakeErrorClasses(t *testing.T) {
	const events = 3
	ok := func(q string) []string { return []string{"1 query " + q} }
	txn := append(append(ok("BEGIN"), ok("UPDATE t SET c = 1")...), ok("COMMIT")...)
	seq := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		err    *db.Error
		hook   string // Lua run before the event code
		code   int
		counts fakeCounts
		log    []string // queries and reconnects
		fatal  string   // a line the log must have
	}{
		// An ignorable error rolls back (not counted), counts an ignored
		// error and runs the event again.
		{"ignorable", dbtest.Err(db.Ignorable, 1213, "Deadlock found"), "", 0,
			fakeCounts{write: events, other: 2*(events+1) - 1, transactions: events, errors: 1},
			seq(txn, ok("BEGIN"), []string{"1 query UPDATE t SET c = 1 -> error 1213"}, ok("ROLLBACK"), txn, txn), ""},
		// A fatal error that sql_error_ignorable accepts is ignorable.
		{"fatal made ignorable by the hook", dbtest.Err(db.Fatal, 1048, "Column 'c' cannot be null"),
			"sysbench.hooks.sql_error_ignorable = function(e) return e.sql_errno == 1048 end", 0,
			fakeCounts{write: events, other: 2*(events+1) - 1, transactions: events, errors: 1},
			seq(txn, ok("BEGIN"), []string{"1 query UPDATE t SET c = 1 -> error 1048"}, ok("ROLLBACK"), txn, txn), ""},
		// A lost connection reconnects (refused twice first), counts a
		// reconnect, not an error, and runs the event again without a
		// rollback.
		{"reconnect", dbtest.Err(db.Reconnect, 2013, "Lost connection to MySQL server during query"), "", 0,
			fakeCounts{write: events, other: 2*(events+1) - 1, transactions: events, reconnects: 1},
			seq(txn, ok("BEGIN"), []string{"1 query UPDATE t SET c = 1 -> error 2013",
				"1 reconnect -> error 2003", "1 reconnect -> error 2003", "1 reconnect"}, txn, txn), ""},
		// A fatal error logs the driver's FATAL line and stops the run:
		// exit 1, nothing run after it, and no ignored error counted.
		{"fatal", dbtest.Err(db.Fatal, 1146, "Table 'sbtest.t' doesn't exist"), "", 1,
			fakeCounts{write: 1, other: 3, transactions: 1},
			seq(txn, ok("BEGIN"), []string{"1 query UPDATE t SET c = 1 -> error 1146"}),
			"FATAL: dbtest: error 1146 (Table 'sbtest.t' doesn't exist) for query 'UPDATE t SET c = 1'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := loadFake(t, "run", c.hook+"\n"+fakeTxnEvent)
			f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("UPDATE"), Calls: dbtest.Nth(2), Reply: dbtest.Reply{Err: c.err}})
			f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
			f.srv.FailReconnects(2, dbtest.Err(db.Fatal, 2003, "Can't connect to MySQL server"))
			if code := f.run(1, events); code != c.code {
				t.Fatalf("exit code %d, want %d:\n%s", code, c.code, f.log.String())
			}
			if got := f.srv.Log(dbtest.OpQuery, dbtest.OpReconnect); !reflect.DeepEqual(got, c.log) {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.log, "\n"))
			}
			if c.fatal != "" {
				if !strings.Contains(f.log.String(), c.fatal) || !strings.Contains(f.log.String(), "SQL error, errno = 1146") {
					t.Errorf("log has not %q and the SQL error:\n%s", c.fatal, f.log.String())
				}
			}
			if got := f.counts(t); got != c.counts {
				t.Errorf("counters %+v, want %+v", got, c.counts)
			}
		})
	}
}

// TestFakeRestartsWithSeveralWorkers pins restarts under load: with every
// other UPDATE failing with an ignorable error across four workers, each
// of the N events ends in exactly one successful UPDATE after exactly one
// failed one, so the run counts N transactions and N ignored errors, and
// on every connection each failure is followed by a ROLLBACK, never by a
// COMMIT.
func TestFakeRestartsWithSeveralWorkers(t *testing.T) {
	f := loadFake(t, "run", fakeTxnEvent)
	f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("UPDATE"), Calls: dbtest.Odd,
		Reply: dbtest.Reply{Err: dbtest.Err(db.Ignorable, 1213, "Deadlock found")}})
	f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
	const events = 200
	if code := f.run(4, events); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, f.log.String())
	}
	want := fakeCounts{write: events, other: 3 * events, transactions: events, errors: events}
	if got := f.counts(t); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	next := map[int]string{} // per connection: the query a failure must be followed by
	rollbacks := 0
	for _, c := range f.srv.Calls() {
		if c.Op != dbtest.OpQuery {
			continue
		}
		if want, ok := next[c.Conn]; ok && c.Query != want {
			t.Fatalf("conn %d: %q after a failed UPDATE, want %q", c.Conn, c.Query, want)
		}
		delete(next, c.Conn)
		if c.Err != nil {
			next[c.Conn] = "ROLLBACK"
		}
		if c.Query == "ROLLBACK" {
			rollbacks++
		}
	}
	if rollbacks != events {
		t.Errorf("%d rollbacks, want %d", rollbacks, events)
	}
}

// TestFakeBulkInsertPipelined pins bulk inserts outside the run command:
// a flush that is not the last goes to the driver while the script builds
// the next rows (the first INSERT is held in flight until the script has
// added rows past it), the rows arrive complete and in order in INSERTs
// of at most 512 KiB, the last flush is sent at bulk_insert_done, and no
// call on the connection overlaps the INSERT in flight.
func TestFakeBulkInsertPipelined(t *testing.T) {
	f := loadFake(t, "prepare", `
function prepare()
  local con = sysbench.sql.driver():connect()
  local pad = string.rep("x", 1000)
  con:bulk_insert_init("INSERT INTO t VALUES ")
  for i = 1, rows do
    con:bulk_insert_next(string.format("(%d,'%s')", i, pad))
    if i == mark then in_flight() end
  end
  con:bulk_insert_done()
  con:query("SELECT 'done'")
end
`)
	const prefix = "INSERT INTO t VALUES "
	rowLen := len("(1000,'')") + 1000 + 1 // a row and its comma
	perFlush := bulkInsertMax / rowLen
	rows, mark := 3*perFlush-100, perFlush+perFlush/2 // three INSERTs; mark: while the second is built

	// The first INSERT is held until the script reaches row mark; if the
	// flush were not pipelined, the script would wait for it there, until
	// the safety timer lets it go.
	gate := make(chan struct{})
	var release sync.Once
	var timedOut atomic.Bool
	safety := time.AfterFunc(20*time.Second, func() {
		timedOut.Store(true)
		release.Do(func() { close(gate) })
	})
	defer safety.Stop()
	f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("INSERT"), Calls: dbtest.Nth(1), Reply: dbtest.Reply{Block: gate}})
	var inFlight []string
	L := f.main.L
	L.SetGlobal("rows", lua.LNumber(rows))
	L.SetGlobal("mark", lua.LNumber(mark))
	L.SetGlobal("in_flight", L.NewFunction(func(*lua.LState) int {
		// The flush's goroutine may not have reached the driver yet on a
		// busy machine: give it time to, without releasing the INSERT.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if inFlight = f.srv.Log(dbtest.OpQuery); len(inFlight) > 0 {
				break
			}
		}
		release.Do(func() { close(gate) })
		return 0
	}))
	if err := f.CallFunction("prepare"); err != nil {
		t.Fatal(err)
	}
	if timedOut.Load() {
		t.Fatal("the script waited for the first INSERT: the flush was not pipelined")
	}
	if len(inFlight) != 1 || !strings.HasPrefix(inFlight[0], "1 query "+prefix+"(1,") {
		t.Errorf("at row %d the driver had %d queries, want the first INSERT in flight", mark, len(inFlight))
	}
	var inserts []string
	queries := f.srv.Log(dbtest.OpQuery)
	for _, q := range queries[:len(queries)-1] {
		body, ok := strings.CutPrefix(q, "1 query "+prefix)
		if !ok || len(prefix)+len(body) > bulkInsertMax {
			t.Fatalf("not an INSERT of at most %d bytes: %.60s... (%d bytes)", bulkInsertMax, q, len(q))
		}
		inserts = append(inserts, body)
	}
	if last := queries[len(queries)-1]; last != "1 query SELECT 'done'" {
		t.Errorf("last query %q, want the one after bulk_insert_done", last)
	}
	var want []string
	pad := strings.Repeat("x", 1000)
	for i := 1; i <= rows; i++ {
		want = append(want, "("+strconv.Itoa(i)+",'"+pad+"')")
	}
	if len(inserts) != 3 || strings.Join(inserts, ",") != strings.Join(want, ",") {
		t.Errorf("%d INSERTs whose rows are not rows 1 to %d in order", len(inserts), rows)
	}
	if o := f.srv.Overlaps(); len(o) != 0 {
		t.Errorf("overlapping calls: %v", o)
	}
}

// holdFirstBegins holds the first BEGIN of f's server until a second one
// arrives (or 20 s pass), so that each of two workers runs at least one
// event however the scheduler favours the first: the first worker is
// held in its first event until the second has started one. It reports
// whether the second BEGIN came.
func holdFirstBegins(t *testing.T, f *fakeScript) (bothStarted func() bool) {
	started := make(chan struct{})
	var once sync.Once
	var timedOut atomic.Bool
	safety := time.AfterFunc(20*time.Second, func() {
		timedOut.Store(true)
		once.Do(func() { close(started) })
	})
	t.Cleanup(func() { safety.Stop() })
	f.srv.Add(&dbtest.Rule{Match: dbtest.Exact("BEGIN"), Reply: dbtest.Reply{Block: started},
		Calls: func(n int) bool {
			if n == 2 {
				once.Do(func() { close(started) })
			}
			return n <= 2
		}})
	return func() bool { return !timedOut.Load() }
}

// TestFakeLegacyAPI pins the 0.5 API on the same paths: db_query and a
// db_execute with a bound table of values read at each execute, counted
// as the 1.0 calls are, and an ignorable error restarting the event
// after a ROLLBACK, with several workers.
func TestFakeLegacyAPI(t *testing.T) {
	f := loadFake(t, "run", `
function thread_init(thread_id)
  db_connect()
  stmt = db_prepare("SELECT c FROM t WHERE id = ?")
  params = {0}
  db_bind_param(stmt, params)
end
function event(thread_id)
  db_query("BEGIN")
  params[1] = thread_id + 100 -- 100 and 101
  db_free_results(db_execute(stmt))
  db_query("UPDATE t SET c = 1")
  db_query("COMMIT")
end
`)
	f.srv.On(dbtest.Prefix("SELECT"), dbtest.Reply{Columns: []string{"c"}, Rows: [][]any{{"x"}}})
	f.srv.Add(&dbtest.Rule{Match: dbtest.Prefix("UPDATE"), Calls: dbtest.Odd,
		Reply: dbtest.Reply{Err: dbtest.Err(db.Ignorable, 1213, "Deadlock found")}})
	f.srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
	bothStarted := holdFirstBegins(t, f)
	const events = 100
	if code := f.run(2, events); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, f.log.String())
	}
	if !bothStarted() {
		t.Error("the second worker ran no event within 20 s of the first")
	}
	// Every event runs twice up to its UPDATE: once failing, once not.
	want := fakeCounts{read: 2 * events, write: events, other: 3 * events, transactions: events, errors: events}
	if got := f.counts(t); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	args := map[int]map[string]bool{} // per connection, the values its executes sent
	for _, c := range f.srv.Calls() {
		if c.Op == dbtest.OpExecute {
			if args[c.Conn] == nil {
				args[c.Conn] = map[string]bool{}
			}
			args[c.Conn][strings.Join(c.Args, " ")] = true
		}
	}
	if len(args) != 2 || !reflect.DeepEqual(args, map[int]map[string]bool{1: {"100": true}, 2: {"101": true}}) &&
		!reflect.DeepEqual(args, map[int]map[string]bool{1: {"101": true}, 2: {"100": true}}) {
		t.Errorf("executed values per connection: %v, want 100 on one and 101 on the other", args)
	}
	rollbacks := 0
	for _, c := range f.srv.Calls() {
		if c.Op == dbtest.OpQuery && c.Query == "ROLLBACK" {
			rollbacks++
		}
	}
	if rollbacks != events {
		t.Errorf("%d rollbacks, want %d", rollbacks, events)
	}
}
