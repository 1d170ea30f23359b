package main

// Tests of the bundled workloads (package scripts) against the local
// MariaDB: every workload through prepare, run and cleanup; sysbench's
// original scripts run unchanged; and, statement for statement, the same
// SQL as sysbench 1.0.20 sends for the same command.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	wlSysbench    = "/usr/bin/sysbench"
	wlOriginalDir = "/usr/share/sysbench" // sysbench 1.0.20's own scripts
)

// wlSbtestArgs connect as the sbtest user that .ci/run creates.
var wlSbtestArgs = []string{"--mysql-host=127.0.0.1", "--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest"}

// wlTimedIgnore is, for a timed run of several threads whose point is
// the workload rather than the end of the run, each driver's default
// ignore list plus its lost-connection error. A run ends at its deadline
// (engine.StopGrace after --time), and an event still waiting then (for
// a lock, on a loaded machine; PostgreSQL detects a deadlock only after
// a second) is abandoned as that error: ignored, it does not fail the
// run, and the checks allow for it (wlAbandoned).
var wlTimedIgnore = []string{"--mysql-ignore-errors=1213,1020,1205,2013", "--pgsql-ignore-errors=40P01,23505,40001,08006"}

// wlAbandonedLine is the warning of a run whose deadline abandoned events.
var wlAbandonedLine = regexp.MustCompile(`WARNING: (\d+) events? in flight abandoned`)

// wlAbandoned is how many events the run's deadline abandoned: they
// count as ignored errors, and the queries they sent count although the
// events do not.
func wlAbandoned(report string) int {
	m := wlAbandonedLine.FindStringSubmatch(report)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// wlPerEventOK reports whether n queries are per for each of events
// events, allowing up to per more for each of abandoned events.
func wlPerEventOK(n, per, events, abandoned int) bool {
	return n >= per*events && n <= per*(events+abandoned)
}

// wlEnviron is the process environment without LUA_PATH and LUA_CPATH,
// which would change which scripts either tool finds.
func wlEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LUA_PATH=") && !strings.HasPrefix(kv, "LUA_CPATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// wlRun runs bin in an empty directory, so that no file there shadows a
// bundled script, with env added to wlEnviron(). A run that hangs is
// killed after two minutes.
func wlRun(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(wlEnviron(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not finish in time:\n%s", bin, strings.Join(args, " "), out.String())
	}
	return result{out.String(), errb.String(), code}
}

// wlMust is wlRun that fails the test unless the command exits 0.
func wlMust(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	r := wlRun(t, bin, env, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// wlNeedSysbench makes sure sysbench 1.0.20 and its scripts are installed:
// without them the test fails in CI and is skipped elsewhere.
func wlNeedSysbench(t *testing.T) {
	t.Helper()
	for _, p := range []string{wlSysbench, filepath.Join(wlOriginalDir, "oltp_common.lua")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("sysbench 1.0.20 is needed (apt-get install sysbench): %v", err)
			}
			t.Skipf("sysbench 1.0.20 is not installed: %v", err)
		}
	}
}

// wlReproducible caches the outcome of wlNeedReproducibleSysbench's
// check, which runs sysbench twice.
var wlReproducible struct {
	once sync.Once
	err  error
}

// wlNeedReproducibleSysbench makes sure that sysbench draws the same
// random numbers for the same --rand-seed, which the tests that compare
// its generated rows with sbgo's need. Debian's sysbench does not when
// it is linked with OpenResty's LuaJIT branch (libluajit2-5.1-2, which apt
// picks on a machine that has no LuaJIT yet); with the original LuaJIT
// 2.1.0-beta3 (libluajit-5.1-2, from the luajit package) it does. The
// failure names that cause instead of leaving it to a row diff.
func wlNeedReproducibleSysbench(t *testing.T) {
	t.Helper()
	wlNeedSysbench(t)
	wlReproducible.once.Do(func() {
		script, err := filepath.Abs("../../testdata/rand_reproducible.lua")
		if err != nil {
			wlReproducible.err = err
			return
		}
		var lines [2]string
		for i := range lines {
			out, err := exec.Command(wlSysbench, script, "--rand-seed=7", "prepare").CombinedOutput()
			if err != nil {
				wlReproducible.err = fmt.Errorf("sysbench %s --rand-seed=7 prepare: %v\n%s", script, err, out)
				return
			}
			lines[i] = lastLine(string(out))
		}
		if lines[0] != lines[1] {
			wlReproducible.err = fmt.Errorf("the reference sysbench is not reproducible: two runs with --rand-seed=7 printed %q and %q; "+
				"its LuaJIT is probably OpenResty's branch (%s), with which sysbench ignores the seed: "+
				"install the original LuaJIT (apt-get install luajit, which brings libluajit-5.1-2)", lines[0], lines[1], wlSysbenchLuaJIT())
		}
	})
	if wlReproducible.err != nil {
		t.Fatal(wlReproducible.err)
	}
}

// wlSysbenchLuaJIT names the LuaJIT library sysbench is linked with and
// the package it comes from, as far as ldd and dpkg tell.
func wlSysbenchLuaJIT() string {
	out, err := exec.Command("ldd", wlSysbench).Output()
	if err != nil {
		return "ldd failed: " + err.Error()
	}
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || !strings.HasPrefix(fields[0], "libluajit") {
			continue
		}
		lib, err := filepath.EvalSymlinks(fields[2])
		if err != nil {
			return fields[2]
		}
		pkg, err := exec.Command("dpkg", "-S", lib).Output()
		if err != nil {
			return lib
		}
		return strings.TrimSpace(string(pkg))
	}
	return "no libluajit in ldd's output"
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// wlQueryInt runs a query that returns one integer.
func wlQueryInt(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// wlExec runs statements that return no rows.
func wlExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// wlDropTables drops sbtest1..sbtest4 of schema, whatever left them.
func wlDropTables(t *testing.T, db *sql.DB, schema string) {
	t.Helper()
	for i := 1; i <= 4; i++ {
		wlExec(t, db, fmt.Sprintf("DROP TABLE IF EXISTS %s.sbtest%d", schema, i))
	}
}

// wlCheckBundled makes sure that the workload sbgo runs is the bundled
// one: only it declares --reconnect (sysbench 1.0.20's does not). The
// loads of other tools have no sysbench namesake to be confused with.
func wlCheckBundled(t *testing.T, script string) {
	t.Helper()
	if script == "bulk_insert" || wlClassic[script] {
		return // declares no options at all, or has no namesake
	}
	r := wlMust(t, sbgoBinary, nil, script, "help")
	if !strings.Contains(r.stdout, "--reconnect=N") {
		t.Fatalf("sbgo %s help does not show the bundled script's options:\n%s", script, r.stdout)
	}
}

// wlBundled are the bundled scripts, oltp_common included.
var wlBundled = []string{"oltp_common", "oltp_read_write", "oltp_read_only", "oltp_write_only",
	"oltp_point_select", "oltp_insert", "oltp_delete", "oltp_update_index", "oltp_update_non_index",
	"select_random_points", "select_random_ranges", "bulk_insert"}

// wlClassic are the bundled loads of other tools than sysbench.
var wlClassic = map[string]bool{"pgbench_tpcb": true, "mysqlslap": true}

// wlLaterOptions are the options sbgo's workloads take from sysbench's
// later releases, as those releases' help shows them.
var wlLaterOptions = regexp.MustCompile(`(?m)^  --(create_table_options=STRING Extra CREATE TABLE options \[\]|` +
	`reconnect=N                 Reconnect after every N events\. The default \(0\) is to not reconnect \[0\])\n`)

// TestWorkloadHelp: each bundled script's help is sysbench 1.0.20's,
// option for option (names, descriptions, types, defaults, order), plus
// the two options of later releases. The golden files hold what sysbench
// 1.0.20 printed for its own scripts:
//
//	go test ./cmd/sbgo -run TestWorkloadHelp -update
func TestWorkloadHelp(t *testing.T) {
	for _, name := range wlBundled {
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("testdata", "workloads", name+"_help.golden")
			format := func(r result) string {
				return fmt.Sprintf("# exit %d\n--- stdout\n%s--- stderr\n%s", r.code, maskBanner(r.stdout), r.stderr)
			}
			if *update {
				wlNeedSysbench(t)
				if err := os.WriteFile(golden, []byte(format(wlRun(t, wlSysbench, nil, name, "help"))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden file (run with -update where sysbench is installed): %v", err)
			}
			r := wlRun(t, sbgoBinary, nil, name, "help")
			wantLater := 2
			if name == "bulk_insert" {
				wantLater = 0 // it declares no options
			}
			if later := len(wlLaterOptions.FindAllString(r.stdout, -1)); later != wantLater {
				t.Errorf("help shows %d later options, want %d:\n%s", later, wantLater, r.stdout)
			}
			r.stdout = wlLaterOptions.ReplaceAllString(r.stdout, "")
			if got := format(r); got != string(want) {
				t.Errorf("help differs from sysbench 1.0.20's:\n%s", diff(string(want), got))
			}
		})
	}
	// Without a command the library refuses to load, naming the commands.
	r := wlRun(t, sbgoBinary, nil, "oltp_read_write")
	if want := "Command is required. Supported commands: prepare, prewarm, run, cleanup, help\n"; r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("no command: exit %d, want 1 and %q:\n%s", r.code, want, r.stdout)
	}
}

// wlPerEvent is what the final report must count per event, with one
// thread: -1 leaves a number unchecked.
type wlPerEvent struct{ read, write, other, total int }

// wlRunCase is one run command of the matrix.
type wlRunCase struct {
	name  string
	args  []string
	want  wlPerEvent
	check func(t *testing.T, report string) // more checks, or nil
}

// wlGroup is one workload: prepared once with its options, run with
// each case, then cleaned up.
type wlGroup struct {
	script  string
	options []string // for every command: tables, table size, schema options
	prepare []string // for prepare only
	rows    int      // rows per table after prepare
	check   func(t *testing.T, db *sql.DB)
	runs    []wlRunCase
	// tableRows are the tables of the loads of other tools and their rows
	// after prepare; nil for sysbench's, which make sbtest1, sbtest2.
	tableRows map[string]int
}

// Per-event counts of the workloads. The writes assume that each UPDATE
// and DELETE finds its row, which holds for one thread on a full table.
var (
	wlReadWrite     = wlPerEvent{14, 4, 2, 20}
	wlReadWriteNoTx = wlPerEvent{10, 4, 0, 14} // --skip_trx --range_selects=off
	wlReadOnly      = wlPerEvent{14, 0, 2, 16}
	wlReadOnlyBare  = wlPerEvent{10, 0, 0, 10} // --skip_trx --range_selects=off
	wlWriteOnly     = wlPerEvent{0, 4, 2, 6}
	wlWriteOnlyNoTx = wlPerEvent{0, 4, 0, 4}
	wlOneRead       = wlPerEvent{1, 0, 0, 1}
	wlOneWrite      = wlPerEvent{0, 1, 0, 1}
	// A DELETE that finds no row counts as "other".
	wlOneDelete = wlPerEvent{0, -1, -1, 1}
	// pgbench's transactions: BEGIN, UPDATE account, SELECT it, UPDATE
	// teller, UPDATE branch, INSERT history, COMMIT; simple-update
	// without the teller and branch.
	wlPgbenchTPCB         = wlPerEvent{1, 4, 2, 7}
	wlPgbenchSimpleUpdate = wlPerEvent{1, 2, 2, 5}
	// On MySQL an UPDATE whose delta is 0 changes nothing and counts as
	// "other": only writes and others together are exact.
	wlPgbenchTPCBMySQL         = wlPerEvent{1, -1, -1, 7}
	wlPgbenchSimpleUpdateMySQL = wlPerEvent{1, -1, -1, 5}
)

// wlWritesAndOthers checks that writes and others add up to n per event.
func wlWritesAndOthers(n int) func(t *testing.T, report string) {
	return func(t *testing.T, report string) {
		t.Helper()
		events := reportNumber(t, report, "transactions")
		if got := reportNumber(t, report, "write") + reportNumber(t, report, "other"); !wlPerEventOK(got, n, events, wlAbandoned(report)) {
			t.Errorf("%d writes and others for %d events, want %d per event:\n%s", got, events, n, report)
		}
	}
}

// wlCheckCreated checks that prepare reported creating each table.
func wlCheckCreated(t *testing.T, tables []string, out string) {
	t.Helper()
	for _, tbl := range tables {
		if !strings.Contains(out, "Creating table '"+tbl+"'...\n") {
			t.Errorf("prepare does not report creating %s:\n%s", tbl, out)
		}
	}
}

// wlIntermediate matches an intermediate report line of a 4-thread run.
var wlIntermediate = regexp.MustCompile(`(?m)^\[ 1s \] thds: 4 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/[0-9.]+/[0-9.]+\) lat \(ms,95%\): [0-9.]+ err/s: [0-9.]+ reconn/s: [0-9.]+$`)

func wlHasIntermediate(t *testing.T, report string) {
	t.Helper()
	if !wlIntermediate.MatchString(report) {
		t.Errorf("no intermediate report line for 4 threads:\n%s", report)
	}
}

// wlMatrix: every bundled workload, with the options that change the SQL
// (prepared statements or not, transactions, range selects, ids given by
// the client, secondary key) and each random distribution.
var wlMatrix = []wlGroup{
	{
		script:  "oltp_read_write",
		options: []string{"--tables=2", "--table-size=1000"},
		prepare: []string{"--threads=2"}, // the parallel prepare command
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlReadWrite},
			{name: "ps_disable", args: []string{"--db-ps-mode=disable"}, want: wlReadWrite},
			{name: "no_trx_no_ranges_uniform", args: []string{"--skip_trx=on", "--range_selects=off", "--rand-type=uniform"}, want: wlReadWriteNoTx},
			{name: "pareto", args: []string{"--rand-type=pareto"}, want: wlReadWrite},
			// --reconnect=50 reconnects after events 50, 100, 150 and 200.
			{name: "reconnect_zipfian", args: []string{"--reconnect=50", "--rand-type=zipfian"}, want: wlReadWrite,
				check: func(t *testing.T, report string) {
					if n := reportNumber(t, report, "reconnects"); n != 4 {
						t.Errorf("%d reconnects, want 4:\n%s", n, report)
					}
				}},
			{name: "threads_time", args: withArgs(wlTimedIgnore, "--threads=4", "--time=2", "--events=0"), want: wlPerEvent{-1, -1, -1, -1}, check: wlHasIntermediate},
		},
	},
	{
		script: "oltp_read_only",
		// Ids written by the client, and the id key not primary.
		options: []string{"--tables=2", "--table-size=1000", "--auto_inc=off", "--secondary=on", "--create_secondary=off"},
		rows:    1000,
		check: func(t *testing.T, db *sql.DB) {
			keys := wlQueryInt(t, db, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='sbtest1' AND index_name='xid'")
			others := wlQueryInt(t, db, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='sbtest1' AND index_name<>'xid'")
			if keys != 1 || others != 0 {
				t.Errorf("sbtest1 has %d xid and %d other index columns, want 1 and 0", keys, others)
			}
			// The client numbered the rows 1..1000.
			if ok := wlQueryInt(t, db, "SELECT COUNT(DISTINCT id) = 1000 AND MIN(id) = 1 AND MAX(id) = 1000 FROM sbtest.sbtest2"); ok != 1 {
				t.Error("sbtest2's ids are not 1..1000")
			}
		},
		runs: []wlRunCase{
			{name: "default", want: wlReadOnly},
			{name: "ps_disable_uniform", args: []string{"--db-ps-mode=disable", "--rand-type=uniform"}, want: wlReadOnly},
			{name: "no_trx_no_ranges", args: []string{"--skip_trx=on", "--range_selects=off"}, want: wlReadOnlyBare},
		},
	},
	{
		script:  "oltp_write_only",
		options: []string{"--tables=2", "--table-size=1000"},
		prepare: []string{"--create_table_options=COMMENT='sbgo workload'"},
		rows:    1000,
		check: func(t *testing.T, db *sql.DB) {
			n := wlQueryInt(t, db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name IN ('sbtest1','sbtest2') AND table_comment='sbgo workload'")
			if n != 2 {
				t.Errorf("%d tables carry the --create_table_options comment, want 2", n)
			}
		},
		runs: []wlRunCase{
			{name: "default", want: wlWriteOnly},
			{name: "ps_disable_pareto", args: []string{"--db-ps-mode=disable", "--rand-type=pareto"}, want: wlWriteOnly},
			{name: "no_trx", args: []string{"--skip_trx=on"}, want: wlWriteOnlyNoTx},
		},
	},
	{
		script:  "oltp_point_select",
		options: []string{"--tables=2", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneRead},
			// One SELECT per event whatever --point_selects says.
			{name: "ps_disable_zipfian", args: []string{"--db-ps-mode=disable", "--rand-type=zipfian", "--point_selects=5"}, want: wlOneRead},
			// With --reconnect the event is the one that checks it.
			{name: "reconnect", args: []string{"--reconnect=50"}, want: wlOneRead,
				check: func(t *testing.T, report string) {
					if n := reportNumber(t, report, "reconnects"); n != 4 {
						t.Errorf("%d reconnects, want 4:\n%s", n, report)
					}
				}},
		},
	},
	{
		script:  "oltp_insert",
		options: []string{"--tables=2", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneWrite},
			{name: "ps_disable_uniform", args: []string{"--db-ps-mode=disable", "--rand-type=uniform"}, want: wlOneWrite},
		},
	},
	{
		// Client-side ids: prepare leaves the tables empty, and the ids of
		// one run never repeat, even across threads. (Each process
		// starts the same id sequence, so a second run would collide.)
		script:  "oltp_insert",
		options: []string{"--tables=2", "--table-size=1000", "--auto_inc=off"},
		rows:    0,
		runs: []wlRunCase{
			{name: "auto_inc_off_threads", args: []string{"--threads=4", "--rand-type=pareto"}, want: wlOneWrite},
		},
	},
	{
		script:  "oltp_delete",
		options: []string{"--tables=2", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneDelete},
			{name: "ps_disable_pareto", args: []string{"--db-ps-mode=disable", "--rand-type=pareto"}, want: wlOneDelete},
		},
	},
	{
		script:  "oltp_update_index",
		options: []string{"--tables=2", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneWrite},
			{name: "ps_disable_uniform", args: []string{"--db-ps-mode=disable", "--rand-type=uniform"}, want: wlOneWrite},
		},
	},
	{
		script:  "oltp_update_non_index",
		options: []string{"--tables=2", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneWrite},
			{name: "ps_disable_zipfian", args: []string{"--db-ps-mode=disable", "--rand-type=zipfian"}, want: wlOneWrite},
		},
	},
	{
		script:  "select_random_points",
		options: []string{"--tables=1", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneRead},
			{name: "ps_disable_uniform_threads", args: []string{"--db-ps-mode=disable", "--rand-type=uniform", "--threads=4"}, want: wlOneRead},
		},
	},
	{
		script:  "select_random_ranges",
		options: []string{"--tables=1", "--table-size=1000"},
		rows:    1000,
		runs: []wlRunCase{
			{name: "default", want: wlOneRead},
			{name: "pareto_threads", args: []string{"--rand-type=pareto", "--threads=4"}, want: wlOneRead},
		},
	},
	{
		script:    "pgbench_tpcb",
		options:   []string{"--scale=1"},
		prepare:   []string{"--threads=2"},
		tableRows: wlPgbenchRows,
		runs: []wlRunCase{
			{name: "default", want: wlPgbenchTPCBMySQL, check: wlWritesAndOthers(6)},
			{name: "ps_disable", args: []string{"--db-ps-mode=disable"}, want: wlPgbenchTPCBMySQL, check: wlWritesAndOthers(6)},
			{name: "simple_update", args: []string{"--pgbench-mode=simple-update"}, want: wlPgbenchSimpleUpdateMySQL, check: wlWritesAndOthers(4)},
			{name: "select_only_ps_disable", args: []string{"--pgbench-mode=select-only", "--db-ps-mode=disable"}, want: wlOneRead},
			{name: "threads_time", args: withArgs(wlTimedIgnore, "--threads=8", "--time=2", "--events=0"), want: wlPgbenchTPCBMySQL,
				check: wlWritesAndOthers(6)},
			{name: "threads_time_ps_disable", args: withArgs(wlTimedIgnore, "--threads=8", "--time=2", "--events=0", "--db-ps-mode=disable"),
				want: wlPgbenchTPCBMySQL, check: wlWritesAndOthers(6)},
		},
	},
	{
		// mysqlslap's table with a UUID key: every load type.
		script:    "mysqlslap",
		options:   []string{"--guid_primary=on", "--number_int_cols=2", "--number_char_cols=2", "--write_number=11"},
		tableRows: msRows(11),
		runs:      msMatrixRuns(true),
	},
	{
		// Without a key (whole-table selects and updates), in a named
		// storage engine.
		script:    "mysqlslap",
		options:   []string{"--number_int_cols=1", "--number_char_cols=1", "--write_number=6", "--engine=innodb"},
		tableRows: msRows(6),
		runs:      msMatrixRuns(false),
	},
	{
		// One table per thread; only the flushes are queries.
		script:  "bulk_insert",
		options: []string{"--threads=2"},
		rows:    0,
		runs: []wlRunCase{
			{name: "two_threads", want: wlPerEvent{0, -1, 0, -1}, check: func(t *testing.T, report string) {
				if w := reportNumber(t, report, "write"); w < 1 || w > 2 {
					t.Errorf("%d writes, want 1 or 2 flushes:\n%s", w, report)
				}
			}},
		},
	},
}

// wlPgbenchRows are the rows of pgbench's tables at scale 1.
var wlPgbenchRows = map[string]int{"pgbench_accounts": 100000, "pgbench_branches": 1, "pgbench_history": 0, "pgbench_tellers": 10}

// TestWorkloadMatrix runs every bundled workload through prepare, run
// and cleanup on MariaDB, and checks the progress lines, the rows
// written, and the queries the report counts per event.
func TestWorkloadMatrix(t *testing.T) {
	db := needMySQL(t)
	seed := 0
	for _, g := range wlMatrix {
		name := g.script + "/" + strings.Join(g.options, ",")
		t.Run(name, func(t *testing.T) {
			wlCheckBundled(t, g.script)
			schema, tables := wlMatrixTables(t, db, g)
			common := append(append([]string{}, wlSbtestArgs...), "--mysql-db="+schema)
			common = append(common, g.options...)
			cmd := func(extra []string, command string) []string {
				return append(append(append([]string{g.script}, common...), extra...), command)
			}

			r := wlMust(t, sbgoBinary, nil, cmd(g.prepare, "prepare")...)
			if g.tableRows != nil {
				wlCheckCreated(t, tables, r.stdout)
			} else {
				wlCheckPrepare(t, g, tables, r.stdout)
			}
			for _, tbl := range tables {
				if n, want := wlQueryInt(t, db, "SELECT COUNT(*) FROM "+schema+"."+tbl), g.rowsOf(tbl); n != want {
					t.Errorf("%s has %d rows after prepare, want %d", tbl, n, want)
				}
			}
			if g.check != nil {
				g.check(t, db)
			}

			for _, rc := range g.runs {
				t.Run(rc.name, func(t *testing.T) {
					// Runs seeded from the clock in the same second would
					// repeat each other's UPDATEs, which then change
					// nothing and count as "other": seed each run apart.
					seed++
					args := append([]string{"--events=200", "--report-interval=1", fmt.Sprintf("--rand-seed=%d", seed)}, rc.args...)
					r := wlMust(t, sbgoBinary, nil, cmd(args, "run")...)
					wlCheckReport(t, rc, r.stdout)
				})
			}
			wlMatrixAfterRuns(t, db, g, cmd, tables)

			r = wlMust(t, sbgoBinary, nil, cmd(nil, "cleanup")...)
			for _, tbl := range tables {
				if !strings.Contains(r.stdout, "Dropping table '"+tbl+"'...\n") {
					t.Errorf("cleanup does not report %s:\n%s", tbl, r.stdout)
				}
			}
			left := wlQueryInt(t, db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name IN ('"+
				strings.Join(tables, "','")+"')", schema)
			if left != 0 {
				t.Errorf("%d tables left after cleanup", left)
			}
		})
	}
}

// wlMatrixTables returns the schema of group g, made ready for it, and the
// tables its prepare makes. The sysbench workloads work in sbtest; the
// loads of other tools in a schema of their own, as their tables' names
// are not sbgo's alone.
func wlMatrixTables(t *testing.T, db *sql.DB, g wlGroup) (schema string, tables []string) {
	t.Helper()
	if g.tableRows == nil {
		wlDropTables(t, db, "sbtest")
		t.Cleanup(func() { wlDropTables(t, db, "sbtest") })
		tables = []string{"sbtest1", "sbtest2"}
		if g.script == "select_random_points" || g.script == "select_random_ranges" {
			tables = tables[:1]
		}
		return "sbtest", tables
	}
	schema = wlClassicSchema(t, db)
	for tbl := range g.tableRows {
		tables = append(tables, tbl)
	}
	sort.Strings(tables)
	for _, tbl := range tables {
		wlExec(t, db, "DROP TABLE IF EXISTS "+schema+"."+tbl)
	}
	return schema, tables
}

// wlClassicSchema creates the schema of this test process for the loads
// of other tools, grants it to sbtest, and drops it when the test ends.
func wlClassicSchema(t *testing.T, db *sql.DB) string {
	t.Helper()
	schema := fmt.Sprintf("sbgo_classics_%d", os.Getpid())
	wlExec(t, db, "CREATE DATABASE IF NOT EXISTS "+schema,
		"GRANT ALL ON "+schema+".* TO 'sbtest'@'127.0.0.1'", "GRANT ALL ON "+schema+".* TO 'sbtest'@'localhost'")
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + schema) })
	return schema
}

// wlMatrixAfterRuns checks what some workloads leave or offer besides
// their runs: prewarm, bulk_insert's rows, pgbench_tpcb's check.
func wlMatrixAfterRuns(t *testing.T, db *sql.DB, g wlGroup, cmd func([]string, string) []string, tables []string) {
	t.Helper()
	switch g.script {
	case "oltp_read_write":
		r := wlMust(t, sbgoBinary, nil, cmd([]string{"--threads=2"}, "prewarm")...)
		for _, tbl := range tables {
			if !strings.Contains(r.stdout, "Prewarming table "+tbl+"\n") {
				t.Errorf("prewarm does not report %s:\n%s", tbl, r.stdout)
			}
		}
	case "bulk_insert":
		// Every row of every event reached its table: the last flush
		// happens when the thread ends.
		n := wlQueryInt(t, db, "SELECT (SELECT COUNT(*) FROM sbtest.sbtest1) + (SELECT COUNT(*) FROM sbtest.sbtest2)")
		if n != 200 {
			t.Errorf("bulk_insert stored %d rows for 200 events", n)
		}
	case "pgbench_tpcb":
		// The runs mixed modes: simple-update's check holds for all.
		r := wlMust(t, sbgoBinary, nil, cmd([]string{"--pgbench-mode=simple-update"}, "check")...)
		if !strings.Contains(r.stdout, "check passed: ") {
			t.Errorf("check after the runs:\n%s", r.stdout)
		}
	}
}

// rowsOf is how many rows table tbl holds after prepare.
func (g wlGroup) rowsOf(tbl string) int {
	if g.tableRows != nil {
		return g.tableRows[tbl]
	}
	return g.rows
}

// wlCheckPrepare checks prepare's progress lines for each table.
func wlCheckPrepare(t *testing.T, g wlGroup, tables []string, out string) {
	t.Helper()
	for _, tbl := range tables {
		want := []string{"Creating table '" + tbl + "'...\n"}
		switch {
		case g.script == "bulk_insert":
		case g.rows > 0:
			want = append(want, fmt.Sprintf("Inserting %d records into '%s'\n", g.rows, tbl))
		default:
			if strings.Contains(out, "Inserting") {
				t.Errorf("prepare of empty tables inserts:\n%s", out)
			}
		}
		secondary := g.script != "bulk_insert" && !strings.Contains(strings.Join(g.options, " "), "--create_secondary=off")
		if secondary {
			want = append(want, "Creating a secondary index on '"+tbl+"'...\n")
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("prepare output lacks %q:\n%s", w, out)
			}
		}
	}
}

// wlCheckReport checks the final report of a run: the number of events
// and the queries counted per event.
func wlCheckReport(t *testing.T, rc wlRunCase, report string) {
	t.Helper()
	events := 200
	if strings.Contains(strings.Join(rc.args, " "), "--events=0") {
		events = reportNumber(t, report, "transactions")
		if events == 0 {
			t.Errorf("no events in a timed run:\n%s", report)
		}
	} else if n := reportNumber(t, report, "transactions"); n != events {
		t.Errorf("%d events, want %d:\n%s", n, events, report)
	}
	abandoned := wlAbandoned(report)
	for _, c := range []struct {
		label string
		per   int
	}{{"read", rc.want.read}, {"write", rc.want.write}, {"other", rc.want.other}, {"total", rc.want.total}} {
		if c.per < 0 {
			continue
		}
		if n := reportNumber(t, report, c.label); !wlPerEventOK(n, c.per, events, abandoned) {
			t.Errorf("%s: %d queries for %d events (%d abandoned), want %d per event:\n%s", c.label, n, events, abandoned, c.per, report)
		}
	}
	if n := reportNumber(t, report, "ignored errors"); n != abandoned && rc.want.total >= 0 {
		t.Errorf("%d ignored errors, %d events abandoned:\n%s", n, abandoned, report)
	}
	if rc.check != nil {
		rc.check(t, report)
	}
}

// TestWorkloadReconnectReprepares kills the sessions of a prepared-
// statement workload mid-run, with lost connections in the ignore list:
// the driver reconnects, and before_restart_event prepares the
// statements again on the new session, so the run goes on and ends
// normally. Without the second step every later execute fails.
// (sysbench 1.0.20 itself crashes on such a reconnect.) The workload runs
// in a database of its own, whose sessions alone are killed.
func TestWorkloadReconnectReprepares(t *testing.T) {
	admin := needMySQL(t)
	const schema = "sbgo_reprepare"
	wlExec(t, admin, "CREATE DATABASE IF NOT EXISTS "+schema)
	t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS " + schema) })
	opts := []string{"oltp_read_write", "--tables=2", "--table-size=1000",
		"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=" + schema}
	wlMust(t, sbgoBinary, nil, append(opts, "prepare")...)

	args := append(opts, "--threads=2", "--time=4", "--mysql-ignore-errors=1213,1020,1205,2013,2006", "run")
	cmd := exec.Command(sbgoBinary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = wlEnviron()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	time.Sleep(1500 * time.Millisecond)
	if killed := killSessions(t, admin, schema); killed == 0 {
		t.Fatal("no session to kill")
	}
	if code := waitExit(t, cmd, 30*time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if n := reportNumber(t, out.String(), "reconnects"); n == 0 {
		t.Errorf("sessions killed but no reconnect counted:\n%s", out.String())
	}
}

// wlOriginals lists sysbench's runnable scripts (all but the library).
func wlOriginals(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(wlOriginalDir, "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		if filepath.Base(p) != "oltp_common.lua" {
			out = append(out, p)
		}
	}
	if len(out) != 11 {
		t.Fatalf("%d scripts in %s, want sysbench 1.0.20's 11: %v", len(out), wlOriginalDir, out)
	}
	return out
}

// TestOriginalScripts runs each of sysbench 1.0.20's own scripts, by path
// and unchanged, through prepare, run and cleanup under sbgo: first with
// sysbench's oltp_common (found through LUA_PATH, as sysbench finds it in
// its data directory), then with the bundled one, which is what require
// finds when only the script is copied.
func TestOriginalScripts(t *testing.T) {
	wlNeedSysbench(t)
	db := needMySQL(t)
	libraries := []struct {
		name      string
		env       []string
		reconnect bool // the library declares --reconnect (only ours does)
	}{
		{"sysbench_common", []string{"LUA_PATH=" + wlOriginalDir + "/?.lua;;"}, false},
		{"bundled_common", nil, true},
	}
	for _, lib := range libraries {
		for _, path := range wlOriginals(t) {
			script := strings.TrimSuffix(filepath.Base(path), ".lua")
			t.Run(lib.name+"/"+script, func(t *testing.T) {
				wlDropTables(t, db, "sbtest")
				defer wlDropTables(t, db, "sbtest")
				tables := "--tables=2"
				if strings.HasPrefix(script, "select_random") {
					tables = "--tables=1" // their cleanup refuses more
				}
				opts := append([]string{path, tables, "--table-size=1000"}, wlSbtestArgs...)
				if script != "bulk_insert" {
					help := wlMust(t, sbgoBinary, lib.env, path, "help")
					if got := strings.Contains(help.stdout, "--reconnect=N"); got != lib.reconnect {
						t.Fatalf("the script did not load the intended oltp_common (--reconnect listed: %v):\n%s", got, help.stdout)
					}
				}
				wlMust(t, sbgoBinary, lib.env, append(opts, "prepare")...)
				r := wlMust(t, sbgoBinary, lib.env, append(opts, "--events=100", "run")...)
				if n := reportNumber(t, r.stdout, "transactions"); n != 100 {
					t.Errorf("%d events, want 100:\n%s", n, r.stdout)
				}
				if n := reportNumber(t, r.stdout, "total"); n == 0 {
					t.Errorf("no queries counted:\n%s", r.stdout)
				}
				if !lib.reconnect {
					// The same script and library under sysbench, on
					// tables prepared afresh: the same counts.
					wlMust(t, sbgoBinary, lib.env, append(opts, "cleanup")...)
					wlMust(t, sbgoBinary, lib.env, append(opts, "prepare")...)
					sb := wlMust(t, wlSysbench, lib.env, append(opts, "--events=100", "run")...)
					wlSameCounters(t, script, sb.stdout, r.stdout)
				}
				r = wlMust(t, sbgoBinary, lib.env, append(opts, "cleanup")...)
				if !strings.Contains(r.stdout, "Dropping table 'sbtest1'...\n") {
					t.Errorf("cleanup output:\n%s", r.stdout)
				}
			})
		}
	}
}

// wlSameCounters compares the counter blocks of a workload's run under
// both tools. oltp_delete's DELETE counts as a write when it removed a
// row and as other when the row was gone already, which depends on the
// random ids each tool draws: for it only their sum must match.
func wlSameCounters(t *testing.T, script, sysbench, sbgo string) {
	t.Helper()
	if script == "oltp_delete" {
		sysbench, sbgo = mergeWriteOther(t, sysbench), mergeWriteOther(t, sbgo)
	}
	sameCounters(t, script, sysbench, sbgo)
}

// wlSameCases are the commands run under both tools. Each runs as root in
// a database of its own, so that the general log tells its sessions apart
// from any other client's.
var wlSameCases = []struct {
	script string
	args   []string
}{
	// 3000 rows make prepare's multi-row INSERT exceed 512 KiB, so it is
	// split where sysbench splits it.
	{"oltp_read_write", []string{"--tables=2", "--table-size=3000"}},
	{"oltp_read_write", []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	{"oltp_read_write", []string{"--tables=2", "--table-size=1000", "--skip_trx=on", "--range_selects=off", "--auto_inc=off"}},
	{"oltp_read_only", []string{"--tables=2", "--table-size=1000"}},
	{"oltp_write_only", []string{"--tables=2", "--table-size=1000", "--secondary=on"}},
	{"oltp_point_select", []string{"--tables=2", "--table-size=1000"}},
	{"oltp_point_select", []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	{"oltp_insert", []string{"--tables=2", "--table-size=1000"}},
	{"oltp_insert", []string{"--tables=2", "--table-size=1000", "--db-ps-mode=disable"}},
	{"oltp_insert", []string{"--tables=2", "--table-size=1000", "--auto_inc=off"}},
	{"oltp_delete", []string{"--tables=2", "--table-size=1000"}},
	{"oltp_update_index", []string{"--tables=2", "--table-size=1000"}},
	{"oltp_update_non_index", []string{"--tables=2", "--table-size=1000", "--create_secondary=off"}},
	{"select_random_points", []string{"--tables=1", "--table-size=1000"}},
	{"select_random_ranges", []string{"--tables=1", "--table-size=1000", "--db-ps-mode=disable"}},
	{"bulk_insert", []string{"--threads=1"}},
}

// wlSchema is the database of TestSameStatementsAsSysbench, one per test
// process so that two test runs on one server keep apart.
var wlSchema = fmt.Sprintf("sbgo_workloads_%d", os.Getpid())

// wlLogEntry is one line of the server's general log.
type wlLogEntry struct {
	thread            int64
	command, argument string
}

func (e wlLogEntry) String() string { return e.command + "\t" + e.argument }

// wlGeneralLog sends the general log to mysql.general_log for the rest
// of the test and puts the previous settings back afterwards.
func wlGeneralLog(t *testing.T, db *sql.DB) {
	t.Helper()
	var logOn, output string
	if err := db.QueryRow("SELECT @@global.general_log, @@global.log_output").Scan(&logOn, &output); err != nil {
		t.Fatal(err)
	}
	wlExec(t, db, "SET GLOBAL log_output='TABLE'", "TRUNCATE TABLE mysql.general_log")
	t.Cleanup(func() {
		db.Exec("SET GLOBAL general_log=" + logOn)
		db.Exec("SET GLOBAL log_output='" + output + "'")
		db.Exec("TRUNCATE TABLE mysql.general_log")
	})
}

// wlCounters reads the server's Com_* counters. The query carries marker
// as a comment, so that the general log shows where a window began.
func wlCounters(t *testing.T, db *sql.DB, marker string) map[string]int64 {
	t.Helper()
	rows, err := db.Query(`SHOW GLOBAL STATUS LIKE 'Com\_%' /* ` + marker + ` */`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		out[name] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// wlOwner tells the sessions of the commands a test measures from the
// server's others: by their database (column "db", as the tests of the
// sysbench workloads, whose sessions connect to wlSchema) or by their
// user (column "user", for a tool that connects before its database
// exists, as mysqlslap does).
type wlOwner struct{ column, value string }

// wlSchemaSessions are the sessions on wlSchema.
var wlSchemaSessions = wlOwner{"db", wlSchema}

// owns reports whether a general-log Connect line, "user@host on db
// using ...", opened one of o's sessions.
func (o wlOwner) owns(connect string) bool {
	if o.column == "user" {
		return strings.HasPrefix(connect, o.value+"@")
	}
	return strings.Contains(connect, " on "+o.value+" ")
}

// wlWaitSessionsGone waits until the server has ended every session of
// o. A client sends its last commands (closing statements, quitting)
// without waiting for an answer, so the server may still be counting and
// logging them when the client has exited. It polls with SHOW
// PROCESSLIST, which changes no counter but its own.
func wlWaitSessionsGone(t *testing.T, db *sql.DB, o wlOwner) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for wlSessionsOpen(t, db, o) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sessions of %s %s still open 10 s after the client exited", o.column, o.value)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wlSessionsOpen counts the server's sessions of o.
func wlSessionsOpen(t *testing.T, db *sql.DB, o wlOwner) int {
	t.Helper()
	rows, err := db.Query("SHOW PROCESSLIST")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, c := range cols {
		if strings.EqualFold(c, o.column) {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("SHOW PROCESSLIST has no %s column: %v", o.column, cols)
	}
	fields := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range fields {
		dest[i] = &fields[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		if string(fields[col]) == o.value {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// wlOwnStatement tells the statements with which this test reads the
// server during a measurement: they count only in their own counters.
var wlOwnStatement = map[string]bool{"Com_show_status": true, "Com_show_processlist": true}

// wlOwnTag marks statements a test sends between the commands it
// measures (dropping a database, reading a table's layout), which show in
// the next window's log.
const wlOwnTag = "/* sbgo-test */"

// wlOwnPrefixes begin the statements of wlRunPhaseOf itself.
var wlOwnPrefixes = []string{"SHOW GLOBAL STATUS", "SHOW PROCESSLIST", "SET GLOBAL general_log=",
	"SELECT @@global.general_log", "SELECT thread_id, command_type, argument FROM mysql.general_log"}

// wlIsOwnQuery tells the test's own statements from other clients'.
func wlIsOwnQuery(q string) bool {
	for _, p := range wlOwnPrefixes {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return strings.Contains(q, wlOwnTag)
}

// wlPhase is what the server saw while one command ran.
type wlPhase struct {
	counters map[string]int64 // Com_* deltas, but for wlOwnStatement
	sessions [][]wlLogEntry   // the command's sessions, by connection id
	foreign  int              // statements of other clients meanwhile
	// intact: the log was on throughout and kept every line (another
	// test process may turn it off or empty it).
	intact bool
	stdout string
}

var wlWindows int // numbers the markers of wlRunPhase

// wlRunPhase runs one command with the general log on, between two
// readings of the counters, then reads and empties the log. Its sessions
// are those on wlSchema.
func wlRunPhase(t *testing.T, db *sql.DB, bin string, args []string) wlPhase {
	t.Helper()
	return wlRunPhaseOf(t, db, wlSchemaSessions, bin, args)
}

// wlRunPhaseOf is wlRunPhase for the sessions of o.
func wlRunPhaseOf(t *testing.T, db *sql.DB, o wlOwner, bin string, args []string) wlPhase {
	t.Helper()
	wlExec(t, db, "SET GLOBAL general_log=1")
	wlWindows++
	marker := fmt.Sprintf("sbgo-workloads %d-%d", os.Getpid(), wlWindows)
	before := wlCounters(t, db, marker)
	out := wlMust(t, bin, nil, args...)
	wlWaitSessionsGone(t, db, o)
	after := wlCounters(t, db, "")

	ph := wlPhase{counters: map[string]int64{}, stdout: out.stdout}
	for k, v := range after {
		if d := v - before[k]; d != 0 && !wlOwnStatement[k] {
			ph.counters[k] = d
		}
	}
	logOn := wlQueryInt(t, db, "SELECT @@global.general_log")
	rows, err := db.Query("SELECT thread_id, command_type, argument FROM mysql.general_log")
	if err != nil {
		t.Fatal(err)
	}
	var all []wlLogEntry
	ours := map[int64]bool{}
	for rows.Next() {
		var e wlLogEntry
		var arg []byte
		if err := rows.Scan(&e.thread, &e.command, &arg); err != nil {
			t.Fatal(err)
		}
		e.argument = string(arg)
		if e.command == "Connect" && o.owns(e.argument) {
			ours[e.thread] = true
		}
		ph.intact = ph.intact || strings.Contains(e.argument, marker)
		all = append(all, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	wlExec(t, db, "TRUNCATE TABLE mysql.general_log")
	ph.intact = ph.intact && logOn == 1

	byThread := map[int64][]wlLogEntry{}
	for _, e := range all {
		switch {
		case ours[e.thread]:
			byThread[e.thread] = append(byThread[e.thread], e)
		case e.command != "Connect" && e.command != "Quit" && !wlIsOwnQuery(e.argument):
			ph.foreign++
		}
	}
	var ids []int64
	for id := range byThread {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		ph.sessions = append(ph.sessions, byThread[id])
	}
	return ph
}

var (
	wlQuotedRe = regexp.MustCompile(`'[^']*'`)
	wlNumberRe = regexp.MustCompile(`[0-9]+`)
)

// wlShape is a statement with its values masked: quoted strings become
// 'S' and numbers N. Workers draw different random values in each tool.
func wlShape(s string) string {
	return wlNumberRe.ReplaceAllString(wlQuotedRe.ReplaceAllString(s, "'S'"), "N")
}

// wlSame is the identity, for phases whose values must match too.
func wlSame(s string) string { return s }

// wlCompareCounters lists the counters that differ.
func wlCompareCounters(want, got map[string]int64) []string {
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: sysbench %d, sbgo %d", k, v, got[k]))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: sysbench 0, sbgo %d", k, v))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// wlCompareSessions compares two commands' logs line by line, after
// shape, and reports the first difference of each session.
func wlCompareSessions(t *testing.T, phase string, want, got [][]wlLogEntry, shape func(string) string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: no session of sysbench in the general log", phase)
	}
	if len(want) != len(got) {
		t.Errorf("%s: sysbench opened %d sessions, sbgo %d", phase, len(want), len(got))
		return
	}
	clip := func(s string) string {
		if len(s) > 300 {
			return s[:300] + fmt.Sprintf("... (%d bytes)", len(s))
		}
		return s
	}
	for i := range want {
		for j := 0; j < max(len(want[i]), len(got[i])); j++ {
			var w, g string
			if j < len(want[i]) {
				w = shape(want[i][j].String())
			}
			if j < len(got[i]) {
				g = shape(got[i][j].String())
			}
			if w != g {
				t.Errorf("%s: session %d, line %d of %d/%d differs:\n  sysbench: %q\n  sbgo:     %q",
					phase, i+1, j+1, len(want[i]), len(got[i]), clip(w), clip(g))
				break
			}
		}
	}
}

// TestSameStatementsAsSysbench runs each workload's prepare, run and
// cleanup under sysbench 1.0.20 with its original script and under sbgo
// with the bundled one, with the same options and one thread, and checks
// that the server saw the same statements:
//
//   - the same general-log lines, session by session: exactly for prepare
//     (the main thread's random numbers are sysbench's, so the rows are
//     too) and cleanup, with values masked for run, whose workers draw
//     their own numbers;
//   - the same Com_* counter deltas (SHOW GLOBAL STATUS) for each command.
//
// The counters are global: statements of other clients add to them. The
// general log shows whether any ran meanwhile; a pair of runs so
// disturbed, or whose log another process turned off or emptied, is run
// again rather than judged.
func TestSameStatementsAsSysbench(t *testing.T) {
	wlNeedReproducibleSysbench(t)
	db := needMySQL(t)
	wlExec(t, db, "CREATE DATABASE IF NOT EXISTS "+wlSchema)
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + wlSchema) })
	wlGeneralLog(t, db)

	phases := []struct {
		command string
		extra   []string
		shape   func(string) string
	}{
		{"prepare", nil, wlSame},
		{"run", []string{"--events=100", "--threads=1"}, wlShape},
		{"cleanup", nil, wlSame},
	}
	conn := []string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=" + wlSchema}
	for _, tc := range wlSameCases {
		t.Run(tc.script+"/"+strings.Join(tc.args, ","), func(t *testing.T) {
			wlCheckBundled(t, tc.script)
			const attempts = 10
			for attempt := 1; ; attempt++ {
				results := map[string][]wlPhase{}
				for _, bin := range []string{wlSysbench, sbgoBinary} {
					wlDropTables(t, db, wlSchema)
					for _, ph := range phases {
						args := append(append(append([]string{tc.script}, conn...), tc.args...), ph.extra...)
						results[bin] = append(results[bin], wlRunPhase(t, db, bin, append(args, ph.command)))
					}
				}
				intact, foreign := true, 0
				var diffs []string
				for i, ph := range phases {
					want, got := results[wlSysbench][i], results[sbgoBinary][i]
					intact = intact && want.intact && got.intact
					foreign += want.foreign + got.foreign
					for _, d := range wlCompareCounters(want.counters, got.counters) {
						diffs = append(diffs, ph.command+": "+d)
					}
				}
				if intact {
					for i, ph := range phases {
						wlCompareSessions(t, ph.command, results[wlSysbench][i].sessions, results[sbgoBinary][i].sessions, ph.shape)
					}
				}
				// The reports of the run count the same, whatever else
				// the server did meanwhile.
				wlSameCounters(t, tc.script, results[wlSysbench][1].stdout, results[sbgoBinary][1].stdout)
				switch {
				case t.Failed():
					return
				case intact && len(diffs) == 0:
					t.Logf("same statements; run counters: %v", results[sbgoBinary][1].counters)
					return
				case intact && foreign == 0:
					t.Errorf("the server counted different statements:\n%s", strings.Join(diffs, "\n"))
					return
				case attempt == attempts:
					t.Errorf("no undisturbed measurement in %d attempts (log intact: %v, statements of other clients: %d); counters that differ:\n%s",
						attempts, intact, foreign, strings.Join(diffs, "\n"))
					return
				}
				t.Logf("attempt %d disturbed (log intact: %v, statements of other clients: %d); running again", attempt, intact, foreign)
				time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
			}
		})
	}
}

// wlPreparedScript makes wlSchema with the tables of the bundled workload
// prepared (sized by tableArgs), and returns a connection as root, the
// absolute path of testdata's script and its connection options.
func wlPreparedScript(t *testing.T, script, prepared string, tableArgs ...string) (*sql.DB, string, []string) {
	t.Helper()
	db := needMySQL(t)
	wlExec(t, db, "CREATE DATABASE IF NOT EXISTS "+wlSchema)
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + wlSchema) })
	path, err := filepath.Abs(filepath.Join("../../testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	conn := append([]string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=" + wlSchema}, tableArgs...)
	wlDropTables(t, db, wlSchema)
	wlMust(t, sbgoBinary, nil, withArgs([]string{prepared, "prepare"}, conn...)...)
	return db, path, conn
}

// TestBundledLuaLoopsIssueTheSameStatements: oltp_common's Lua statement
// loops, which run when a script replaces sysbench.rand.default, and the
// one-call stmt:_execute_random path used otherwise, send the server the
// same statements with the same values for one --rand-seed
// (testdata/lua_loops.lua is oltp_read_write with a replaced default that
// calls the built-in one).
func TestBundledLuaLoopsIssueTheSameStatements(t *testing.T) {
	db, loops, conn := wlPreparedScript(t, "lua_loops.lua", "oltp_read_write", "--tables=2", "--table-size=1000")
	wlGeneralLog(t, db)
	run := withArgs(conn, "--rand-seed=7", "--threads=1", "--events=30", "run")
	const attempts = 5
	for attempt := 1; ; attempt++ {
		oneCall := wlRunPhase(t, db, sbgoBinary, withArgs([]string{"oltp_read_write"}, run...))
		luaLoops := wlRunPhase(t, db, sbgoBinary, withArgs([]string{loops}, run...))
		if oneCall.intact && luaLoops.intact {
			if len(oneCall.sessions) != 1 || len(oneCall.sessions[0]) < 30*18 {
				t.Fatalf("the one-call run logged %d sessions, want 1 with at least 540 lines", len(oneCall.sessions))
			}
			wlCompareSessions(t, "run", oneCall.sessions, luaLoops.sessions, wlSame)
			return
		}
		if attempt == attempts {
			t.Fatalf("the general log was turned off or emptied by another client in %d attempts", attempts)
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
}

// TestBundledPrepareLoopsWriteTheSameRows: oltp_common's prepare writes
// the same INSERT statements, split at the same rows, whether its rows
// come from the Lua loop (which runs when a script replaces one of the
// functions it calls: testdata/lua_loops.lua replaces
// sysbench.rand.default) or from the one call of
// con:_bulk_insert_random_rows, with and without --auto_inc. (That the
// one-call path writes sysbench's rows is TestSameStatementsAsSysbench's.)
func TestBundledPrepareLoopsWriteTheSameRows(t *testing.T) {
	db := needMySQL(t)
	wlExec(t, db, "CREATE DATABASE IF NOT EXISTS "+wlSchema)
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + wlSchema) })
	loops, err := filepath.Abs("../../testdata/lua_loops.lua")
	if err != nil {
		t.Fatal(err)
	}
	wlGeneralLog(t, db)
	// What lua_loops.lua prints the first time its rand.default runs.
	const loopsMark = "lua_loops: the replaced sysbench.rand.default runs"
	for _, autoInc := range []string{"on", "off"} {
		// 3000 rows: more than one 512 KiB INSERT per table.
		args := []string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=" + wlSchema,
			"--tables=2", "--table-size=3000", "--auto_inc=" + autoInc, "prepare"}
		const attempts = 5
		for attempt := 1; ; attempt++ {
			wlDropTables(t, db, wlSchema)
			oneCall := wlRunPhase(t, db, sbgoBinary, withArgs([]string{"oltp_read_write"}, args...))
			wlDropTables(t, db, wlSchema)
			luaLoop := wlRunPhase(t, db, sbgoBinary, withArgs([]string{loops}, args...))
			if oneCall.intact && luaLoop.intact {
				inserts := 0
				for _, session := range oneCall.sessions {
					for _, e := range session {
						if strings.HasPrefix(e.argument, "INSERT INTO sbtest") {
							inserts++
						}
					}
				}
				if inserts < 4 {
					t.Fatalf("--auto_inc=%s: the one-call prepare logged %d INSERTs, want at least 4", autoInc, inserts)
				}
				// Each took the path it is meant to test.
				if strings.Contains(oneCall.stdout, loopsMark) || !strings.Contains(luaLoop.stdout, loopsMark) {
					t.Fatalf("--auto_inc=%s: %q printed by the one-call prepare: %v, by lua_loops.lua's: %v",
						autoInc, loopsMark, strings.Contains(oneCall.stdout, loopsMark), strings.Contains(luaLoop.stdout, loopsMark))
				}
				wlCompareSessions(t, "prepare --auto_inc="+autoInc, oneCall.sessions, luaLoop.sessions, wlSame)
				break
			}
			if attempt == attempts {
				t.Fatalf("the general log was turned off or emptied by another client in %d attempts", attempts)
			}
			time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
		}
	}
}

// TestBundledHelpersOnTheScriptsOwnStatements: begin(), commit() and
// execute_point_selects() of the bundled oltp_common work on statements a
// script prepared itself rather than through the prepare_* functions
// (testdata/own_statements.lua), on the one-call path and on the Lua loops.
func TestBundledHelpersOnTheScriptsOwnStatements(t *testing.T) {
	_, own, conn := wlPreparedScript(t, "own_statements.lua", "oltp_point_select", "--tables=2", "--table-size=100")
	for _, loops := range []string{"off", "on"} {
		r := wlMust(t, sbgoBinary, nil, withArgs([]string{own}, append(conn, "--lua_loops="+loops, "--threads=2", "--events=20", "run")...)...)
		// --point_selects=10 per event, with BEGIN and COMMIT.
		if reads, other := reportNumber(t, r.stdout, "read"), reportNumber(t, r.stdout, "other"); reads != 200 || other != 40 {
			t.Errorf("--lua_loops=%s: %d reads and %d other statements counted, want 200 and 40\n%s", loops, reads, other, r.stdout)
		}
	}
}

// TestBundledByIDRunnerFallsBack: oltp_common's execute_point_selects,
// which runs in Go (sysbench.sql._by_id_runner), calls the script's own
// sysbench.rand.uniform or .default when a script replaced one, once per
// event for one point select each, and names the entry of stmt that is
// not a statement (testdata/by_id_runner.lua).
func TestBundledByIDRunnerFallsBack(t *testing.T) {
	_, script, conn := wlPreparedScript(t, "by_id_runner.lua", "oltp_point_select", "--tables=1", "--table-size=100")
	for _, replace := range []string{"none", "uniform", "default"} {
		r := wlMust(t, sbgoBinary, nil, withArgs([]string{script}, append(conn, "--replace="+replace, "--events=20", "run")...)...)
		want := 0
		if replace != "none" {
			want = 20
		}
		if line := fmt.Sprintf("by_id_runner: %s replaced, %d calls\n", replace, want); !strings.Contains(r.stdout, line) {
			t.Errorf("--replace=%s: no line %q:\n%s", replace, line, r.stdout)
		}
		if reads := reportNumber(t, r.stdout, "read"); reads != 20 {
			t.Errorf("--replace=%s: %d reads counted, want 20:\n%s", replace, reads, r.stdout)
		}
	}
	r := wlRun(t, sbgoBinary, nil, withArgs([]string{script}, append(conn, "--break", "--events=20", "run")...)...)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "stmt[1].point_selects is not a prepared statement") {
		t.Errorf("with stmt[1].point_selects a string: exit %d, want non-zero with the entry named:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestBundledLoopsReadOptionsAfterThreadInit: oltp_common's
// execute_non_index_updates and execute_delete_inserts, which read their
// options and sysbench.rand.default at their first call, use what the
// script's thread_init set, in every event (testdata/loop_options.lua:
// --non_index_updates=3, --delete_inserts=2 and a default that counts its
// calls).
func TestBundledLoopsReadOptionsAfterThreadInit(t *testing.T) {
	_, script, conn := wlPreparedScript(t, "loop_options.lua", "oltp_write_only", "--tables=1", "--table-size=100")
	r := wlMust(t, sbgoBinary, nil, withArgs([]string{script}, append(conn, "--threads=1", "--events=20", "run")...)...)
	// Per event one id for the index update, three for the non-index
	// updates, two for each of the two deletes with their inserts.
	if line := "loop_options: 160 calls\n"; !strings.Contains(r.stdout, line) {
		t.Errorf("no line %q:\n%s", line, r.stdout)
	}
	// Those 8 writes, BEGIN and COMMIT: 10 statements per event.
	writes, other := reportNumber(t, r.stdout, "write"), reportNumber(t, r.stdout, "other")
	if reads := reportNumber(t, r.stdout, "read"); reads != 0 || writes+other != 200 {
		t.Errorf("%d reads, %d writes and %d other statements counted, want 0 and 200 in all:\n%s",
			reads, writes, other, r.stdout)
	}
}

// TestEventLookedUpAfterLuaEvents: the event loop looks event up again
// after an event that ran Lua code, even when the last function that ran
// was the bundled Go event, which itself runs none (the loop skips the
// lookup only after an event that was that function alone):
// testdata/event_replaced.lua's first event calls it and then replaces
// event.
func TestEventLookedUpAfterLuaEvents(t *testing.T) {
	_, script, conn := wlPreparedScript(t, "event_replaced.lua", "oltp_point_select", "--tables=1", "--table-size=100")
	r := wlMust(t, sbgoBinary, nil, withArgs([]string{script}, append(conn, "--threads=1", "--events=20", "run")...)...)
	if line := "event_replaced: 1 first, 19 then\n"; !strings.Contains(r.stdout, line) {
		t.Errorf("no line %q:\n%s", line, r.stdout)
	}
	if reads := reportNumber(t, r.stdout, "read"); reads != 20 {
		t.Errorf("%d reads counted, want 20:\n%s", reads, r.stdout)
	}
}
