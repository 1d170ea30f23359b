package main

import (
	"database/sql"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"sbgo/internal/faultproxy"
)

// mysqlArgs connect sbgo to the local MariaDB as the sbtest user, which
// .ci/run creates.
var mysqlArgs = []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306",
	"--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest"}

// needMySQL returns an administrator connection to the local MariaDB.
// Without a server the test fails in CI and is skipped elsewhere.
func needMySQL(t *testing.T) *sql.DB {
	t.Helper()
	admin, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/sbtest")
	if err == nil {
		err = admin.Ping()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MariaDB on 127.0.0.1:3306 is needed: %v", err)
		}
		t.Skipf("no MariaDB on 127.0.0.1:3306: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	return admin
}

func withArgs(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

// reportNumber reads a number from a report line such as
// "    reconnects:                          3      (0.99 per sec.)".
func reportNumber(t *testing.T, out, label string) int {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(label) + `:\s+([0-9]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in the report:\n%s", label, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestMySQLConnectionErrors: each bad connection setting gives sysbench's
// two FATAL lines naming the problem, and exit 1.
func TestMySQLConnectionErrors(t *testing.T) {
	needMySQL(t)
	cases := []struct {
		name  string
		args  []string
		lines []string
	}{
		{"wrong password", []string{"--mysql-host=127.0.0.1", "--mysql-user=sbtest", "--mysql-password=wrong", "--mysql-db=sbtest"},
			[]string{"FATAL: unable to connect to MySQL server on host '127.0.0.1', port 3306, aborting...", "FATAL: error 1045: Access denied for user 'sbtest'"}},
		{"unknown host", []string{"--mysql-host=no-such-host.invalid", "--mysql-user=sbtest", "--mysql-password=sbtest"},
			[]string{"FATAL: unable to connect to MySQL server on host 'no-such-host.invalid', port 3306, aborting...", "FATAL: error 2005: Unknown MySQL server host 'no-such-host.invalid'"}},
		{"refused port", []string{"--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-user=sbtest", "--mysql-password=sbtest"},
			[]string{"FATAL: unable to connect to MySQL server on host '127.0.0.1', port 1, aborting...", "FATAL: error 2003: Can't connect to MySQL server on '127.0.0.1'"}},
		{"missing database", []string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=sbgo_no_such_db"},
			[]string{"FATAL: error 1049: Unknown database 'sbgo_no_such_db'"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := withArgs([]string{"sql_query.lua", "--db-driver=mysql", "--events=1"}, tc.args...)
			r := runBinary(t, sbgoBinary, append(args, "run")...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			for _, l := range tc.lines {
				if !strings.Contains(r.stdout, l) {
					t.Errorf("stdout lacks %q:\n%s", l, r.stdout)
				}
			}
		})
	}
	// A missing table: the server's error, the query and the script line.
	r := runBinary(t, sbgoBinary, append(withArgs([]string{"sql_query.lua", "--events=1", "--query=SELECT * FROM sbgo_no_such_table"}, mysqlArgs...), "run")...)
	for _, l := range []string{
		"FATAL: mysql_drv_query() returned error 1146 (Table 'sbtest.sbgo_no_such_table' doesn't exist) for query 'SELECT * FROM sbgo_no_such_table'",
		"FATAL: `thread_run' function failed: sql_query.lua:12: SQL error, errno = 1146, state = '42S02': Table 'sbtest.sbgo_no_such_table' doesn't exist",
	} {
		if !strings.Contains(r.stdout, l) {
			t.Errorf("missing table: stdout lacks %q:\n%s", l, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("missing table: exit %d, want 1", r.code)
	}
}

// TestMySQLDeadlocksAreIgnored: deadlocks and lock wait timeouts (in the
// default ignore list) restart the event; the run goes on, counts them,
// and, because sbgo rolls back before restarting, never commits half a
// transaction: both rows end equal to the number of transactions.
func TestMySQLDeadlocksAreIgnored(t *testing.T) {
	needMySQL(t)
	checkDeadlocksIgnored(t, mysqlArgs, "40")
}

// checkDeadlocksIgnored runs deadlock.lua with the driver options conn for
// a number of events: it must finish, count ignored errors, and leave both
// rows equal to the number of transactions. The events, not the time,
// end the run, which therefore has no deadline: at a time limit, an event
// waiting for PostgreSQL's deadlock detection (a second) would be
// abandoned, and done(), which reads the rows, would find the run's
// context ended.
func checkDeadlocksIgnored(t *testing.T, conn []string, events string) {
	t.Helper()
	if r := runBinary(t, sbgoBinary, append(withArgs([]string{"deadlock.lua"}, conn...), "prepare")...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s", r.code, r.stdout)
	}
	defer runBinary(t, sbgoBinary, append(withArgs([]string{"deadlock.lua"}, conn...), "cleanup")...)
	r := runBinary(t, sbgoBinary, append(withArgs([]string{"deadlock.lua", "--threads=2", "--events=" + events, "--time=120"}, conn...), "run")...)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stdout)
	}
	if n := reportNumber(t, r.stdout, "ignored errors"); n == 0 {
		t.Errorf("no ignored errors counted:\n%s", r.stdout)
	}
	trx := reportNumber(t, r.stdout, "transactions")
	m := regexp.MustCompile(`rows: ([0-9]+) ([0-9]+)`).FindStringSubmatch(r.stdout)
	if m == nil || m[1] != strconv.Itoa(trx) || m[2] != strconv.Itoa(trx) {
		t.Errorf("rows %v after %d transactions: a restarted event committed part of a transaction\n%s", m, trx, r.stdout)
	}
}

// TestMySQLKilledConnectionsReconnect: KILL CONNECTION of sbgo's sessions
// during a run with --mysql-ignore-errors=2013,2006: the workers reconnect
// and the run finishes with its report. The run uses a database of its
// own, and only its sessions are killed, so that tests of other packages
// running at the same time keep theirs.
func TestMySQLKilledConnectionsReconnect(t *testing.T) {
	admin := needMySQL(t)
	const schema = "sbgo_killed"
	if _, err := admin.Exec("CREATE DATABASE IF NOT EXISTS " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + schema) })
	conn := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306", "--mysql-user=root", "--mysql-db=" + schema}
	args := append(withArgs([]string{"sql_query.lua", "--threads=2", "--time=4", "--mysql-ignore-errors=2013,2006"}, conn...), "run")
	cmd, out := startBinary(t, args...)
	time.Sleep(1500 * time.Millisecond)
	killed := killSessions(t, admin, schema)
	if killed == 0 {
		t.Fatal("no sbgo session to kill")
	}
	code := waitExit(t, cmd, 30*time.Second)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if n := reportNumber(t, out.String(), "reconnects"); n == 0 {
		t.Errorf("%d sessions killed but no reconnect counted:\n%s", killed, out.String())
	}
}

// killSessions kills every session whose current database is schema,
// other than admin's own, and returns how many.
func killSessions(t *testing.T, admin *sql.DB, schema string) int {
	t.Helper()
	rows, err := admin.Query("SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()", schema)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		admin.Exec("KILL CONNECTION " + strconv.FormatInt(id, 10))
	}
	return len(ids)
}

// startProxy is a fault proxy to target, closed when the test ends;
// closing it drops every connection, as a server whose port closes does.
func startProxy(t testing.TB, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestMySQLServerGoneEndsRun: the server's port closes mid-run (not in the
// ignore list): one clear error, the report so far marked incomplete, exit
// 1, and no hang past --time.
func TestMySQLServerGoneEndsRun(t *testing.T) {
	needMySQL(t)
	p := startProxy(t, "127.0.0.1:3306")
	args := []string{"sql_query.lua", "--threads=2", "--time=10", "--db-driver=mysql", "--mysql-host=127.0.0.1",
		"--mysql-port=" + strconv.Itoa(p.Port()), "--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest", "run"}
	cmd, out := startBinary(t, args...)
	time.Sleep(1500 * time.Millisecond)
	p.Close()
	code := waitExit(t, cmd, 30*time.Second)
	text := out.String()
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, text)
	}
	// Lost during a query (2013) or found gone when sending one (2006).
	if !regexp.MustCompile(`errno = 20(13|06)`).MatchString(text) {
		t.Errorf("no lost-connection error:\n%s", text)
	}
	for _, want := range []string{"the report below is incomplete", "General statistics:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "panic") || strings.Contains(text, "goroutine ") {
		t.Errorf("sbgo panicked:\n%s", text)
	}
}

// TestMySQLPipelinedBulkInsert: outside the run command a bulk INSERT is
// sent while the next one is built. Every row arrives and holds what it
// was given (no buffer is reused while its INSERT is sent), an operation
// on the connection waits for the INSERT in flight, and an error in a
// pipelined INSERT stops the command as a synchronous one would.
func TestMySQLPipelinedBulkInsert(t *testing.T) {
	needMySQL(t)
	ok := runBinary(t, sbgoBinary, withArgs(mysqlArgs, "bulk_pipeline.lua", "prepare")...)
	if ok.code != 0 || !strings.Contains(ok.stdout, "rows: 3000\n") {
		t.Fatalf("exit %d, want 0 and 3000 rows:\n%s%s", ok.code, ok.stdout, ok.stderr)
	}
	if !strings.Contains(ok.stdout, "mismatched: 0\n") {
		t.Errorf("rows differ from what the script inserted:\n%s", ok.stdout)
	}
	m := regexp.MustCompile(`rows at 1200: (\d+)`).FindStringSubmatch(ok.stdout)
	if m == nil {
		t.Fatalf("no count at row 1200:\n%s", ok.stdout)
	}
	// Each 512 KiB INSERT holds about 570 of these rows: two are done.
	if n, _ := strconv.Atoi(m[1]); n < 1100 || n >= 1200 {
		t.Errorf("%d rows seen at row 1200, want the two INSERTs sent before it", n)
	}

	dup := runBinary(t, sbgoBinary, withArgs(mysqlArgs, "bulk_pipeline.lua", "--dup_at=10", "prepare")...)
	text := dup.stdout + dup.stderr
	if dup.code != 1 {
		t.Errorf("exit %d with a duplicate key in the first INSERT, want 1:\n%s", dup.code, text)
	}
	if !strings.Contains(text, "FATAL: mysql_drv_query() returned error 1062 (Duplicate entry '9' for key 'PRIMARY')") {
		t.Errorf("no FATAL line for the duplicate key:\n%s", text)
	}
	if strings.Contains(text, "rows at 1200") {
		t.Errorf("the command went on after the failed INSERT:\n%s", text)
	}
}

// TestExecuteRandomMatchesTheLuaLoop: stmt:_execute_random, which runs
// the statement loops of the bundled workloads in one call, draws the same
// ids and sets the same parameters as the Lua loop it stands for, with a
// fractional count, a range width and none.
func TestExecuteRandomMatchesTheLuaLoop(t *testing.T) {
	admin := needMySQL(t)
	t.Cleanup(func() { admin.Exec("DROP TABLE IF EXISTS sbgo_random_ids") })
	for _, width := range []string{"9", "-1"} {
		if r := runBinary(t, sbgoBinary, append(withArgs([]string{"random_ids.lua"}, mysqlArgs...), "prepare")...); r.code != 0 {
			t.Fatalf("prepare: exit %d\n%s", r.code, r.stdout)
		}
		for _, mode := range []string{"fast", "lua"} {
			args := withArgs([]string{"random_ids.lua", "--mode=" + mode, "--width=" + width, "--rand-seed=42", "--rand-type=uniform", "--threads=1", "--events=50"}, mysqlArgs...)
			r := runBinary(t, sbgoBinary, append(args, "run")...)
			if r.code != 0 {
				t.Fatalf("%s, width %s: exit %d\n%s", mode, width, r.code, r.stdout)
			}
			if got := reportNumber(t, r.stdout, "write"); got != 100 {
				t.Errorf("%s, width %s: %d writes counted, want 100 (2 per event)", mode, width, got)
			}
		}
		rows := map[string][][2]int64{}
		for _, mode := range []string{"fast", "lua"} {
			res, err := admin.Query("SELECT first, last FROM sbgo_random_ids WHERE mode = ? ORDER BY seq", mode)
			if err != nil {
				t.Fatal(err)
			}
			for res.Next() {
				var p [2]int64
				if err := res.Scan(&p[0], &p[1]); err != nil {
					t.Fatal(err)
				}
				rows[mode] = append(rows[mode], p)
			}
			res.Close()
		}
		if len(rows["fast"]) != 100 || !slices.Equal(rows["fast"], rows["lua"]) {
			t.Fatalf("width %s: fast and Lua rows differ:\nfast %v\nlua  %v", width, rows["fast"], rows["lua"])
		}
		distinct := map[int64]bool{}
		for _, p := range rows["fast"] {
			distinct[p[0]] = true
			want := p[0] + 9
			if width == "-1" {
				want = -1
			}
			if p[0] < 1 || p[0] > 1000 || p[1] != want {
				t.Fatalf("width %s: row %v out of shape", width, p)
			}
		}
		if len(distinct) < 80 {
			t.Errorf("width %s: only %d distinct ids in 100 draws", width, len(distinct))
		}
	}
}

// TestResultSetsOnEitherServer: rows of prepared statements and text
// queries read through the Lua API, and handles whose result the next
// statement closed, which must read nothing from then on (the drivers
// reuse a closed result's structures for the next one).
func TestResultSetsOnEitherServer(t *testing.T) {
	want := strings.Join([]string{
		"first\t10\tx",
		"first again\tend",
		"second\t30\tx",
		"second\t41\tnil",
		"second\tend",
		"second again\tend",
		"first after query\tend",
		"query\t7\tseven",
		"query\tend",
		"third\t50\tx",
		"third\t61\tnil",
		"third\tend",
		"query again\tend",
	}, "\n")
	for _, srv := range []struct {
		name string
		need func(*testing.T)
		args []string
	}{
		{"mysql", func(t *testing.T) { needMySQL(t) }, mysqlArgs},
		{"pgsql", func(t *testing.T) { needPgSQL(t) }, pgsqlArgs},
	} {
		t.Run(srv.name, func(t *testing.T) {
			srv.need(t)
			r := runBinary(t, sbgoBinary, append(withArgs([]string{"result_sets.lua", "--events=1"}, srv.args...), "run")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stdout)
			}
			var got []string
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.Contains(line, "\t") {
					got = append(got, line)
				}
			}
			if g := strings.Join(got, "\n"); g != want {
				t.Errorf("got\n%s\nwant\n%s", g, want)
			}
		})
	}
}
