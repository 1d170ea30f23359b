package main

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgsqlArgs connect sbgo to the local PostgreSQL as the sbtest role,
// which .ci/run creates.
var pgsqlArgs = []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=5432",
	"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest"}

// needPgSQL returns an administrator connection to the local PostgreSQL.
// Without a server the test fails in CI and is skipped elsewhere.
func needPgSQL(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, "host=127.0.0.1 port=5432 user=postgres dbname=sbtest sslmode=disable")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL on 127.0.0.1:5432 is needed: %v", err)
		}
		t.Skipf("no PostgreSQL on 127.0.0.1:5432: %v", err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return admin
}

// TestPgSQLConnectionErrors: bad connection settings give one clear FATAL
// line and exit 1.
func TestPgSQLConnectionErrors(t *testing.T) {
	needPgSQL(t)
	cases := []struct {
		name string
		args []string
		line string
	}{
		{"unknown role", []string{"--pgsql-host=127.0.0.1", "--pgsql-user=sbgo_no_such_role"}, `role "sbgo_no_such_role" does not exist`},
		{"missing database", []string{"--pgsql-host=127.0.0.1", "--pgsql-user=sbtest", "--pgsql-db=sbgo_no_such_db"}, `database "sbgo_no_such_db" does not exist`},
		{"refused port", []string{"--pgsql-host=127.0.0.1", "--pgsql-port=1"}, "Connection refused"},
		{"unknown host", []string{"--pgsql-host=no-such-host.invalid"}, "no-such-host.invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(withArgs([]string{"sql_query.lua", "--db-driver=pgsql", "--events=1"}, tc.args...), "run")
			r := runBinary(t, sbgoBinary, args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.stdout)
			}
			if !strings.Contains(r.stdout, "FATAL: Connection to database failed: ") || !strings.Contains(r.stdout, tc.line) {
				t.Errorf("stdout lacks the connection error %q:\n%s", tc.line, r.stdout)
			}
		})
	}
	// A missing table: the server's message, the query, the script line.
	r := runBinary(t, sbgoBinary, append(withArgs([]string{"sql_query.lua", "--events=1", "--query=SELECT * FROM sbgo_no_such_table"}, pgsqlArgs...), "run")...)
	for _, l := range []string{
		`FATAL: PQexec() failed: 7 relation "sbgo_no_such_table" does not exist`,
		"FATAL: failed query was: SELECT * FROM sbgo_no_such_table",
		"FATAL: `thread_run' function failed: sql_query.lua:12: SQL error, errno = 0, state = '42P01'",
	} {
		if !strings.Contains(r.stdout, l) {
			t.Errorf("missing table: stdout lacks %q:\n%s", l, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("missing table: exit %d, want 1", r.code)
	}
}

// TestPgSQLDeadlocksAreIgnored: deadlocks (40P01, in the default ignore
// list) restart the event and the run goes on; no half transaction is
// ever committed.
func TestPgSQLDeadlocksAreIgnored(t *testing.T) {
	needPgSQL(t)
	checkDeadlocksIgnored(t, pgsqlArgs, "8")
}

// TestPgSQLTerminatedBackendsReconnect: pg_terminate_backend of sbgo's
// sessions with --pgsql-ignore-errors=08006,57P01: the workers reconnect
// (the bundled workload prepares its statements again) and the run
// finishes with its report.
//
// The run uses a role and a database of its own, and only their sessions
// are terminated, so that tests of other packages running at the same
// time keep theirs.
func TestPgSQLTerminatedBackendsReconnect(t *testing.T) {
	admin := needPgSQL(t)
	d := pgwCreateDB(t, admin)
	oltp := withArgs([]string{"oltp_read_only", "--tables=2", "--table-size=1000"}, d.args()...)
	runBinary(t, sbgoBinary, append(oltp, "cleanup")...) // tables left by an earlier run
	if r := runBinary(t, sbgoBinary, append(oltp, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s", r.code, r.stdout)
	}
	defer runBinary(t, sbgoBinary, append(oltp, "cleanup")...)
	for _, script := range [][]string{
		withArgs([]string{"sql_query.lua"}, d.args()...),
		oltp,
	} {
		t.Run(script[0], func(t *testing.T) {
			args := append(withArgs(script, "--threads=2", "--time=4", "--pgsql-ignore-errors=08006,57P01"), "run")
			cmd, out := startBinary(t, args...)
			time.Sleep(1500 * time.Millisecond)
			var killed int
			err := admin.QueryRow(context.Background(),
				"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = $1 AND datname = $2 AND pid <> pg_backend_pid()", d.role, d.name).Scan(&killed)
			if err != nil || killed == 0 {
				t.Fatalf("terminated %d sessions: %v", killed, err)
			}
			code := waitExit(t, cmd, 30*time.Second)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out.String())
			}
			if n := reportNumber(t, out.String(), "reconnects"); n == 0 {
				t.Errorf("%d sessions terminated but no reconnect counted:\n%s", killed, out.String())
			}
		})
	}
}

// TestPgSQLServerGoneEndsRun: the server's port closes mid-run: one clear
// error, the report so far marked incomplete, exit 1, no hang.
func TestPgSQLServerGoneEndsRun(t *testing.T) {
	needPgSQL(t)
	p := startProxy(t, "127.0.0.1:5432")
	args := []string{"sql_query.lua", "--threads=2", "--time=10", "--db-driver=pgsql", "--pgsql-host=127.0.0.1",
		"--pgsql-port=" + strconv.Itoa(p.Port()), "--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest",
		"--pgsql-sslmode=disable", "run"}
	cmd, out := startBinary(t, args...)
	time.Sleep(1500 * time.Millisecond)
	p.Close()
	code := waitExit(t, cmd, 30*time.Second)
	text := out.String()
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, text)
	}
	for _, want := range []string{"state = '08006'", "the report below is incomplete", "General statistics:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "panic") || strings.Contains(text, "goroutine ") {
		t.Errorf("sbgo panicked:\n%s", text)
	}
}

// TestPgSQLVerifyFullWithoutTLS: a server that refuses TLS (a stand-in that
// answers the SSL request with "N") fails --pgsql-sslmode=verify-full with
// a clear error instead of falling back to plain text.
func TestPgSQLVerifyFullWithoutTLS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 8)
				if _, err := c.Read(buf); err == nil {
					c.Write([]byte("N")) // no TLS here
				}
				time.Sleep(time.Second)
			}()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	r := runBinary(t, sbgoBinary, "sql_query.lua", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port="+port,
		"--pgsql-sslmode=verify-full", "--events=1", "run")
	if r.code != 1 {
		t.Errorf("exit %d, want 1\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, "FATAL: Connection to database failed: ") || !strings.Contains(strings.ToLower(r.stdout), "tls") && !strings.Contains(strings.ToLower(r.stdout), "ssl") {
		t.Errorf("no clear TLS error:\n%s", r.stdout)
	}
}
