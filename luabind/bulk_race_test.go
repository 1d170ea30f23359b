package luabind

import (
	"os"
	"testing"
	"time"
)

// TestBulkFlushInFlight runs testdata/bulk_race.lua's prepare once per
// case and server: each case makes one call on a connection whose
// pipelined bulk-insert flush may still be in flight (see flushBulk).
// Under -race, a call that reaches the driver before the flush has
// returned is reported as a data race; without it, it may garble the
// session. Every case must leave all rows inserted.
func TestBulkFlushInFlight(t *testing.T) {
	mysql := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306",
		"--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest"}
	servers := []struct {
		name, driver string
		args         []string
	}{
		{"mysql", "mysql", mysql}, // sbgo's own wire path
		{"mysql-go-sql-driver", "mysql", append(mysql[:len(mysql):len(mysql)], "--mysql-io-mode=go-sql-driver")},
		{"pgsql", "pgsql", []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=5432",
			"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest"}},
	}
	cases := []string{
		"stmt_close",        // stmt:close() sends its close command to the session
		"stmt_execute",      // stmt:execute() on the same connection
		"stmt_bind_param",   // bind_param may describe the statement to the server (pgsql)
		"query",             // con:query() on the same connection
		"next_result",       // con:next_result() reads the session's pending results
		"reconnect",         // con:reconnect() replaces the session
		"disconnect",        // con:disconnect() closes it
		"legacy_close",      // db_close(stmt) on the implicit connection
		"legacy_query",      // db_query() on the implicit connection
		"legacy_execute",    // db_execute() on the implicit connection
		"legacy_disconnect", // db_disconnect() closes the implicit connection
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			if err := adminQuery(srv.driver, srv.args[1:], "SELECT 1"); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("the %s server is needed: %v", srv.driver, err)
				}
				t.Skipf("no %s server: %v", srv.driver, err)
			}
			for _, c := range cases {
				t.Run(c, func(t *testing.T) {
					s := loadWorkload(t, "../testdata/bulk_race.lua", "prepare", append(srv.args, "--case="+c))
					runWithin(t, 30*time.Second, func() error { return runCommand(s, "prepare") })
					s.Close()
				})
			}
		})
	}
}

// runWithin fails t if f fails or has not returned after d: a session
// garbled by two goroutines can wait for an answer that never comes. f is
// then left running, with what it uses.
func runWithin(t *testing.T, d time.Duration, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("no answer after %v", d)
	}
}
