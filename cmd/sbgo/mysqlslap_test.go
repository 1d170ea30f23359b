package main

// Tests of the bundled mysqlslap workload against MariaDB's own
// mysqlslap (mariadb-slap): the table its prepare makes and the
// statements the server sees for the same command, counted on the
// tools' own sessions; the checks of its options; the counts of its
// runs, which the workload matrices use.

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

const mysqlslapBinary = "/usr/bin/mariadb-slap"

// needMysqlslap makes sure MariaDB's mysqlslap is installed: without it
// the test fails in CI and is skipped elsewhere.
func needMysqlslap(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(mysqlslapBinary); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mariadb-slap is needed (it comes with the mariadb-client package): %v", err)
		}
		t.Skipf("mariadb-slap is not installed: %v", err)
	}
}

// msLoad is one mysqlslap command, which both tools run.
type msLoad struct {
	loadType       string
	key            string // "", "guid" or "autoincrement"
	ints, chars    int
	engine         string // "" leaves the server's default
	write, execute int
	threads        int
}

func (l msLoad) String() string {
	return fmt.Sprintf("%s_key_%s_%dx%d_w%d_e%d_c%d", l.loadType, l.key, l.ints, l.chars, l.write, l.execute, l.threads)
}

// slapArgs is the mysqlslap command line of l in schema, as user.
func (l msLoad) slapArgs(user, schema string) []string {
	args := []string{"--no-defaults", "--host=127.0.0.1", "--port=3306", "--user=" + user, "--password=sbtest",
		"--create-schema=" + schema, "--no-drop", "--auto-generate-sql",
		fmt.Sprintf("--number-int-cols=%d", l.ints), fmt.Sprintf("--number-char-cols=%d", l.chars),
		fmt.Sprintf("--concurrency=%d", l.threads), fmt.Sprintf("--auto-generate-sql-write-number=%d", l.write),
		fmt.Sprintf("--auto-generate-sql-execute-number=%d", l.execute), "--auto-generate-sql-load-type=" + l.loadType}
	switch l.key {
	case "guid":
		args = append(args, "--auto-generate-sql-guid-primary")
	case "autoincrement":
		args = append(args, "--auto-generate-sql-add-autoincrement")
	}
	if l.engine != "" {
		args = append(args, "--engine="+l.engine)
	}
	return args
}

// sbgoArgs is the same in sbgo's options, without the command: the
// equivalence the README's table gives.
func (l msLoad) sbgoArgs(user, schema string) []string {
	args := []string{"mysqlslap", "--mysql-host=127.0.0.1", "--mysql-user=" + user, "--mysql-password=sbtest",
		"--mysql-db=" + schema,
		fmt.Sprintf("--number_int_cols=%d", l.ints), fmt.Sprintf("--number_char_cols=%d", l.chars),
		fmt.Sprintf("--threads=%d", l.threads), fmt.Sprintf("--write_number=%d", l.write),
		fmt.Sprintf("--execute_number=%d", l.execute), "--load_type=" + l.loadType, "--time=0"}
	switch l.key {
	case "guid":
		args = append(args, "--guid_primary=on")
	case "autoincrement":
		args = append(args, "--add_autoincrement=on")
	}
	if l.engine != "" {
		args = append(args, "--engine="+l.engine)
	}
	return args
}

// msCreateUser creates a user of this test process, allowed one schema
// of the same name, and drops both when the test ends. The general log
// tells the user's sessions from every other client's, mysqlslap's first
// one included, which connects before its schema exists.
func msCreateUser(t *testing.T, db *sql.DB) string {
	t.Helper()
	name := fmt.Sprintf("sbgo_slap_%d", os.Getpid())
	user := "'" + name + "'@'127.0.0.1'"
	wlExec(t, db, "DROP USER IF EXISTS "+user, "CREATE USER "+user+" IDENTIFIED BY 'sbtest'",
		"GRANT ALL ON `"+name+"`.* TO "+user)
	t.Cleanup(func() {
		db.Exec("DROP DATABASE IF EXISTS " + name)
		db.Exec("DROP USER IF EXISTS " + user)
	})
	return name
}

// msComCounters are the counters the acceptance compares.
var msComCounters = []string{"Com_insert", "Com_select", "Com_update"}

// msSeen is what the server saw of one tool's whole command.
type msSeen struct {
	com     map[string]int64 // msComCounters' deltas
	shapes  map[string]int   // the statements of its sessions, values masked
	intact  bool             // every phase's log was whole
	foreign int              // other clients' statements meanwhile
	layout  string           // SHOW CREATE TABLE t1 after the table was loaded
}

// add sums phase ph into s.
func (s *msSeen) add(ph wlPhase) {
	s.intact = s.intact && ph.intact
	s.foreign += ph.foreign
	for _, c := range msComCounters {
		s.com[c] += ph.counters[c]
	}
	for _, session := range ph.sessions {
		for _, e := range session {
			if e.command != "Query" {
				continue
			}
			// mysqlslap sends some statements with their terminating NUL.
			q := strings.TrimSuffix(e.argument, "\x00")
			switch strings.ToUpper(strings.SplitN(q, " ", 2)[0]) {
			case "INSERT", "SELECT", "UPDATE":
				s.shapes[wlShape(q)]++
			case "CREATE":
				if strings.HasPrefix(q, "CREATE TABLE ") {
					s.shapes[wlShape(q)]++
				}
			}
		}
	}
}

func newMsSeen() *msSeen {
	return &msSeen{com: map[string]int64{}, shapes: map[string]int{}, intact: true}
}

var msAutoIncrement = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

// msLayout is SHOW CREATE TABLE of schema.t1, without the next
// auto-increment value, which depends on the rows written.
func msLayout(t *testing.T, db *sql.DB, schema string) string {
	t.Helper()
	var name, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE "+schema+".t1 "+wlOwnTag).Scan(&name, &ddl); err != nil {
		t.Fatal(err)
	}
	return msAutoIncrement.ReplaceAllString(ddl, "")
}

// msMeasure runs l with mysqlslap, then with sbgo (prepare, run,
// cleanup), each in a fresh schema, and returns what the server saw.
func msMeasure(t *testing.T, db *sql.DB, name string, l msLoad) (slap, sbgo *msSeen) {
	t.Helper()
	own := wlOwner{"user", name}
	slap, sbgo = newMsSeen(), newMsSeen()
	wlExec(t, db, "DROP DATABASE IF EXISTS "+name+" "+wlOwnTag)
	slap.add(wlRunPhaseOf(t, db, own, mysqlslapBinary, l.slapArgs(name, name)))
	slap.layout = msLayout(t, db, name)

	wlExec(t, db, "DROP DATABASE IF EXISTS "+name+" "+wlOwnTag, "CREATE DATABASE "+name+" "+wlOwnTag)
	args := l.sbgoArgs(name, name)
	sbgo.add(wlRunPhaseOf(t, db, own, sbgoBinary, withArgs(args, "prepare")))
	sbgo.layout = msLayout(t, db, name)
	run := wlRunPhaseOf(t, db, own, sbgoBinary, withArgs(args, "run"))
	sbgo.add(run)
	sbgo.add(wlRunPhaseOf(t, db, own, sbgoBinary, withArgs(args, "cleanup")))

	events, threads := reportNumber(t, run.stdout, "transactions"), reportNumber(t, run.stdout, "Number of threads")
	if events != l.threads*l.execute || threads != l.threads {
		t.Fatalf("sbgo ran %d events in %d threads, want %d per thread in %d:\n%s", events, threads, l.execute, l.threads, run.stdout)
	}
	return slap, sbgo
}

// msSameCases are the commands both tools run: every load type, with no
// key, a UUID or an auto-increment key, in a few columns, with two
// clients. mixed's cycle of 6 inserts and 5 selects shows in the counts
// only after some cycles: a cycle of 9 would insert 1 more in 100
// queries.
var msSameCases = []msLoad{
	{loadType: "mixed", ints: 2, chars: 3, engine: "innodb", write: 5, execute: 100, threads: 2},
	{loadType: "mixed", key: "guid", ints: 1, chars: 1, write: 5, execute: 100, threads: 2},
	{loadType: "write", ints: 3, chars: 0, write: 3, execute: 23, threads: 2},
	{loadType: "read", key: "guid", ints: 0, chars: 2, write: 4, execute: 12, threads: 2},
	{loadType: "key", key: "guid", ints: 2, chars: 2, write: 6, execute: 12, threads: 2},
	{loadType: "key", key: "autoincrement", ints: 1, chars: 1, write: 6, execute: 12, threads: 2},
	{loadType: "update", ints: 1, chars: 2, write: 4, execute: 23, threads: 2},
	{loadType: "update", key: "guid", ints: 2, chars: 1, write: 6, execute: 23, threads: 2},
}

// TestMysqlslapSameStatementsAsMysqlslap runs each command of
// msSameCases under mariadb-slap and under sbgo (prepare, run, cleanup),
// as a user of the test's own whose sessions the general log tells
// apart, and checks that the server saw the same:
//
//   - t1's layout, SHOW CREATE TABLE;
//   - the same INSERT, SELECT, UPDATE and CREATE TABLE statements, as many of
//     each shape (values masked: each tool draws its own), on the tools'
//     own sessions;
//   - the same Com_insert, Com_select and Com_update deltas, so the same
//     per query, as both ran as many queries. The counters are global:
//     a window in which the log shows another client's statement is
//     measured again rather than judged.
//
// mysqlslap's DROP and CREATE SCHEMA, and sbgo's DROP TABLE, are each
// tool's own business and not compared.
func TestMysqlslapSameStatementsAsMysqlslap(t *testing.T) {
	needMysqlslap(t)
	db := needMySQL(t)
	name := msCreateUser(t, db)
	wlGeneralLog(t, db)
	for _, l := range msSameCases {
		t.Run(l.String(), func(t *testing.T) {
			// Other packages' tests share the server and run beside
			// this one; the waits between attempts grow to outlast them.
			const attempts = 8
			for attempt := 1; ; attempt++ {
				slap, sbgo := msMeasure(t, db, name, l)
				if slap.layout != sbgo.layout {
					t.Errorf("t1 after sbgo's prepare:\n%s\nafter mysqlslap:\n%s", sbgo.layout, slap.layout)
				}
				if slap.intact && sbgo.intact {
					msCompareShapes(t, slap.shapes, sbgo.shapes)
				}
				if slap.intact && sbgo.intact && slap.foreign+sbgo.foreign == 0 {
					msCompareCom(t, l, slap.com, sbgo.com)
					return
				}
				if t.Failed() {
					return
				}
				if attempt == attempts {
					t.Fatalf("no undisturbed measurement in %d attempts (log intact: %v, statements of other clients: %d)",
						attempts, slap.intact && sbgo.intact, slap.foreign+sbgo.foreign)
				}
				t.Logf("attempt %d disturbed; measuring again", attempt)
				time.Sleep(time.Duration(attempt) * time.Second)
			}
		})
	}
}

// msCompareShapes reports the statement shapes the tools sent a
// different number of times.
func msCompareShapes(t *testing.T, slap, sbgo map[string]int) {
	t.Helper()
	var diffs []string
	for shape, n := range slap {
		if sbgo[shape] != n {
			diffs = append(diffs, fmt.Sprintf("mysqlslap %d, sbgo %d: %q", n, sbgo[shape], shape))
		}
	}
	for shape, n := range sbgo {
		if _, ok := slap[shape]; !ok {
			diffs = append(diffs, fmt.Sprintf("mysqlslap 0, sbgo %d: %q", n, shape))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("the tools sent different statements:\n%s", strings.Join(diffs, "\n"))
	}
}

// msCompareCom compares the counters, and logs them per query.
func msCompareCom(t *testing.T, l msLoad, slap, sbgo map[string]int64) {
	t.Helper()
	queries := float64(l.threads * l.execute)
	for _, c := range msComCounters {
		if slap[c] != sbgo[c] {
			t.Errorf("%s: mysqlslap %d, sbgo %d", c, slap[c], sbgo[c])
		}
		t.Logf("%s per query: mysqlslap %.3f, sbgo %.3f", c, float64(slap[c])/queries, float64(sbgo[c])/queries)
	}
}

// msMysqlslapMixedInserts is what mariadb-slap 10.11 inserted during
// `--auto-generate-sql --auto-generate-sql-guid-primary
// --auto-generate-sql-load-type=mixed --concurrency=2
// --auto-generate-sql-execute-number=10000`: its table held 10919 rows
// after the run, 9 of them written before (--auto-generate-sql-write-number=10).
// mysqlslap's mixed load is not random: each client repeats a cycle of 6
// inserts and 5 selects, 54.5 % inserts.
const msMysqlslapMixedInserts = 10910

// TestMysqlslapMixedOverLongRun: over 20 000 queries of two threads
// (on SQLite, which needs no server), the mixed load inserts exactly as
// many rows as mysqlslap's did, and reads by key the rest.
func TestMysqlslapMixedOverLongRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slap.db")
	args := []string{"mysqlslap", "--db-driver=sqlite", "--sqlite-db=" + path, "--guid_primary=on", "--write_number=10"}
	wlMust(t, sbgoBinary, nil, withArgs(args, "prepare")...)
	r := wlMust(t, sbgoBinary, nil, withArgs(args, "--threads=2", "--execute_number=10000", "--time=0", "run")...)
	if n := reportNumber(t, r.stdout, "write"); n != msMysqlslapMixedInserts {
		t.Errorf("%d inserts, mysqlslap's %d:\n%s", n, msMysqlslapMixedInserts, r.stdout)
	}
	// The key selects, and the one that read the keys.
	if n := reportNumber(t, r.stdout, "read"); n != 20000-msMysqlslapMixedInserts+1 {
		t.Errorf("%d reads, want %d:\n%s", n, 20000-msMysqlslapMixedInserts+1, r.stdout)
	}
	if n := sqlwQueryInt(t, path, "SELECT COUNT(*) FROM t1"); n != 9+msMysqlslapMixedInserts {
		t.Errorf("%d rows after the run, want %d", n, 9+msMysqlslapMixedInserts)
	}
}

// TestMysqlslapBadOptions: each option error of prepare and run is one
// line naming the problem, and exit 1 (on SQLite, which needs no server).
func TestMysqlslapBadOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slap.db")
	base := []string{"mysqlslap", "--db-driver=sqlite", "--sqlite-db=" + path, "--threads=2"}
	cases := []struct {
		args []string
		want string
	}{
		// An unknown load type.
		{[]string{"--load_type=scan"}, "--load_type must be mixed, write, read, key or update, not 'scan'"},
		// Key lookups on a table without a key (mysqlslap refuses too).
		{[]string{"--load_type=key"}, "--load_type=key looks rows up by their key: add --guid_primary=on or --add_autoincrement=on"},
		// Two keys named id.
		{[]string{"--guid_primary=on", "--add_autoincrement=on"}, "--guid_primary and --add_autoincrement each make the key id: choose one"},
		// A table without columns.
		{[]string{"--number_int_cols=0", "--number_char_cols=0"}, "t1 needs a column: --number_int_cols and --number_char_cols are both 0"},
		// Counts that are not whole, or too small.
		{[]string{"--number_char_cols=1.5"}, "--number_char_cols must be a whole number of at least 0, not 1.5"},
		{[]string{"--write_number=0"}, "--write_number must be a whole number of at least 1, not 0"},
		{[]string{"--execute_number=-1"}, "--execute_number must be a whole number of at least 0, not -1"},
		// A storage engine where there are none.
		{[]string{"--engine=innodb"}, "--engine names a MySQL storage engine; sqlite has none"},
	}
	for _, tc := range cases {
		for _, command := range []string{"prepare", "run"} {
			r := wlRun(t, sbgoBinary, nil, withArgs(withArgs(base, tc.args...), command)...)
			var fatal []string
			for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
				if strings.HasPrefix(line, "FATAL: ") {
					fatal = append(fatal, line)
				}
			}
			if r.code != 1 || len(fatal) != 1 || !strings.HasSuffix(fatal[0], " failed: "+tc.want) {
				t.Errorf("%s %v: exit %d, want 1 and one line ending %q:\n%s%s", command, tc.args, r.code, tc.want, r.stdout, r.stderr)
			}
		}
	}
	// A key lookup needs rows: prepare with --write_number=1 writes none.
	keyed := withArgs(base, "--guid_primary=on", "--write_number=1", "--load_type=key")
	wlMust(t, sbgoBinary, nil, withArgs(keyed, "prepare")...)
	r := wlRun(t, sbgoBinary, nil, withArgs(keyed, "run")...)
	want := "FATAL: `init' function failed: t1 has no rows to look up: prepare with --write_number of at least 2\n"
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("key run on an empty table: exit %d, want 1 and %q:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// msReportThreads reads "Number of threads: N" from a run's report.
var msReportThreads = regexp.MustCompile(`(?m)^Number of threads: ([0-9]+)$`)

// msCheck returns the check of a run of the mysqlslap workload with
// loadType, on a t1 with a key or not. Every run counts one query per
// event, plus the SELECT that read the keys; a one-thread run counts the
// reads and writes of mysqlslap's cycle exactly: mixed runs 6 inserts
// and 5 selects in turn. An UPDATE that changes nothing counts as other.
// No query fails but concurrent whole-table UPDATEs, which PostgreSQL
// may find deadlocked (rows updated in different orders; its matrix
// leaves them out): such an event is run again.
func msCheck(loadType string, keyed bool) func(t *testing.T, report string) {
	return func(t *testing.T, report string) {
		t.Helper()
		m := msReportThreads.FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("no thread count in the report:\n%s", report)
		}
		oneThread := m[1] == "1"
		events := reportNumber(t, report, "transactions")
		keyReads := 0
		if keyed {
			keyReads = 1
		}
		read, write, other := reportNumber(t, report, "read"), reportNumber(t, report, "write"), reportNumber(t, report, "other")
		if events == 0 || read+write+other != events+keyReads {
			t.Errorf("%d events, %d/%d/%d queries, want one per event and %d more:\n%s", events, read, write, other, keyReads, report)
			return
		}
		mayFail := loadType == "update" && !keyed && !oneThread
		if n := reportNumber(t, report, "ignored errors"); n != 0 && !mayFail {
			t.Errorf("%d ignored errors:\n%s", n, report)
		}
		if !oneThread {
			return
		}
		reads := events
		switch loadType {
		case "write", "update":
			reads = 0
		case "mixed":
			reads = 0
			for i := 0; i < events; i++ {
				if i%11%2 == 1 {
					reads++
				}
			}
		}
		if read != reads+keyReads {
			t.Errorf("%s: %d reads in %d events, want %d:\n%s", loadType, read, events, reads+keyReads, report)
		}
	}
}

// msMatrixRuns are the run cases of the workload matrices for a t1
// with a key (every load type) or without (all but key).
func msMatrixRuns(keyed bool) []wlRunCase {
	unchecked := wlPerEvent{-1, -1, -1, -1}
	var runs []wlRunCase
	for _, lt := range []string{"mixed", "key", "update", "read", "write"} {
		if lt == "key" && !keyed {
			continue
		}
		runs = append(runs, wlRunCase{name: lt, args: []string{"--load_type=" + lt}, want: unchecked, check: msCheck(lt, keyed)})
	}
	runs[0].name, runs[0].args = "mixed_default", nil
	return append(runs,
		wlRunCase{name: "mixed_ps_disable", args: []string{"--db-ps-mode=disable"}, want: unchecked, check: msCheck("mixed", keyed)},
		wlRunCase{name: "threads_time", args: []string{"--threads=8", "--time=2", "--events=0"}, want: unchecked,
			check: msCheck("mixed", keyed)},
		wlRunCase{name: "threads_execute_number", args: []string{"--threads=8", "--events=0", "--execute_number=25", "--time=0"},
			want: unchecked, check: msCheckEvents(8 * 25)})
}

// msCheckEvents checks that a run ran n events.
func msCheckEvents(n int) func(t *testing.T, report string) {
	return func(t *testing.T, report string) {
		t.Helper()
		if events := reportNumber(t, report, "transactions"); events != n {
			t.Errorf("%d events, want %d:\n%s", events, n, report)
		}
	}
}

// msRows is the rows in t1 after a prepare with --write_number=n.
func msRows(n int) map[string]int {
	return map[string]int{"t1": n - 1}
}
