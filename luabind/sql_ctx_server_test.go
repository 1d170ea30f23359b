package luabind

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// runCtxMarker names the held statements, so that the server's session
// list shows whether they still run.
const runCtxMarker = "/* sbgo run context test */"

// TestForcedShutdownAbandonsServerStatement runs an event that sleeps 30 s
// on the server with --time=1 and a forced shutdown half a second later
// (before the run's deadline, engine.StopGrace), in this process: the
// run ends with code 2, then the run's context makes the drivers stop
// waiting, and the server's sessions stop running the sleep long before
// its 30 s (the MySQL paths close their socket, which the server notices
// within its 5 s check; pgx sends a cancel request).
func TestForcedShutdownAbandonsServerStatement(t *testing.T) {
	mysql := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=3306",
		"--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest"}
	servers := []struct {
		name, driver string
		args         []string
		sleep        string // the event's statement, without the marker
		count        string // how many sessions run it
	}{
		{"mysql", "mysql", mysql, "SELECT SLEEP(30)", // sbgo's own wire path
			"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30) " + runCtxMarker + "'"},
		{"mysql-go-sql-driver", "mysql", append(mysql[:len(mysql):len(mysql)], "--mysql-io-mode=go-sql-driver"), "SELECT SLEEP(30)",
			"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30) " + runCtxMarker + "'"},
		{"pgsql", "pgsql", []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=5432",
			"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest"}, "SELECT pg_sleep(30)",
			"SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query = 'SELECT pg_sleep(30) " + runCtxMarker + "'"},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			if err := adminQuery(srv.driver, srv.args[1:], "SELECT 1"); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("the %s server is needed: %v", srv.driver, err)
				}
				t.Skipf("no %s server: %v", srv.driver, err)
			}
			s := loadWorkload(t, "../testdata/sql_query.lua", "run", append(srv.args, "--query="+srv.sleep+" "+runCtxMarker))
			defer s.Close()
			cfg := engine.Config{Threads: 2, Time: time.Second, ForcedShutdown: engine.StopGrace / 2, Percentile: 95}
			code := make(chan int, 1)
			go func() { code <- engine.NewRun(cfg, engine.NewLogger(io.Discard, 3)).Execute(s) }()
			select {
			case c := <-code:
				if c != engine.ExitForced {
					t.Fatalf("exit code %d, want %d", c, engine.ExitForced)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the forced shutdown did not end the run")
			}
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				n, err := adminCount(srv.driver, srv.args[1:], srv.count)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d sessions still sleeping 15 s after the forced shutdown", n)
				}
			}
		})
	}
}

// adminCount runs query, which returns one number, on a session of its own.
func adminCount(driver string, args []string, query string) (int, error) {
	f, _ := db.Lookup(driver)
	opts := engine.NewGeneralOptions()
	if err := opts.Register(f.Options()...); err != nil {
		return 0, err
	}
	if _, err := engine.ParseCommandLine(args, opts); err != nil {
		return 0, err
	}
	d, err := f.New(opts, engine.NewLogger(io.Discard, 3))
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := d.Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	res, err := c.Query(ctx, query)
	if err != nil {
		return 0, err
	}
	defer res.Rows.Close()
	row := make([][]byte, 1)
	if ok, err := res.Rows.Next(row); !ok || err != nil {
		return 0, err
	}
	return strconv.Atoi(string(row[0]))
}
