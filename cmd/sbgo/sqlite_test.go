package main

// Tests of the embedded SQLite driver end to end: the bundled workloads
// through prepare, run and cleanup, concurrent writers, a custom script
// on the SQL API, and the README's first command on a machine without
// any database server. Each test works on a database file in a
// directory of its own.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// sqlwQueryInt runs a query that returns one integer on the database
// file path, through the sqlite driver.
func sqlwQueryInt(t *testing.T, path, query string) int {
	t.Helper()
	f, _ := db.Lookup("sqlite")
	opts := engine.NewOptions()
	if err := opts.Register(f.Options()...); err != nil {
		t.Fatal(err)
	}
	if err := opts.Set("sqlite-db", &path); err != nil {
		t.Fatal(err)
	}
	d, err := f.New(opts, engine.NewLogger(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(context.Background(), query)
	if err != nil || res.Rows == nil {
		t.Fatalf("%s: %v", query, err)
	}
	row := make([][]byte, 1)
	if ok, err := res.Rows.Next(row); !ok || err != nil {
		t.Fatalf("%s: no row (%v)", query, err)
	}
	n, err := strconv.Atoi(string(row[0]))
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// sqlwWithout are the options of wlMatrix that SQLite has no use for:
// MySQL's table options.
func sqlwWithout(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--create_table_options=") {
			out = append(out, a)
		}
	}
	return out
}

// TestSQLiteWorkloadMatrix runs the workload matrix of TestWorkloadMatrix
// on SQLite: every bundled workload through prepare (with 4 threads where
// the workload allows it), each run case, the same run with 4 threads
// with server-side and with client-side prepared statements, and
// cleanup, checking the rows written and the queries counted per event,
// which are MySQL's.
func TestSQLiteWorkloadMatrix(t *testing.T) {
	for i, g := range wlMatrix {
		t.Run(g.script+"/"+strings.Join(g.options, ","), func(t *testing.T) {
			t.Parallel()
			sqlwRunGroup(t, g, 100*(i+1))
		})
	}
}

// sqlwRunGroup runs one group of the matrix on a database file of its
// own, seeding its runs from seed on.
func sqlwRunGroup(t *testing.T, g wlGroup, seed int) {
	path := filepath.Join(t.TempDir(), "sbtest.db")
	common := append([]string{"--db-driver=sqlite", "--sqlite-db=" + path}, g.options...)
	cmd := func(extra []string, command string) []string {
		return append(append(append([]string{g.script}, common...), extra...), command)
	}
	tables := []string{"sbtest1", "sbtest2"}
	prepare := sqlwWithout(g.prepare)
	switch g.script {
	case "select_random_points", "select_random_ranges":
		tables = tables[:1]
	case "bulk_insert":
	default:
		prepare = append(prepare, "--threads=4")
	}
	if g.tableRows != nil {
		tables = slices.Sorted(maps.Keys(g.tableRows))
	}
	r := wlMust(t, sbgoBinary, nil, cmd(prepare, "prepare")...)
	if g.tableRows != nil {
		wlCheckCreated(t, tables, r.stdout)
	} else {
		wlCheckPrepare(t, g, tables, r.stdout)
	}
	for _, tbl := range tables {
		if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM "+tbl); n != g.rowsOf(tbl) {
			t.Errorf("%s has %d rows after prepare, want %d", tbl, n, g.rowsOf(tbl))
		}
	}
	options := strings.Join(g.options, " ")
	if strings.Contains(options, "--secondary=on") {
		if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM sqlite_master WHERE type='index' AND name='xid_1'"); n != 1 {
			t.Errorf("no xid_1 index on sbtest1's id")
		}
	}
	for _, rc := range sqlwRuns(g) {
		t.Run(rc.name, func(t *testing.T) {
			seed++
			args := append([]string{"--events=200", "--report-interval=1", fmt.Sprintf("--rand-seed=%d", seed)}, rc.args...)
			wlCheckReport(t, rc, wlMust(t, sbgoBinary, nil, cmd(args, "run")...).stdout)
		})
	}
	if g.script == "pgbench_tpcb" {
		// The runs mixed modes: simple-update's check holds for all.
		r := wlMust(t, sbgoBinary, nil, cmd([]string{"--pgbench-mode=simple-update"}, "check")...)
		if !strings.Contains(r.stdout, "check passed: ") {
			t.Errorf("check after the runs:\n%s", r.stdout)
		}
	}
	if g.script == "bulk_insert" {
		if n := sqlwQueryInt(t, path, "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)"); n != 200 {
			t.Errorf("bulk_insert stored %d rows for 200 events", n)
		}
	}
	r = wlMust(t, sbgoBinary, nil, cmd(nil, "cleanup")...)
	for _, tbl := range tables {
		if !strings.Contains(r.stdout, "Dropping table '"+tbl+"'...\n") {
			t.Errorf("cleanup does not report %s:\n%s", tbl, r.stdout)
		}
	}
	// SQLite's own tables (sqlite_stat1, which ANALYZE makes) stay.
	if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}

// sqlwRuns are the group's run cases, then its first case again with 4
// threads, with server-side and with client-side prepared statements:
// on SQLite the counts per event stay exact with 4 threads, since the
// writing transactions take the write lock in turn. Not for bulk_insert
// (its tables are per thread) nor client-side ids (each run would
// repeat the first run's ids).
func sqlwRuns(g wlGroup) []wlRunCase {
	runs := g.runs[:len(g.runs):len(g.runs)]
	if g.script == "bulk_insert" || strings.Contains(strings.Join(g.options, " "), "auto_inc=off") {
		return runs
	}
	want := g.runs[0].want
	return append(runs,
		wlRunCase{name: "threads4_ps_auto", args: []string{"--threads=4"}, want: want},
		wlRunCase{name: "threads4_ps_disable", args: []string{"--threads=4", "--db-ps-mode=disable"}, want: want})
}

// TestSQLiteConcurrentInserts: with four writers on one table, no event
// is lost or counted twice: 4000 events leave exactly 4000 more rows,
// with ids numbered by SQLite.
func TestSQLiteConcurrentInserts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sbtest.db")
	opts := []string{"oltp_insert", "--db-driver=sqlite", "--sqlite-db=" + path, "--table-size=1000"}
	wlMust(t, sbgoBinary, nil, append(opts, "prepare")...)
	r := wlMust(t, sbgoBinary, nil, append(opts, "--threads=4", "--events=4000", "run")...)
	if n := reportNumber(t, r.stdout, "transactions"); n != 4000 {
		t.Errorf("%d events, want 4000", n)
	}
	if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM sbtest1"); n != 5000 {
		t.Errorf("%d rows after 4000 inserts into 1000, want 5000:\n%s", n, r.stdout)
	}
	if n := sqlwQueryInt(t, path, "SELECT COUNT(DISTINCT id) = 5000 AND MIN(id) = 1 AND MAX(id) = 5000 FROM sbtest1"); n != 1 {
		t.Error("the ids are not 1..5000")
	}
}

// TestSQLiteReadWriteContention: four threads of oltp_read_write, whose
// transactions begin with BEGIN IMMEDIATE on SQLite, meet no error and
// keep the table's size (each DELETE is followed by the INSERT of its id
// in the same transaction).
func TestSQLiteReadWriteContention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sbtest.db")
	opts := []string{"oltp_read_write", "--db-driver=sqlite", "--sqlite-db=" + path, "--table-size=500"}
	r := wlMust(t, sbgoBinary, nil, append(opts, "--threads=4", "--events=800", "prepare", "run")...)
	if n := reportNumber(t, r.stdout, "ignored errors"); n != 0 {
		t.Errorf("%d ignored errors:\n%s", n, r.stdout)
	}
	for _, c := range []struct {
		label string
		per   int
	}{{"read", 14}, {"write", 4}, {"other", 2}} {
		if n := reportNumber(t, r.stdout, c.label); n != 800*c.per {
			t.Errorf("%s: %d, want %d per event", c.label, n, c.per)
		}
	}
	if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM sbtest1"); n != 500 {
		t.Errorf("%d rows, want 500", n)
	}
}

// TestSQLiteCustomScript: a script of its own on the SQL API (driver(),
// query, prepare, bind and execute, result sets) runs on SQLite, and its
// transfers keep the total.
func TestSQLiteCustomScript(t *testing.T) {
	script, err := filepath.Abs("../../testdata/sqlite_api.lua")
	if err != nil {
		t.Fatal(err)
	}
	r := wlMust(t, sbgoBinary, nil, script, "--db-driver=sqlite", "--threads=4", "--events=400", "prepare", "run", "cleanup")
	for _, want := range []string{
		"driver: sqlite\n",
		"rows=1 nfields=3 count=20 sum=2000 min=o'wner 1\n",
		"count=20 sum=2000\no'wner 1\no'wner 2\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// per event: 1 read, 2 writes, BEGIN and COMMIT
	for _, c := range []struct {
		label string
		n     int
	}{{"read", 400}, {"write", 800}, {"other", 800}, {"ignored errors", 0}} {
		if n := reportNumber(t, r.stdout, c.label); n != c.n {
			t.Errorf("%s: %d, want %d", c.label, n, c.n)
		}
	}
}

// sqlwReadmeCommand is the README's first command, less the build that
// comes before it.
var sqlwReadmeCommand = regexp.MustCompile("(?s)^# sbgo\n\n```sh\ngo build -o sbgo \\./cmd/sbgo && (\\./sbgo [^\n]*)\n")

// TestReadmeFirstCommand runs the README's first command, as it is
// written there, in an empty directory with no database server settings
// in the environment: it needs nothing but the binary.
func TestReadmeFirstCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := sqlwReadmeCommand.FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README does not start with the build and a ./sbgo command")
	}
	line := string(m[1])
	if !strings.Contains(line, "--db-driver=sqlite") || !strings.Contains(line, "prepare run cleanup") {
		t.Fatalf("the first command is not the zero-setup one: %s", line)
	}
	dir := t.TempDir()
	if err := os.Symlink(sbgoBinary, filepath.Join(dir, "sbgo")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range wlEnviron() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "MYSQL") && !strings.HasPrefix(name, "PG") {
			env = append(env, kv)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	for _, want := range []string{"Creating table 'sbtest1'...", "transactions:", "Dropping table 'sbtest1'..."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := reportNumber(t, string(out), "transactions"); n == 0 {
		t.Errorf("no transactions:\n%s", out)
	}
}

// TestOriginalScriptsRejectSQLite: sysbench 1.0.20's own scripts, with
// its oltp_common.lua, accept only mysql and pgsql, whatever the driver
// can do (the README says so).
func TestOriginalScriptsRejectSQLite(t *testing.T) {
	wlNeedSysbench(t)
	env := []string{"LUA_PATH=" + wlOriginalDir + "/?.lua;;"}
	r := wlRun(t, sbgoBinary, env, filepath.Join(wlOriginalDir, "oltp_read_write.lua"), "--db-driver=sqlite", "prepare")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "Unsupported database driver:sqlite") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestSQLiteMemoryAcrossCommands: with --sqlite-db=:memory: the tables
// that prepare creates are there for run and cleanup of the same
// invocation.
func TestSQLiteMemoryAcrossCommands(t *testing.T) {
	r := wlRun(t, sbgoBinary, nil, "oltp_point_select", "--db-driver=sqlite", "--sqlite-db=:memory:",
		"--table-size=100", "--threads=2", "--events=100", "prepare", "run", "cleanup")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := reportNumber(t, r.stdout, "read"); n != 100 {
		t.Errorf("%d reads, want 100:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "Dropping table 'sbtest1'...") {
		t.Errorf("no cleanup:\n%s", r.stdout)
	}
}
