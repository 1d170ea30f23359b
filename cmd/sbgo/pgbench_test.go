package main

// Tests of the bundled pgbench_tpcb workload against PostgreSQL's own
// pgbench: the tables prepare makes, the server-side counts of a run of
// each mode, and the check command. Each test works in a database and
// role of its own (pgwCreateDB), so that neither other tests nor other
// clients of the server touch its tables or its statistics.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

const pgbenchBinary = "/usr/lib/postgresql/15/bin/pgbench"

// pgbTables are pgbench's tables.
var pgbTables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

// needPgbench makes sure PostgreSQL's pgbench is installed: without it
// the test fails in CI and is skipped elsewhere.
func needPgbench(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(pgbenchBinary); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgbench is needed (it comes with the postgresql package): %v", err)
		}
		t.Skipf("pgbench is not installed: %v", err)
	}
}

// pgbench runs PostgreSQL's pgbench on database d with args.
func (d pgwDB) pgbench(t *testing.T, args ...string) result {
	t.Helper()
	all := append([]string{"-h", "127.0.0.1", "-p", "5432", "-U", d.role}, args...)
	return wlMust(t, pgbenchBinary, []string{"PGPASSWORD=sbtest"}, append(all, d.name)...)
}

// pgbLayout lists the columns of pgbench's tables (name, type, nullable),
// their storage options, their primary keys and row counts, one line each.
func pgbLayout(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	var lines []string
	for _, tbl := range pgbTables {
		rows, err := c.Query(context.Background(), `SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) ||
			CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
			FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, tbl)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		var options, keys string
		err = c.QueryRow(context.Background(), `SELECT coalesce(array_to_string(c.reloptions, ','), ''),
			coalesce((SELECT string_agg(pg_get_constraintdef(k.oid), ';') FROM pg_constraint k WHERE k.conrelid = c.oid), '')
			FROM pg_class c WHERE c.oid = $1::regclass`, tbl).Scan(&options, &keys)
		if err != nil {
			t.Fatal(err)
		}
		count := pgwInt(t, c, "SELECT count(*) FROM "+tbl)
		lines = append(lines, fmt.Sprintf("%s (%s) options [%s] keys [%s] rows %d", tbl, strings.Join(cols, ", "), options, keys, count))
	}
	return strings.Join(lines, "\n")
}

// TestPgbenchPrepareLayout: after prepare --scale=2 (in two threads, and
// with --fillfactor) the four tables have the columns, storage options,
// primary keys and row counts that pgbench -i gives them, and the rows
// hold what pgbench's hold.
func TestPgbenchPrepareLayout(t *testing.T) {
	needPgbench(t)
	admin := needPgSQL(t)
	d := pgwCreateDB(t, admin)
	c := pgwConnect(t, d.name)
	defer c.Close(context.Background())
	// The contents, summed: bids of accounts and tellers, balances, and
	// fillers (NULL in branches and tellers, blank in accounts).
	const contents = `SELECT (SELECT sum(bid) FROM pgbench_accounts) || ' ' || (SELECT sum(bid) FROM pgbench_tellers) || ' ' ||
		(SELECT sum(abalance) FROM pgbench_accounts) + (SELECT sum(tbalance) FROM pgbench_tellers) + (SELECT sum(bbalance) FROM pgbench_branches) || ' ' ||
		(SELECT count(*) FROM pgbench_accounts WHERE filler = '') || ' ' || (SELECT count(filler) FROM pgbench_tellers) || ' ' ||
		(SELECT count(filler) FROM pgbench_branches)`
	for _, fillfactor := range []string{"100", "90"} {
		t.Run("fillfactor_"+fillfactor, func(t *testing.T) {
			d.pgbench(t, "-i", "-q", "-s", "2", "-F", fillfactor)
			want := pgbLayout(t, c)
			var wantContents string
			if err := c.QueryRow(context.Background(), contents).Scan(&wantContents); err != nil {
				t.Fatal(err)
			}
			pgwExec(t, c, "DROP TABLE pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers")

			r := wlMust(t, sbgoBinary, nil, append(append([]string{"pgbench_tpcb"}, d.args()...),
				"--scale=2", "--threads=2", "--fillfactor="+fillfactor, "prepare")...)
			for _, tbl := range pgbTables {
				if !strings.Contains(r.stdout, "Creating table '"+tbl+"'...\n") {
					t.Errorf("prepare does not report %s:\n%s", tbl, r.stdout)
				}
			}
			if got := pgbLayout(t, c); got != want {
				t.Errorf("tables after prepare:\n%s\nafter pgbench -i:\n%s", got, want)
			}
			var got string
			if err := c.QueryRow(context.Background(), contents).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != wantContents {
				t.Errorf("contents %q, pgbench's %q", got, wantContents)
			}
			t.Logf("layout:\n%s", want)
		})
	}
}

// pgbTableCounts are one table's counters in pg_stat_user_tables.
type pgbTableCounts struct{ inserted, updated, idxScans, seqScans int64 }

// pgbCounts are what a run moves on the server.
type pgbCounts struct {
	tables      map[string]pgbTableCounts
	commits     int64 // pg_stat_database.xact_commit
	rollbacks   int64 // pg_stat_database.xact_rollback
	sessions    int64 // pg_stat_database.sessions
	maintenance int64 // autovacuum and autoanalyze runs
}

// pgbReadTables reads the table counters of database name from a
// session of its own, and waits until that session has ended.
func pgbReadTables(t *testing.T, admin *pgx.Conn, name string) pgbCounts {
	t.Helper()
	c := pgwConnect(t, name)
	counts := pgbCounts{tables: map[string]pgbTableCounts{}}
	rows, err := c.Query(context.Background(), `SELECT relname, n_tup_ins, n_tup_upd, coalesce(idx_scan, 0), seq_scan,
		autovacuum_count + autoanalyze_count FROM pg_stat_user_tables WHERE relname LIKE 'pgbench%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl string
		var tc pgbTableCounts
		var maintenance int64
		if err := rows.Scan(&tbl, &tc.inserted, &tc.updated, &tc.idxScans, &tc.seqScans, &maintenance); err != nil {
			t.Fatal(err)
		}
		counts.tables[tbl] = tc
		counts.maintenance += maintenance
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	pgwWaitIdle(t, admin, name)
	return counts
}

// pgbMeasure runs bin with args in database name, which nothing else
// uses, and returns what the server counted meanwhile.
func pgbMeasure(t *testing.T, admin *pgx.Conn, name, bin string, env, args []string) pgbCounts {
	t.Helper()
	t0 := pgbReadTables(t, admin, name)
	d0 := pgwReadDB(t, admin, name)
	wlMust(t, bin, env, args...)
	pgwWaitIdle(t, admin, name)
	d1 := pgwReadDB(t, admin, name)
	t1 := pgbReadTables(t, admin, name)
	delta := pgbCounts{tables: map[string]pgbTableCounts{},
		commits: d1.commits - d0.commits, rollbacks: d1.rollbacks - d0.rollbacks, sessions: d1.sessions - d0.sessions,
		maintenance: t1.maintenance - t0.maintenance}
	for tbl, c1 := range t1.tables {
		c0 := t0.tables[tbl]
		delta.tables[tbl] = pgbTableCounts{c1.inserted - c0.inserted, c1.updated - c0.updated,
			c1.idxScans - c0.idxScans, c1.seqScans - c0.seqScans}
	}
	return delta
}

func (c pgbCounts) String() string {
	parts := []string{fmt.Sprintf("commits=%d rollbacks=%d sessions=%d", c.commits, c.rollbacks, c.sessions)}
	for _, tbl := range pgbTables {
		tc := c.tables[tbl]
		parts = append(parts, fmt.Sprintf("%s ins=%d upd=%d idx=%d seq=%d",
			strings.TrimPrefix(tbl, "pgbench_"), tc.inserted, tc.updated, tc.idxScans, tc.seqScans))
	}
	return strings.Join(parts, " ")
}

// pgbSameEvents is the length of each measured run.
const pgbSameEvents = 200

// TestPgbenchSameCountsAsPgbench runs pgbench_tpcb with one thread for
// pgbSameEvents transactions, and pgbench with one client for as many,
// in each mode and query mode, each on a dataset freshly made by
// pgbench -i, and checks that the server counted the same for both: per
// table, rows inserted and updated and index and sequential scans
// started (the planner reads the two small tables sequentially); and the
// sessions and transactions committed and rolled back.
//
// pgbench (run with -n, no vacuum before the run) opens one more session
// before its clients, to read the scale: its sequential scan of
// pgbench_branches and the pgbSetupCommits transactions of that session
// are taken off pgbench's counts before comparing. Autovacuum is off
// for the tables, so that nothing else adds to their counters; a window
// in which it ran anyway is measured again.
func TestPgbenchSameCountsAsPgbench(t *testing.T) {
	needPgbench(t)
	admin := needPgSQL(t)
	d := pgwCreateDB(t, admin)
	cases := []struct {
		mode, flag string // --pgbench-mode and pgbench's option for it
		psMode     string // --db-ps-mode
	}{
		{"tpcb", "-b tpcb-like", "auto"},
		{"tpcb", "-b tpcb-like", "disable"},
		{"simple-update", "-N", "auto"},
		{"simple-update", "-N", "disable"},
		{"select-only", "-S", "auto"},
		{"select-only", "-S", "disable"},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"_ps_"+tc.psMode, func(t *testing.T) {
			queryMode := map[string]string{"auto": "prepared", "disable": "simple"}[tc.psMode]
			pgbenchArgs := append(append([]string{pgbenchBinary, "-h", "127.0.0.1", "-U", d.role, "-n", "-c", "1", "-j", "1"},
				strings.Fields(tc.flag)...), "-t", fmt.Sprint(pgbSameEvents), "-M", queryMode, d.name)
			sbgoArgs := append(append([]string{"pgbench_tpcb"}, d.args()...), "--scale=1", "--threads=1",
				"--pgbench-mode="+tc.mode, "--db-ps-mode="+tc.psMode, fmt.Sprintf("--events=%d", pgbSameEvents), "run")
			const attempts = 3
			for attempt := 1; ; attempt++ {
				got := map[string]pgbCounts{}
				for _, tool := range []string{"pgbench", "sbgo"} {
					d.pgbench(t, "-i", "-q", "-s", "1")
					pgwSettle(t, admin, d.name)
					if tool == "pgbench" {
						got[tool] = pgbMeasure(t, admin, d.name, pgbenchArgs[0], []string{"PGPASSWORD=sbtest"}, pgbenchArgs[1:])
					} else {
						got[tool] = pgbMeasure(t, admin, d.name, sbgoBinary, nil, sbgoArgs)
					}
				}
				want, have := got["pgbench"], got["sbgo"]
				if want.maintenance+have.maintenance != 0 {
					if attempt == attempts {
						t.Fatalf("autovacuum visited the tables in each of %d attempts", attempts)
					}
					t.Logf("attempt %d: autovacuum visited the tables; measuring again", attempt)
					continue
				}
				want.sessions--
				want.commits -= pgbSetupCommits
				branches := want.tables["pgbench_branches"]
				branches.seqScans--
				want.tables["pgbench_branches"] = branches
				t.Logf("pgbench: %v\nsbgo:    %v", want, have)
				pgbCompare(t, want, have)
				return
			}
		})
	}
}

// pgbSetupCommits are the transactions of pgbench's set-up session: its
// start-up, the scale query and the partitioning query.
const pgbSetupCommits = 3

// pgbCompare reports every counter that differs between pgbench's run
// (want) and sbgo's (have).
func pgbCompare(t *testing.T, want, have pgbCounts) {
	t.Helper()
	if want.commits < pgbSameEvents {
		t.Errorf("pgbench's run of %d transactions committed only %d", pgbSameEvents, want.commits)
	}
	if want.commits != have.commits || want.rollbacks != have.rollbacks || want.sessions != have.sessions {
		t.Errorf("commits/rollbacks/sessions: pgbench %d/%d/%d, sbgo %d/%d/%d",
			want.commits, want.rollbacks, want.sessions, have.commits, have.rollbacks, have.sessions)
	}
	for _, tbl := range pgbTables {
		if w, h := want.tables[tbl], have.tables[tbl]; w != h {
			t.Errorf("%s: inserted/updated/index scans/sequential scans: pgbench %d/%d/%d/%d, sbgo %d/%d/%d/%d",
				tbl, w.inserted, w.updated, w.idxScans, w.seqScans, h.inserted, h.updated, h.idxScans, h.seqScans)
		}
	}
}

// TestPgbenchCheck: check passes after a 4-thread run of each writing
// mode, and fails, exit 1 with one line naming the sums, once a balance
// is changed behind the workload's back.
func TestPgbenchCheck(t *testing.T) {
	admin := needPgSQL(t)
	d := pgwCreateDB(t, admin)
	c := pgwConnect(t, d.name)
	defer c.Close(context.Background())
	base := append(append([]string{"pgbench_tpcb"}, d.args()...), "--scale=1")
	cmd := func(args ...string) []string { return append(append([]string{}, base...), args...) }
	run := func(mode string) {
		r := wlMust(t, sbgoBinary, nil, cmd("--threads=4", "--events=400", "--pgbench-mode="+mode, "run")...)
		if n := reportNumber(t, r.stdout, "transactions"); n == 0 {
			t.Fatalf("%s: no transactions:\n%s", mode, r.stdout)
		}
	}
	check := func(mode string, wantPass bool, wantNamed string) {
		t.Helper()
		r := wlRun(t, sbgoBinary, nil, cmd("--pgbench-mode="+mode, "check")...)
		var lines []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "check ") {
				lines = append(lines, l)
			}
		}
		switch {
		case wantPass && (r.code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "check passed: ")):
			t.Errorf("%s check: exit %d, want 0 and one line saying it passed:\n%s%s", mode, r.code, r.stdout, r.stderr)
		case !wantPass && (r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "check failed: ") ||
			!strings.Contains(lines[0], wantNamed)):
			t.Errorf("%s check: exit %d, want 1 and one line naming the %s:\n%s%s", mode, r.code, wantNamed, r.stdout, r.stderr)
		}
	}
	wlMust(t, sbgoBinary, nil, cmd("--threads=2", "prepare")...)

	run("tpcb")
	check("tpcb", true, "")
	pgwExec(t, c, "UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 3")
	check("tpcb", false, "teller balances")
	// simple-update leaves tellers and branches alone: its check
	// compares accounts with history only.
	check("simple-update", true, "")
	pgwExec(t, c, "UPDATE pgbench_tellers SET tbalance = tbalance - 1 WHERE tid = 3")
	check("tpcb", true, "")

	run("simple-update")
	check("simple-update", true, "")
	pgwExec(t, c, "UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 7")
	check("simple-update", false, "account balances")
	if n := pgwInt(t, c, "SELECT count(*) FROM pgbench_history"); n == 0 {
		t.Fatal("the runs left no history")
	}

	r := wlMust(t, sbgoBinary, nil, cmd("cleanup")...)
	for _, tbl := range pgbTables {
		if !strings.Contains(r.stdout, "Dropping table '"+tbl+"'...\n") {
			t.Errorf("cleanup does not report %s:\n%s", tbl, r.stdout)
		}
	}
	if n := pgwInt(t, c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}
