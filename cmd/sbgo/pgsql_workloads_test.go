package main

// Tests of the workloads against the local PostgreSQL: every bundled
// workload through prepare, run and cleanup; sysbench's original scripts
// run unchanged; and, per workload, the same server-side counts as
// sysbench 1.0.20 produces for the same command. Each test works in
// databases of its own, so that neither other tests nor other clients
// of the server touch its tables or its statistics.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgwNames numbers the roles and databases of this test process; tests
// running in parallel take names too.
var pgwNames atomic.Int64

// pgwName is a new role or database name. It carries the process id, so
// that test processes sharing the server keep apart.
func pgwName() string {
	return fmt.Sprintf("sbgo_pgw_%d_%d", os.Getpid(), pgwNames.Add(1))
}

// pgwDB is a database of the test's own and the role that owns it and
// runs the workloads in it.
type pgwDB struct{ name, role string }

// pgwCreateDB creates an empty database and a login role that owns it,
// the only role (but superusers) allowed to connect, and drops both when
// the test ends. The role is the test's own, not sbtest, so that other
// tests terminating sbtest's sessions (pg_terminate_backend) leave these
// alone.
func pgwCreateDB(t *testing.T, admin *pgx.Conn) pgwDB {
	t.Helper()
	d := pgwDB{name: pgwName()}
	d.role = d.name
	pgwExec(t, admin,
		"DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)",
		"DROP ROLE IF EXISTS "+d.role,
		"CREATE ROLE "+d.role+" LOGIN PASSWORD 'sbtest'",
		"CREATE DATABASE "+d.name+" OWNER "+d.role,
		"REVOKE CONNECT ON DATABASE "+d.name+" FROM PUBLIC")
	t.Cleanup(func() {
		for _, s := range []string{"DROP DATABASE IF EXISTS " + d.name + " WITH (FORCE)", "DROP ROLE IF EXISTS " + d.role} {
			if _, err := admin.Exec(context.Background(), s); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
	})
	return d
}

// args are pgsqlArgs with d's role and database in place of sbtest's.
func (d pgwDB) args() []string {
	args := make([]string, 0, len(pgsqlArgs))
	for _, a := range pgsqlArgs {
		switch {
		case strings.HasPrefix(a, "--pgsql-db="):
			a = "--pgsql-db=" + d.name
		case strings.HasPrefix(a, "--pgsql-user="):
			a = "--pgsql-user=" + d.role
		}
		args = append(args, a)
	}
	return args
}

// pgwConnect opens a superuser session on database name; the caller
// closes it.
func pgwConnect(t *testing.T, name string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, "host=127.0.0.1 port=5432 user=postgres sslmode=disable dbname="+name)
	if err != nil {
		t.Fatalf("connecting to %s: %v", name, err)
	}
	return c
}

// pgwExec runs statements that return no rows.
func pgwExec(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// pgwInt runs a query that returns one integer.
func pgwInt(t *testing.T, c *pgx.Conn, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// pgwTableNames are sbtest1..sbtestN.
func pgwTableNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("sbtest%d", i+1)
	}
	return names
}

// pgwLeftTables counts the tables of database c, which is the test's
// own: any table is one the workload left.
func pgwLeftTables(t *testing.T, c *pgx.Conn) int64 {
	t.Helper()
	return pgwInt(t, c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
}

// pgwWorkload is a bundled workload with what its runs must count.
type pgwWorkload struct {
	script string
	tables int        // --tables (the select_random ones refuse more than one)
	rows   int        // rows per table after prepare
	one    wlPerEvent // per event with one thread on a full table
	// many is what is exact per event with 8 threads too: counts left
	// -1 are checked with atLeast. Events of writing transactions may
	// fail (deadlocks, duplicate keys between a DELETE and an INSERT of
	// one id) and be restarted, so their queries count more than once.
	many    wlPerEvent
	atLeast bool
	// The loads of other tools (pgbench_tpcb, mysqlslap) have tables and
	// options of their own: name tells the entries of one script apart,
	// options are given to every command, and tableRows are the rows of
	// each table after prepare.
	name      string
	options   []string
	tableRows map[string]int64
	check     func(t *testing.T, report string) // more checks of a run, or nil
}

// id names the entry's subtest and database.
func (w pgwWorkload) id() string {
	if w.name != "" {
		return w.name
	}
	return w.script
}

// Per-event counts on PostgreSQL: an UPDATE counts as a write whenever
// it matches a row, even one it leaves unchanged.
var pgwWorkloads = []pgwWorkload{
	{script: "oltp_read_write", tables: 2, rows: 1000, one: wlReadWrite, many: wlPerEvent{-1, -1, -1, -1}, atLeast: true},
	{script: "oltp_read_only", tables: 2, rows: 1000, one: wlReadOnly, many: wlReadOnly},
	{script: "oltp_write_only", tables: 2, rows: 1000, one: wlWriteOnly, many: wlPerEvent{-1, -1, -1, -1}, atLeast: true},
	{script: "oltp_point_select", tables: 2, rows: 1000, one: wlOneRead, many: wlOneRead},
	{script: "oltp_insert", tables: 2, rows: 1000, one: wlOneWrite, many: wlOneWrite},
	// A DELETE that finds no row counts as "other": write plus other is
	// one per event, whichever threads deleted what.
	{script: "oltp_delete", tables: 2, rows: 1000, one: wlOneDelete, many: wlOneDelete},
	{script: "oltp_update_index", tables: 2, rows: 1000, one: wlOneWrite, many: wlOneWrite},
	{script: "oltp_update_non_index", tables: 2, rows: 1000, one: wlOneWrite, many: wlOneWrite},
	{script: "select_random_points", tables: 1, rows: 1000, one: wlOneRead, many: wlOneRead},
	{script: "select_random_ranges", tables: 1, rows: 1000, one: wlOneRead, many: wlOneRead},
	// One table per thread, filled by multi-row INSERTs: only the
	// flushes are queries, so the writes are not counted per event.
	{script: "bulk_insert", one: wlPerEvent{0, -1, 0, -1}, many: wlPerEvent{0, -1, 0, -1}},
	// pgbench's transactions: nothing fails at READ COMMITTED, where
	// concurrent updates of a row wait for each other.
	{script: "pgbench_tpcb", name: "pgbench_tpcb", options: []string{"--scale=1"}, tableRows: pgwPgbenchRows,
		one: wlPgbenchTPCB, many: wlPgbenchTPCB},
	{script: "pgbench_tpcb", name: "pgbench_tpcb_simple_update", options: []string{"--scale=1", "--pgbench-mode=simple-update"},
		tableRows: pgwPgbenchRows, one: wlPgbenchSimpleUpdate, many: wlPgbenchSimpleUpdate},
	{script: "pgbench_tpcb", name: "pgbench_tpcb_select_only", options: []string{"--scale=1", "--pgbench-mode=select-only"},
		tableRows: pgwPgbenchRows, one: wlOneRead, many: wlOneRead},
	// mysqlslap's load, with no key, an auto-increment key and a UUID
	// key: msCheck counts its queries. (Not the whole-table UPDATEs of
	// update without a key: concurrent ones deadlock on PostgreSQL, and
	// each deadlock waits out deadlock_timeout.)
	{script: "mysqlslap", name: "mysqlslap_mixed", options: []string{"--number_int_cols=2", "--number_char_cols=2",
		"--write_number=11"}, tableRows: map[string]int64{"t1": 10},
		one: pgwUnchecked, many: pgwUnchecked, check: msCheck("mixed", false)},
	{script: "mysqlslap", name: "mysqlslap_key_autoincrement", options: []string{"--add_autoincrement=on", "--load_type=key",
		"--write_number=11"}, tableRows: map[string]int64{"t1": 10},
		one: pgwUnchecked, many: pgwUnchecked, check: msCheck("key", true)},
	{script: "mysqlslap", name: "mysqlslap_update_guid", options: []string{"--guid_primary=on", "--load_type=update",
		"--write_number=6"}, tableRows: map[string]int64{"t1": 5},
		one: pgwUnchecked, many: pgwUnchecked, check: msCheck("update", true)},
}

// pgwUnchecked leaves the per-event counts to the entry's check.
var pgwUnchecked = wlPerEvent{-1, -1, -1, -1}

// pgwPgbenchRows are the rows of pgbench's tables at scale 1.
var pgwPgbenchRows = map[string]int64{"pgbench_accounts": 100000, "pgbench_branches": 1, "pgbench_history": 0, "pgbench_tellers": 10}

// pgwTimedProgress matches an intermediate report of an 8-thread run.
var pgwTimedProgress = regexp.MustCompile(`(?m)^\[ 1s \] thds: 8 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/[0-9.]+/[0-9.]+\) lat \(ms,95%\): [0-9.]+ err/s: [0-9.]+ reconn/s: [0-9.]+$`)

// pgwModes are the combinations every workload runs with.
var pgwModes = []struct {
	name    string
	threads int
	psMode  string
}{
	{"1thread_ps_auto", 1, "auto"},
	{"1thread_ps_disable", 1, "disable"},
	{"8threads_ps_auto", 8, "auto"},
	{"8threads_ps_disable", 8, "disable"},
}

// TestPgSQLWorkloads runs every bundled workload through prepare, run and
// cleanup on PostgreSQL, with server-side and client-side prepared
// statements, with 1 and 8 threads (prepare and cleanup included). One
// thread runs 200 events and must count exactly the queries of each event
// (nothing fails on a full table); 8 threads run for 2 s and must print
// intermediate reports. Each workload has a database of its own, so the
// workloads run in parallel.
func TestPgSQLWorkloads(t *testing.T) {
	admin := needPgSQL(t)
	dbs := map[string]pgwDB{}
	for _, w := range pgwWorkloads {
		dbs[w.id()] = pgwCreateDB(t, admin)
	}
	for _, w := range pgwWorkloads {
		t.Run(w.id(), func(t *testing.T) {
			t.Parallel()
			wlCheckBundled(t, w.script)
			d := dbs[w.id()]
			c := pgwConnect(t, d.name)
			defer c.Close(context.Background())
			for _, m := range pgwModes {
				t.Run(m.name, func(t *testing.T) {
					pgwRunWorkload(t, c, d, w, m.threads, m.psMode)
				})
			}
		})
	}
}

// pgwRunWorkload runs one workload's prepare, run and cleanup in database
// d with the given threads and ps mode, and checks each command; c is a
// session on d.
func pgwRunWorkload(t *testing.T, c *pgx.Conn, d pgwDB, w pgwWorkload, threads int, psMode string) {
	common := append(d.args(), fmt.Sprintf("--threads=%d", threads), "--db-ps-mode="+psMode)
	options, tables := pgwTables(w, threads)
	cmd := func(command string, extra ...string) []string {
		return append(append(append([]string{w.script}, common...), options...), append(extra, command)...)
	}
	defer func() {
		if t.Failed() {
			wlRun(t, sbgoBinary, nil, cmd("cleanup")...)
		}
	}()

	r := wlMust(t, sbgoBinary, nil, cmd("prepare")...)
	if w.tableRows == nil {
		wlCheckPrepare(t, wlGroup{script: w.script, options: options, rows: w.rows}, tables, r.stdout)
	} else {
		wlCheckCreated(t, tables, r.stdout)
	}
	for _, tbl := range tables {
		if n, want := pgwInt(t, c, "SELECT count(*) FROM "+tbl), w.rowsOf(tbl); n != want {
			t.Errorf("%s has %d rows after prepare, want %d", tbl, n, want)
		}
	}

	if threads == 1 {
		r = wlMust(t, sbgoBinary, nil, cmd("run", "--events=200", "--report-interval=1", "--rand-seed=1")...)
		pgwCheckReport(t, w.one, 200, r.stdout)
	} else {
		r = wlMust(t, sbgoBinary, nil, cmd("run", append(withArgs(wlTimedIgnore, "--time=2", "--events=0"), "--report-interval=1")...)...)
		pgwCheckReport(t, w.many, 0, r.stdout)
		if w.atLeast {
			pgwCheckAtLeast(t, w.one, r.stdout)
		}
		if !pgwTimedProgress.MatchString(r.stdout) {
			t.Errorf("no intermediate report for 8 threads:\n%s", r.stdout)
		}
	}
	if w.check != nil {
		w.check(t, r.stdout)
	}
	if w.script == "bulk_insert" {
		// Every row of every event reached its table: the last flush
		// happens when the thread ends.
		var stored int64
		for _, tbl := range tables {
			stored += pgwInt(t, c, "SELECT count(*) FROM "+tbl)
		}
		// An event abandoned at the run's deadline skips thread_done
		// and its flush: the rows its worker had not sent are lost.
		events := reportNumber(t, r.stdout, "transactions")
		if stored != int64(events) && (wlAbandoned(r.stdout) == 0 || stored > int64(events)) {
			t.Errorf("bulk_insert stored %d rows for %d events", stored, events)
		}
		if writes := reportNumber(t, r.stdout, "write"); writes < threads {
			t.Errorf("%d writes, want at least one flush per thread:\n%s", writes, r.stdout)
		}
	}

	r = wlMust(t, sbgoBinary, nil, cmd("cleanup")...)
	for _, tbl := range tables {
		if !strings.Contains(r.stdout, "Dropping table '"+tbl+"'...\n") {
			t.Errorf("cleanup does not report %s:\n%s", tbl, r.stdout)
		}
	}
	if n := pgwLeftTables(t, c); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}

// pgwTables are the options every command of w gets and the tables its
// prepare makes.
func pgwTables(w pgwWorkload, threads int) (options, tables []string) {
	switch {
	case w.tableRows != nil:
		for tbl := range w.tableRows {
			tables = append(tables, tbl)
		}
		sort.Strings(tables)
		return w.options, tables
	case w.script == "bulk_insert": // one table per thread
		return nil, pgwTableNames(threads)
	default:
		return []string{fmt.Sprintf("--tables=%d", w.tables), fmt.Sprintf("--table-size=%d", w.rows)}, pgwTableNames(w.tables)
	}
}

// rowsOf is how many rows table tbl holds after prepare.
func (w pgwWorkload) rowsOf(tbl string) int64 {
	if w.tableRows != nil {
		return w.tableRows[tbl]
	}
	return int64(w.rows)
}

// pgwCheckReport checks the final report of a run: the number of events
// (events, or any but zero for a timed run when events is 0) and the
// queries counted per event, and that no error was ignored unless the
// workload's events may fail.
func pgwCheckReport(t *testing.T, per wlPerEvent, events int, report string) {
	t.Helper()
	n := reportNumber(t, report, "transactions")
	switch {
	case events == 0 && n == 0:
		t.Fatalf("no events in a timed run:\n%s", report)
	case events == 0:
		events = n
	case n != events:
		t.Errorf("%d events, want %d:\n%s", n, events, report)
	}
	abandoned := wlAbandoned(report)
	for _, c := range []struct {
		label string
		per   int
	}{{"read", per.read}, {"write", per.write}, {"other", per.other}, {"total", per.total}} {
		if c.per < 0 {
			continue
		}
		if got := reportNumber(t, report, c.label); !wlPerEventOK(got, c.per, events, abandoned) {
			t.Errorf("%s: %d queries for %d events (%d abandoned), want %d per event:\n%s", c.label, got, events, abandoned, c.per, report)
		}
	}
	if n := reportNumber(t, report, "ignored errors"); n != abandoned && per.total >= 0 {
		t.Errorf("%d ignored errors, %d events abandoned:\n%s", n, abandoned, report)
	}
}

// pgwCheckAtLeast checks that a run of concurrent writers counted at
// least one event's queries per event: failed events are restarted, and
// their queries count again.
func pgwCheckAtLeast(t *testing.T, per wlPerEvent, report string) {
	t.Helper()
	events := reportNumber(t, report, "transactions")
	if events == 0 {
		t.Fatalf("no events in a timed run:\n%s", report)
	}
	read, write, other := reportNumber(t, report, "read"), reportNumber(t, report, "write"), reportNumber(t, report, "other")
	// A DELETE or UPDATE that finds no row counts as "other", not "write".
	if read < per.read*events || write+other < (per.write+per.other)*events {
		t.Errorf("r/w/o %d/%d/%d for %d events, want at least %d/%d per event:\n%s",
			read, write, other, events, per.read, per.write+per.other, report)
	}
}

// TestPgSQLOriginalScripts runs each of sysbench 1.0.20's own scripts, by
// path and unchanged, through prepare, run and cleanup under sbgo on
// PostgreSQL, with 1 and 8 threads and both ps modes: with sysbench's
// oltp_common (found through LUA_PATH, as sysbench finds it), and, for
// two of the combinations, with the bundled one that require finds when
// only the script is copied. One thread must count the same queries per
// event as the bundled workloads do.
func TestPgSQLOriginalScripts(t *testing.T) {
	wlNeedSysbench(t)
	admin := needPgSQL(t)
	libraries := []struct {
		name      string
		env       []string
		reconnect bool  // the library declares --reconnect (only ours does)
		modes     []int // indexes into pgwModes
	}{
		{"sysbench_common", []string{"LUA_PATH=" + wlOriginalDir + "/?.lua;;"}, false, []int{0, 1, 2, 3}},
		{"bundled_common", nil, true, []int{0, 3}},
	}
	per := map[string]pgwWorkload{}
	for _, w := range pgwWorkloads {
		per[w.script] = w
	}
	paths := wlOriginals(t)
	dbs := map[string]pgwDB{}
	for _, path := range paths {
		dbs[path] = pgwCreateDB(t, admin)
	}
	for _, path := range paths {
		script := strings.TrimSuffix(filepath.Base(path), ".lua")
		w, ok := per[script]
		if !ok {
			t.Fatalf("no expectations for %s", path)
		}
		t.Run(script, func(t *testing.T) {
			t.Parallel()
			d := dbs[path]
			c := pgwConnect(t, d.name)
			defer c.Close(context.Background())
			for _, lib := range libraries {
				if script != "bulk_insert" { // it uses no library
					help := wlMust(t, sbgoBinary, lib.env, path, "help")
					if got := strings.Contains(help.stdout, "--reconnect=N"); got != lib.reconnect {
						t.Fatalf("%s: the script did not load the intended oltp_common (--reconnect listed: %v):\n%s", lib.name, got, help.stdout)
					}
				}
				for _, i := range lib.modes {
					m := pgwModes[i]
					t.Run(lib.name+"/"+m.name, func(t *testing.T) {
						pgwRunOriginal(t, c, d, path, lib.env, w, m.threads, m.psMode)
					})
				}
			}
		})
	}
}

// pgwRunOriginal runs an original script's prepare, 100 events and
// cleanup under sbgo in database d; c is a session on d.
func pgwRunOriginal(t *testing.T, c *pgx.Conn, d pgwDB, path string, env []string, w pgwWorkload, threads int, psMode string) {
	opts := append([]string{path}, d.args()...)
	opts = append(opts, fmt.Sprintf("--threads=%d", threads), "--db-ps-mode="+psMode)
	tables := pgwTableNames(threads)
	if w.script != "bulk_insert" {
		opts = append(opts, fmt.Sprintf("--tables=%d", w.tables), "--table-size=1000")
		tables = pgwTableNames(w.tables)
	}
	defer func() {
		if t.Failed() {
			wlRun(t, sbgoBinary, env, append(opts, "cleanup")...)
		}
	}()

	wlMust(t, sbgoBinary, env, append(opts, "prepare")...)
	for _, tbl := range tables {
		if n := pgwInt(t, c, "SELECT count(*) FROM "+tbl); n != int64(w.rows) {
			t.Errorf("%s has %d rows after prepare, want %d", tbl, n, w.rows)
		}
	}
	r := wlMust(t, sbgoBinary, env, append(opts, "--events=100", "run")...)
	want := w.many
	if threads == 1 {
		want = w.one
	}
	pgwCheckReport(t, want, 100, r.stdout)
	if w.atLeast && threads > 1 {
		pgwCheckAtLeast(t, w.one, r.stdout)
	}
	r = wlMust(t, sbgoBinary, env, append(opts, "cleanup")...)
	if !strings.Contains(r.stdout, "Dropping table 'sbtest1'...\n") {
		t.Errorf("cleanup output:\n%s", r.stdout)
	}
	if n := pgwLeftTables(t, c); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}

// pgwSameCases are the commands whose server-side counts must be the same
// under both tools.
var pgwSameCases = []struct {
	script string
	args   []string
	// skip names the counters that depend on which ids a run draws.
	skip []string
	// versionChecks is how often sysbench's driver opens a session of its
	// own, only to read the server's version, in the run: once per
	// bulk_insert_init. Each such session commits the one transaction
	// of its start-up. sbgo does not open them; they are taken off
	// sysbench's sessions and commits before comparing.
	versionChecks int64
}{
	{script: "oltp_read_write", args: []string{"--tables=2", "--table-size=1000"}},
	{script: "oltp_read_write", args: []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	// Every statement commits on its own.
	{script: "oltp_read_write", args: []string{"--tables=2", "--table-size=1000", "--skip_trx=on", "--range_selects=off"}},
	{script: "oltp_read_only", args: []string{"--tables=2", "--table-size=1000"}},
	// Uniform ids reach the tables' ends, where ranges run past the last
	// row: they start as many scans all the same.
	{script: "oltp_read_only", args: []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable", "--rand-type=uniform"}},
	{script: "oltp_write_only", args: []string{"--tables=2", "--table-size=1000"}},
	{script: "oltp_point_select", args: []string{"--tables=2", "--table-size=1000"}},
	{script: "oltp_point_select", args: []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	{script: "oltp_insert", args: []string{"--tables=2", "--table-size=1000"}},
	// Empty tables, ids drawn by the client.
	{script: "oltp_insert", args: []string{"--tables=2", "--table-size=1000", "--auto_inc=off"}},
	// A DELETE deletes nothing when its id was drawn before.
	{script: "oltp_delete", args: []string{"--tables=2", "--table-size=1000"}, skip: []string{"deleted"}},
	{script: "oltp_update_index", args: []string{"--tables=2", "--table-size=1000"}},
	{script: "oltp_update_non_index", args: []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	// The generic plan of k IN (?, ...) scans the index once per
	// distinct value: as many as distinct values were drawn.
	{script: "select_random_points", args: []string{"--tables=1", "--table-size=1000"}, skip: []string{"idx_scans"}},
	// Literal values: the planner chooses sequential scans.
	{script: "select_random_points", args: []string{"--tables=1", "--table-size=1000", "--db-ps-mode=disable"}},
	{script: "select_random_ranges", args: []string{"--tables=1", "--table-size=1000"}},
	{script: "select_random_ranges", args: []string{"--tables=1", "--table-size=1000", "--db-ps-mode=disable"}},
	{script: "bulk_insert", args: []string{"--threads=1"}, versionChecks: 1},
}

// pgwDBCounters are a database's counters in pg_stat_database.
type pgwDBCounters struct {
	commits, rollbacks int64 // xact_commit, xact_rollback
	sessions           int64 // sessions established
}

// pgwTableCounters are the sums over the sbtest tables of their counters
// in pg_stat_user_tables, how often autovacuum visited any table of the
// database, and whether the sbtest tables have statistics.
type pgwTableCounters struct {
	inserted, updated, deleted int64 // n_tup_ins, n_tup_upd, n_tup_del
	seqScans, idxScans         int64 // seq_scan, idx_scan
	maintenance                int64 // autovacuum_count + autoanalyze_count
	analyzed                   int64 // columns of the sbtest tables with statistics
}

// pgwSessions counts the sessions on database name but the caller's.
func pgwSessions(t *testing.T, admin *pgx.Conn, name string) int64 {
	t.Helper()
	return pgwInt(t, admin, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name)
}

// pgwWaitIdle waits until no session is left on database name. A backend
// hands its statistics over as it exits, before it leaves
// pg_stat_activity: once its database has no session, the statistics
// hold all their statements.
func pgwWaitIdle(t *testing.T, admin *pgx.Conn, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pgwSessions(t, admin, name) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sessions on %s still open 10 s after their client exited", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgwReadDB reads database name's counters, again until two readings in
// a row agree: statistics reach the shared counters asynchronously.
func pgwReadDB(t *testing.T, admin *pgx.Conn, name string) pgwDBCounters {
	t.Helper()
	read := func() pgwDBCounters {
		var c pgwDBCounters
		pgwExec(t, admin, "SELECT pg_stat_clear_snapshot()")
		err := admin.QueryRow(context.Background(),
			"SELECT xact_commit, xact_rollback, sessions FROM pg_stat_database WHERE datname = $1", name).
			Scan(&c.commits, &c.rollbacks, &c.sessions)
		if err != nil {
			t.Fatalf("reading pg_stat_database: %v", err)
		}
		return c
	}
	last := read()
	for i := 0; i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
		c := read()
		if c == last {
			return c
		}
		last = c
	}
	t.Fatalf("the counters of %s kept changing for 5 s", name)
	return last
}

// pgwReadTables reads the table counters of database name from a session
// of its own, and waits until that session has ended, so that what it
// counts in the database is over before a measurement begins.
func pgwReadTables(t *testing.T, admin *pgx.Conn, name string) pgwTableCounters {
	t.Helper()
	c := pgwConnect(t, name)
	var tc pgwTableCounters
	err := c.QueryRow(context.Background(), `SELECT
		coalesce(sum(n_tup_ins), 0), coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_del), 0),
		coalesce(sum(seq_scan), 0), coalesce(sum(idx_scan), 0)
		FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'`).
		Scan(&tc.inserted, &tc.updated, &tc.deleted, &tc.seqScans, &tc.idxScans)
	if err != nil {
		t.Fatalf("reading pg_stat_user_tables: %v", err)
	}
	tc.maintenance = pgwInt(t, c, "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_all_tables")
	tc.analyzed = pgwInt(t, c, "SELECT count(*) FROM pg_stats WHERE schemaname = 'public'")
	c.Close(context.Background())
	pgwWaitIdle(t, admin, name)
	return tc
}

// pgwSettle turns autovacuum off for the prepared tables. An autoanalyze
// between or during the two measurements would change plans (an index
// scan or a sequential scan) and add transactions. The tables are left
// without statistics, as prepare leaves them, on purpose: with a
// histogram the planner reads the index to find a column's actual
// minimum or maximum when a range's bound falls in the histogram's
// first or last bin, which counts as an index scan and depends on the
// ids drawn. (The test checks that no statistics appeared since.)
func pgwSettle(t *testing.T, admin *pgx.Conn, name string) {
	t.Helper()
	c := pgwConnect(t, name)
	rows, err := c.Query(context.Background(), "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range tables {
		pgwExec(t, c, "ALTER TABLE "+tbl+" SET (autovacuum_enabled = off)")
	}
	c.Close(context.Background())
	pgwWaitIdle(t, admin, name)
}

// pgwMeasurement is what the server counted during one run.
type pgwMeasurement struct {
	db     pgwDBCounters
	tables pgwTableCounters
}

// pgwMeasure runs bin with args (a run command) in database name, which
// nothing else uses, and returns the counters' deltas.
func pgwMeasure(t *testing.T, admin *pgx.Conn, name, bin string, args []string) pgwMeasurement {
	t.Helper()
	t0 := pgwReadTables(t, admin, name)
	d0 := pgwReadDB(t, admin, name)
	wlMust(t, bin, nil, args...)
	pgwWaitIdle(t, admin, name)
	d1 := pgwReadDB(t, admin, name)
	t1 := pgwReadTables(t, admin, name)
	return pgwMeasurement{
		db: pgwDBCounters{d1.commits - d0.commits, d1.rollbacks - d0.rollbacks, d1.sessions - d0.sessions},
		tables: pgwTableCounters{t1.inserted - t0.inserted, t1.updated - t0.updated, t1.deleted - t0.deleted,
			t1.seqScans - t0.seqScans, t1.idxScans - t0.idxScans, t1.maintenance - t0.maintenance, t1.analyzed},
	}
}

// fields names the compared counters, in a fixed order.
func (m pgwMeasurement) fields() []struct {
	name  string
	value int64
} {
	return []struct {
		name  string
		value int64
	}{
		{"commits", m.db.commits}, {"rollbacks", m.db.rollbacks}, {"sessions", m.db.sessions},
		{"inserted", m.tables.inserted}, {"updated", m.tables.updated}, {"deleted", m.tables.deleted},
		{"seq_scans", m.tables.seqScans}, {"idx_scans", m.tables.idxScans},
	}
}

func (m pgwMeasurement) String() string {
	var parts []string
	for _, f := range m.fields() {
		parts = append(parts, fmt.Sprintf("%s=%d", f.name, f.value))
	}
	return strings.Join(parts, " ")
}

// pgwSameEvents is the length of each measured run.
const pgwSameEvents = 100

// TestPgSQLSameCountsAsSysbench runs each workload with one thread for
// pgwSameEvents events under sysbench 1.0.20 with its original script
// and under sbgo with the bundled one, each on a freshly prepared dataset
// (prepared by sysbench, so identical), and checks that the server
// counted the same for both runs:
//
//   - pg_stat_database: transactions committed and rolled back (each
//     session's start-up, each BEGIN..COMMIT, and each statement or
//     prepare sent outside a transaction), sessions opened;
//   - pg_stat_user_tables, summed over the sbtest tables: rows inserted,
//     updated and deleted; sequential and index scans started.
//
// The tools draw different random ids, so only counts that do not depend
// on the ids are compared. They do not, on a table that stays full: one
// thread deletes a row only to insert it again in the same transaction,
// so every UPDATE and DELETE by id finds exactly one row, every INSERT
// succeeds and nothing rolls back; and a statement starts as many scans
// whatever its ids, as its plan does not depend on them (autovacuum is
// off for the tables, which have no statistics: see pgwSettle) and a
// scan counts once whatever it returns. The exception is oltp_delete,
// whose later DELETEs may draw an id already deleted: its rows deleted
// are not compared.
//
// Statistics reach the shared counters asynchronously: a backend hands
// its counts over as it exits, so each reading waits until no session is
// left on the database and two readings agree. The database is this
// test's own, so only the tool under test and the test's own readings,
// made outside the measured window, use it. A window in which autovacuum
// visited the database is measured again.
func TestPgSQLSameCountsAsSysbench(t *testing.T) {
	wlNeedSysbench(t)
	admin := needPgSQL(t)
	d := pgwCreateDB(t, admin)
	name, conn := d.name, d.args()
	for i, tc := range pgwSameCases {
		t.Run(tc.script+"/"+strings.Join(tc.args, ","), func(t *testing.T) {
			wlCheckBundled(t, tc.script)
			skip := map[string]bool{}
			for _, s := range tc.skip {
				skip[s] = true
			}
			base := append(append([]string{tc.script}, conn...), tc.args...)
			run := append(append([]string{}, base...), "--threads=1", fmt.Sprintf("--events=%d", pgwSameEvents),
				fmt.Sprintf("--rand-seed=%d", i+1), "run")
			const attempts = 3
			for attempt := 1; ; attempt++ {
				got := map[string]pgwMeasurement{}
				for _, bin := range []string{wlSysbench, sbgoBinary} {
					wlRun(t, wlSysbench, nil, append(base, "cleanup")...)
					wlMust(t, wlSysbench, nil, append(base, "prepare")...)
					pgwSettle(t, admin, name)
					got[bin] = pgwMeasure(t, admin, name, bin, run)
				}
				want, have := got[wlSysbench], got[sbgoBinary]
				if disturbed := want.tables.maintenance + have.tables.maintenance + want.tables.analyzed + have.tables.analyzed; disturbed != 0 {
					if attempt == attempts {
						t.Fatalf("autovacuum visited the database in each of %d attempts", attempts)
					}
					t.Logf("attempt %d: autovacuum visited the database; measuring again", attempt)
					continue
				}
				want.db.sessions -= tc.versionChecks
				want.db.commits -= tc.versionChecks
				t.Logf("sysbench: %v\nsbgo:     %v", want, have)
				if want.db.commits+want.tables.inserted < pgwSameEvents {
					t.Errorf("sysbench's run of %d events left hardly a trace: %v", pgwSameEvents, want)
				}
				wf, hf := want.fields(), have.fields()
				for j := range wf {
					if !skip[wf[j].name] && wf[j].value != hf[j].value {
						t.Errorf("%s: sysbench %d, sbgo %d", wf[j].name, wf[j].value, hf[j].value)
					}
				}
				return
			}
		})
	}
}
