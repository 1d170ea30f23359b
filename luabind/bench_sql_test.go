package luabind

import (
	"context"
	"io"
	"io/fs"
	"testing"
	"time"

	"sbgo/db"
	_ "sbgo/db/mysql" // registers the "mysql" driver
	_ "sbgo/db/pgsql" // registers the "pgsql" driver
	"sbgo/engine"
	"sbgo/scripts"
)

// BenchmarkWorkloadEvent runs b.N events of a bundled OLTP workload in
// one worker through the real engine, against the local servers, and
// reports events per second and allocations per event: one point select
// (oltp_point_select, also with --db-timeout, whose timer is re-armed per
// statement) and one oltp_read_only transaction, on MariaDB and
// PostgreSQL. The tables (1 x 10 000 rows) live in a database of their
// own, sbgo_bench, created and prepared on the first run; a server that
// is not there skips its benchmarks.
//
//	go test -run '^$' -bench WorkloadEvent -benchmem ./luabind
func BenchmarkWorkloadEvent(b *testing.B) {
	servers := []struct {
		name  string
		setup func() error
		args  []string
	}{
		{"mysql", func() error {
			return adminQuery("mysql", []string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db="},
				"CREATE DATABASE IF NOT EXISTS sbgo_bench")
		}, []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=sbgo_bench"}},
		{"pgsql", func() error {
			err := adminQuery("pgsql", []string{"--pgsql-host=127.0.0.1", "--pgsql-user=postgres", "--pgsql-db=postgres"},
				"CREATE DATABASE sbgo_bench")
			if err != nil && db.AsError(err).State == "42P04" { // exists
				return nil
			}
			return err
		}, []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-user=postgres", "--pgsql-db=sbgo_bench"}},
	}
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			if err := srv.setup(); err != nil {
				b.Skipf("no %s server: %v", srv.name, err)
			}
			args := append(srv.args, "--tables=1", "--table-size=10000")
			prepared := false
			for _, w := range []string{"oltp_point_select", "oltp_read_only"} {
				b.Run(w, func(b *testing.B) {
					if !prepared {
						for _, cmd := range []string{"cleanup", "prepare"} {
							s := loadWorkload(b, w, cmd, args)
							if err := runCommand(s, cmd); err != nil {
								b.Fatal(err)
							}
							s.Close()
						}
						prepared = true
					}
					benchWorkload(b, w, args)
				})
			}
			b.Run("oltp_point_select_db_timeout", func(b *testing.B) {
				benchWorkload(b, "oltp_point_select", append(args, "--db-timeout=10"))
			})
		})
	}
}

// runCommand runs a command as the command line does: one the script
// declares, or else the function of that name.
func runCommand(s *Script, cmd string) error {
	if s.HasCommand(cmd) {
		return s.RunCommand(cmd, 1)
	}
	return s.CallFunction(cmd)
}

// adminQuery runs one statement on a session of driver made with args.
func adminQuery(driver string, args []string, query string) error {
	f, _ := db.Lookup(driver)
	opts := engine.NewGeneralOptions()
	if err := opts.Register(f.Options()...); err != nil {
		return err
	}
	if _, err := engine.ParseCommandLine(args, opts); err != nil {
		return err
	}
	d, err := f.New(opts, engine.NewLogger(io.Discard, 3))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.Query(ctx, query)
	if err == nil && res.Rows != nil {
		res.Rows.Close()
	}
	return err
}

// loadWorkload loads a bundled workload with args as the command line
// does: driver options first, then the script's own.
func loadWorkload(b testing.TB, name, command string, args []string) *Script {
	b.Helper()
	opts := engine.NewGeneralOptions()
	for _, f := range db.Factories() {
		if err := opts.Register(f.Options()...); err != nil {
			b.Fatal(err)
		}
	}
	argv := append([]string{"sbgo", name, command}, args...)
	cl, err := engine.ParseCommandLine(argv[1:], opts)
	if err != nil {
		b.Fatal(err)
	}
	s, err := Load(Config{TestName: name, Command: command, Argv: argv, Out: io.Discard,
		Log: engine.NewLogger(io.Discard, 3), Options: opts, VersionString: "sbgo test", Bundled: []fs.FS{scripts.FS}})
	if err != nil {
		b.Fatal(err)
	}
	declared, hasOptions := s.DeclaredOptions()
	if err := opts.Register(declared...); err != nil {
		b.Fatal(err)
	}
	if _, err := opts.ApplyRest(cl.Rest, !hasOptions); err != nil {
		b.Fatal(err)
	}
	s.Configure(DefaultRandOptions(), 1)
	return s
}

// benchWorkload runs b.N events of the workload in one worker.
func benchWorkload(b *testing.B, name string, args []string) {
	s := loadWorkload(b, name, "run", args)
	defer s.Close()
	log := engine.NewLogger(io.Discard, 3)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	code := engine.NewRun(engine.Config{Threads: 1, Events: uint64(b.N), Percentile: 95, ForcedShutdown: -1, ThreadPolicy: ownThreads(1)}, log).Execute(s)
	elapsed := time.Since(start)
	if code != 0 {
		b.Fatalf("exit code %d", code)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}
