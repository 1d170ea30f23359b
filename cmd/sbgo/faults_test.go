package main

// The fault suite: sbgo runs through internal/faultproxy while the proxy
// cuts every connection, refuses new ones for a while, slows every
// packet down, cuts a reply in the middle, or loses a COMMIT's answer,
// on MySQL and PostgreSQL, with the lost-connection errors in the ignore
// lists. The bank workload (testdata/bank.lua) has an invariant the
// checks read from the server afterwards; the bundled oltp_read_write
// keeps its row count. docs/reliability.md, "The fault suite", has the
// figures.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"sbgo/internal/faultproxy"
)

// The errors a run through faults must survive, with the defaults of
// each driver kept:
//   - MySQL: 2013 (lost during a statement, and a reply cut short), 2006
//     (the session found closed before a statement was sent);
//   - PostgreSQL: 08006 (every way of losing the session, a cut reply
//     included), 57P01 (the server shutting the session down).
const (
	faultMySQLIgnore = "--mysql-ignore-errors=1213,1020,1205,2013,2006"
	faultPgSQLIgnore = "--pgsql-ignore-errors=40P01,23505,40001,08006,57P01"
)

// Every run of the suite: threads, length, and when the fault starts.
const (
	faultThreads = 4
	faultTime    = "--time=4"
	faultAt      = 1500 * time.Millisecond
)

// faultServer is one server as the suite drives it: sbgo's options
// through a proxy's port, and the test's own database to check.
type faultServer struct {
	name, target string
	port         int // the server's own
	// conn are sbgo's connection options through port; clearText turns
	// TLS off where the driver would use it.
	conn func(port int, clearText bool) []string
	// count runs a query of one integer in the test's database.
	count func(t *testing.T, query string) int64
}

// faultMySQL is the local MariaDB with a database of the test's own
// (named after tag), which sbgo reaches as root. Without the server the
// test fails.
func faultMySQL(t *testing.T, tag string) faultServer {
	t.Helper()
	name := fmt.Sprintf("sbgo_faults_%s_%d", tag, os.Getpid())
	admin, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/")
	if err == nil {
		_, err = admin.Exec("CREATE DATABASE IF NOT EXISTS " + name)
	}
	if err != nil {
		t.Fatalf("MariaDB on 127.0.0.1:3306 is needed: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name)
		admin.Close()
	})
	check, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { check.Close() })
	return faultServer{
		name: "mysql", target: "127.0.0.1:3306", port: 3306,
		conn: func(port int, _ bool) []string {
			return []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(port),
				"--mysql-user=root", "--mysql-db=" + name, faultMySQLIgnore}
		},
		count: func(t *testing.T, query string) int64 {
			t.Helper()
			var n int64
			if err := check.QueryRow(query).Scan(&n); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return n
		},
	}
}

// faultPgSQL is the local PostgreSQL with a database and role of the
// test's own. Without the server the test fails.
func faultPgSQL(t *testing.T) faultServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, "host=127.0.0.1 port=5432 user=postgres dbname=sbtest sslmode=disable")
	if err != nil {
		t.Fatalf("PostgreSQL on 127.0.0.1:5432 is needed: %v", err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	d := pgwCreateDB(t, admin)
	check := pgwConnect(t, d.name)
	t.Cleanup(func() { check.Close(context.Background()) })
	return faultServer{
		name: "pgsql", target: "127.0.0.1:5432", port: 5432,
		conn: func(port int, clearText bool) []string {
			args := withArgs(d.args(), "--pgsql-port="+strconv.Itoa(port), faultPgSQLIgnore)
			if clearText {
				args = append(args, "--pgsql-sslmode=disable")
			}
			return args
		},
		count: func(t *testing.T, query string) int64 { return pgwInt(t, check, query) },
	}
}

// fault is one way the proxy misbehaves from faultAt on.
type fault struct {
	name   string
	inject func(p *faultproxy.Proxy)
	// loses says the fault loses sessions, so reconnects must be
	// counted; a fault that does not must leave no reconnect at all.
	loses bool
	// all says it loses every worker's session: each must come back.
	all bool
	// clearText runs without TLS, for a fault that reads the statements.
	clearText bool
	// committed says the fault loses the answer of a COMMIT the server
	// received: the run must count ambiguous commits.
	committed bool
	// abandons says the run's deadline gives up the events in flight:
	// the run ends by it, with a warning, after at most one ignored
	// error per worker.
	abandons bool
	// args are sbgo options the fault needs.
	args []string
}

// faults are the suite's faults, each starting faultAt into a run.
var faults = []fault{
	// Every session is closed at once, both ways.
	{name: "cut", loses: true, all: true, inject: func(p *faultproxy.Proxy) { p.CutAll() }},
	// The sessions are closed and the server refuses connections for 2 s:
	// the workers reconnect with back-off, then carry on.
	{name: "refuse", loses: true, all: true, inject: func(p *faultproxy.Proxy) {
		p.CutAll()
		p.Refuse(2 * time.Second)
	}},
	// 20 ms on every chunk both ways: slower, never wrong.
	{name: "latency", inject: func(p *faultproxy.Proxy) { p.SetLatency(20 * time.Millisecond) }},
	// Three replies cut in the middle (most are result sets), 300 ms apart.
	{name: "truncate", loses: true, inject: func(p *faultproxy.Proxy) {
		for range 3 {
			p.TruncateNext()
			time.Sleep(300 * time.Millisecond)
		}
	}},
	// Nothing gets through any more, and no socket closes: the run's
	// deadline ends the run, giving up the events stuck in flight.
	{name: "blackhole", abandons: true, inject: func(p *faultproxy.Proxy) { p.Blackhole(true) }},
	// Nothing gets through for 1.5 s: --db-timeout fails the statements
	// as lost connections, the reconnects time out until the traffic
	// flows again, then the run goes on. What was held back reaches the
	// server late, COMMITs included.
	{name: "blackhole-timeout", loses: true, all: true, args: []string{"--db-timeout=0.5"},
		inject: func(p *faultproxy.Proxy) {
			p.Blackhole(true)
			time.Sleep(1500 * time.Millisecond)
			p.Blackhole(false)
		}},
}

// commitInDoubt loses the answer of one COMMIT the server has received.
var commitInDoubt = fault{name: "commit-in-doubt", loses: true, clearText: true, committed: true,
	inject: func(p *faultproxy.Proxy) { p.CutAfterSending([]byte("COMMIT")) }}

// faultRun is what one run under a fault printed and counted, and the
// connections the proxy accepted.
type faultRun struct {
	out                               string
	trx, reconnects, ambiguous, conns int
	results                           string        // the results file
	wall                              time.Duration // from start to exit
}

// runFaulty runs sbgo with script through a proxy to srv, injecting f
// faultAt into the run, and checks the run (checkFaultRun). Prepare and
// cleanup go to the server itself.
func runFaulty(t *testing.T, srv faultServer, f fault, script []string) faultRun {
	t.Helper()
	direct := withArgs(script, srv.conn(srv.port, f.clearText)...)
	if r := runBinary(t, sbgoBinary, append(direct, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Cleanup(func() { runBinary(t, sbgoBinary, append(direct, "cleanup")...) })
	p := startProxy(t, srv.target)
	defer p.Close() // before the checks: no session left open
	resultsFile := filepath.Join(t.TempDir(), "results.json")
	args := append(withArgs(script, srv.conn(p.Port(), f.clearText)...), f.args...)
	args = append(args, "--threads="+strconv.Itoa(faultThreads), faultTime, "--results-file="+resultsFile, "run")
	cmd, out := startBinary(t, args...)
	var injected sync.WaitGroup
	injected.Add(1)
	go func() {
		defer injected.Done()
		injectWhenRunning(p, f, time.Now().Add(faultAt))
	}()
	started := time.Now()
	code := waitExit(t, cmd, time.Minute)
	wall := time.Since(started)
	injected.Wait()
	text := out.String()
	if code != 0 || strings.Contains(text, "panic") {
		t.Fatalf("%s: exit %d\n%s", f.name, code, text)
	}
	run := faultRun{out: text, conns: p.Accepted(), results: resultsFile, wall: wall,
		trx:        reportNumber(t, text, "transactions"),
		reconnects: reportNumber(t, text, "reconnects")}
	if strings.Contains(text, "ambiguous commits:") {
		run.ambiguous = reportNumber(t, text, "ambiguous commits")
	}
	checkFaultRun(t, f, run)
	return run
}

// checkFaultRun checks what any run under f must show: transactions; in the
// results file the report's counts; reconnects counted for a fault that
// loses sessions, and every lost worker back through the proxy.
func checkFaultRun(t *testing.T, f fault, run faultRun) {
	t.Helper()
	if run.trx == 0 {
		t.Errorf("%s: no transaction\n%s", f.name, run.out)
	}
	doc := checkResultsFile(t, run.results, run.out)
	// After events abandoned at the deadline the server is not asked its
	// version; otherwise it answers.
	abandoned := strings.Contains(run.out, "in flight abandoned")
	if asked := doc.Server.Version != ""; asked == abandoned {
		t.Errorf("%s: server version %q in the results file", f.name, doc.Server.Version)
	}
	got := doc.Steps[0].Totals
	if got.Transactions != uint64(run.trx) || got.Reconnects != uint64(run.reconnects) || got.AmbiguousCommits != uint64(run.ambiguous) {
		t.Errorf("%s: results file totals %+v, report %+v", f.name, got, run)
	}
	back := 1
	if f.all {
		back = faultThreads
	}
	if f.loses && (run.reconnects < back || run.conns < faultThreads+back) {
		t.Errorf("%s: %d reconnects counted, %d connections accepted\n%s", f.name, run.reconnects, run.conns, run.out)
	}
	if !f.loses && run.reconnects != 0 {
		t.Errorf("%s: reconnects without a lost session\n%s", f.name, run.out)
	}
	// A healthy run may have an event in flight at the deadline too (a
	// lock wait on a loaded machine, a deadlock PostgreSQL detects
	// after 1 s): only the blackhole must leave some.
	if f.abandons && !abandoned {
		t.Errorf("%s: no event abandoned at the deadline\n%s", f.name, run.out)
	}
}

// injectWhenRunning injects f at the time at, or once every worker has
// connected if that comes later (a loaded machine may start sbgo
// slowly), so that the fault meets a running workload.
func injectWhenRunning(p *faultproxy.Proxy, f fault, at time.Time) {
	for deadline := time.Now().Add(30 * time.Second); p.Accepted() < faultThreads && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Until(at))
	f.inject(p)
}

// String is the run's figures for the log: acceptance figures
// (docs/reliability.md), not something a test decides on.
func (r faultRun) String() string {
	total := "?"
	if m := regexp.MustCompile(`total time: +([0-9.]+)s`).FindStringSubmatch(r.out); m != nil {
		total = m[1]
	}
	return fmt.Sprintf("%d transactions, %d reconnects, %d ambiguous commits, %d connections, report %s s, exit %.2f s",
		r.trx, r.reconnects, r.ambiguous, r.conns, total, r.wall.Seconds())
}

// Bank sizes: the accounts and what each starts with.
const (
	bankAccounts = 100
	bankBalance  = 1000
)

// checkBank checks the bank's invariant after run: the total is what it
// was; each account holds its start plus what the log says it received
// minus what it sent, so the log has one row per committed transfer and
// no other; and the log's rows are exactly the transactions sbgo
// counted: the bank's retries look their transfer up before doing it
// again, so a commit in doubt is neither lost nor done twice. Only an
// event abandoned at the deadline while its COMMIT was in flight is
// never retried: whether it committed no client can know, and the
// report counts it among the ambiguous commits, so with abandoned
// events the log may exceed the transactions by at most those. Under f
// that makes commits ambiguous, some must be counted.
func checkBank(t *testing.T, srv faultServer, f fault, run faultRun) {
	t.Helper()
	if total := srv.count(t, "SELECT SUM(balance) FROM bank_accounts"); total != bankAccounts*bankBalance {
		t.Errorf("%s: total balance %d, want %d", f.name, total, bankAccounts*bankBalance)
	}
	off := srv.count(t, fmt.Sprintf(`SELECT COUNT(*) FROM bank_accounts a
		WHERE a.balance <> %d
		+ COALESCE((SELECT SUM(amount) FROM bank_transfers t WHERE t.dst = a.id), 0)
		- COALESCE((SELECT SUM(amount) FROM bank_transfers t WHERE t.src = a.id), 0)`, bankBalance))
	if off != 0 {
		t.Errorf("%s: %d accounts disagree with the transfer log", f.name, off)
	}
	rows := int(srv.count(t, "SELECT COUNT(*) FROM bank_transfers"))
	unresolved := 0
	if strings.Contains(run.out, "in flight abandoned") {
		unresolved = run.ambiguous
	}
	if rows < run.trx || rows > run.trx+unresolved || f.committed && run.ambiguous == 0 {
		t.Errorf("%s: %d transfers logged, %d transactions counted, %d ambiguous commits\n%s",
			f.name, rows, run.trx, run.ambiguous, run.out)
	}
	// Transfers lock their accounts in order: nothing to ignore but
	// the lost sessions, and the events abandoned at the deadline.
	n := reportNumber(t, run.out, "ignored errors")
	if !f.loses && !f.abandons && n != 0 || f.abandons && n > faultThreads {
		t.Errorf("%s: %d ignored errors\n%s", f.name, n, run.out)
	}
	t.Logf("%s: %d logged, %s", f.name, rows, run)
}

// bankArgs is the bank workload at the suite's size.
var bankArgs = []string{"bank.lua", "--accounts=" + strconv.Itoa(bankAccounts), "--balance=" + strconv.Itoa(bankBalance)}

// testFaultBank runs the bank through every fault and checks its
// invariant after each.
func testFaultBank(t *testing.T, srv faultServer) {
	for _, f := range append(faults, commitInDoubt) {
		t.Run(f.name, func(t *testing.T) {
			checkBank(t, srv, f, runFaulty(t, srv, f, bankArgs))
		})
	}
}

// TestFaultBankMySQL: the bank through every fault on MariaDB.
func TestFaultBankMySQL(t *testing.T) {
	t.Parallel()
	testFaultBank(t, faultMySQL(t, "bank"))
}

// TestFaultBankPgSQL: the bank through every fault on PostgreSQL.
func TestFaultBankPgSQL(t *testing.T) {
	t.Parallel()
	testFaultBank(t, faultPgSQL(t))
}

// oltpFaultSize is oltp_read_write's size in the suite.
const oltpFaultSize = 1000

// testFaultOLTP runs the bundled oltp_read_write through the faults:
// each transaction deletes a row and inserts it again, so the table
// keeps its row count unless half a transaction commits; every counter
// covers at least what the counted transactions ran.
func testFaultOLTP(t *testing.T, srv faultServer) {
	script := []string{"oltp_read_write", "--tables=1", "--table-size=" + strconv.Itoa(oltpFaultSize)}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			run := runFaulty(t, srv, f, script)
			if n := srv.count(t, "SELECT COUNT(*) FROM sbtest1"); n != oltpFaultSize {
				t.Errorf("%s: sbtest1 has %d rows, want %d", f.name, n, oltpFaultSize)
			}
			// Per transaction: 14 reads (result sets), and 4 writes and
			// BEGIN and COMMIT, which count as other when they change no
			// row; an attempt that fails counts what it ran too.
			reads := reportNumber(t, run.out, "        read")
			rest := reportNumber(t, run.out, "        write") + reportNumber(t, run.out, "        other")
			if reads < 14*run.trx || rest < 6*run.trx {
				t.Errorf("%s: %d reads and %d other queries for %d transactions\n%s", f.name, reads, rest, run.trx, run.out)
			}
			t.Logf("%s: %s", f.name, run)
		})
	}
}

// TestFaultOLTPMySQL: oltp_read_write through every fault on MariaDB.
func TestFaultOLTPMySQL(t *testing.T) {
	t.Parallel()
	testFaultOLTP(t, faultMySQL(t, "oltp"))
}

// TestFaultOLTPPgSQL: oltp_read_write through every fault on PostgreSQL.
func TestFaultOLTPPgSQL(t *testing.T) {
	t.Parallel()
	testFaultOLTP(t, faultPgSQL(t))
}
