package luabind

import (
	"io"
	"os"
	"runtime"
	"testing"

	"sbgo/engine"
)

// TestEventLoopDoesNotAllocate runs an empty event() in two workers
// (thread ids 0 and 1) for a short and a long run: the long run's extra
// events must cost no allocations, whatever the worker's id.
func TestEventLoopDoesNotAllocate(t *testing.T) {
	mallocs := func(events uint64) uint64 {
		s := loadScriptFile(t, "function event() end\n", nil, io.Discard)
		s.Configure(DefaultRandOptions(), 2)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code := engine.NewRun(engine.Config{Threads: 2, Events: events, Percentile: 95, ForcedShutdown: -1},
			engine.NewLogger(io.Discard, 3)).Execute(s)
		runtime.ReadMemStats(&after)
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
		return after.Mallocs - before.Mallocs
	}
	mallocs(1000) // warm-up: package-level caches
	short, long := mallocs(1000), mallocs(41000)
	if long > short && float64(long-short)/40000 > 0.01 {
		t.Errorf("%d allocations for 40 000 more events (%.3f per event)", long-short, float64(long-short)/40000)
	}
}

// TestBundledEventsDoNotAllocate: events of the bundled oltp_point_select
// and oltp_read_only on the local MariaDB, in two workers, cost no
// allocations: their statement loops, random draws and results reuse what
// the first event made. The tables (1 x 1000 rows) live in a database of
// their own, sbgo_alloc.
func TestBundledEventsDoNotAllocate(t *testing.T) {
	root := []string{"--mysql-host=127.0.0.1", "--mysql-user=root"}
	if err := adminQuery("mysql", append(root, "--mysql-db="), "CREATE DATABASE IF NOT EXISTS sbgo_alloc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MariaDB on 127.0.0.1:3306 is needed: %v", err)
		}
		t.Skipf("no MariaDB on 127.0.0.1:3306: %v", err)
	}
	t.Cleanup(func() { adminQuery("mysql", append(root, "--mysql-db="), "DROP DATABASE IF EXISTS sbgo_alloc") })
	args := append(root, "--db-driver=mysql", "--mysql-db=sbgo_alloc", "--tables=1", "--table-size=1000")
	for _, cmd := range []string{"cleanup", "prepare"} {
		s := loadWorkload(t, "oltp_read_only", cmd, args)
		if err := runCommand(s, cmd); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	for _, w := range []struct {
		name  string
		short uint64
	}{{"oltp_point_select", 500}, {"oltp_read_only", 50}} {
		mallocs := func(events uint64) uint64 {
			s := loadWorkload(t, w.name, "run", args)
			defer s.Close()
			s.Configure(DefaultRandOptions(), 2)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code := engine.NewRun(engine.Config{Threads: 2, Events: events, Percentile: 95, ForcedShutdown: -1, ThreadPolicy: ownThreads(2)},
				engine.NewLogger(io.Discard, 3)).Execute(s)
			runtime.ReadMemStats(&after)
			if code != 0 {
				t.Fatalf("%s: exit code %d", w.name, code)
			}
			return after.Mallocs - before.Mallocs
		}
		mallocs(w.short) // warm-up: package-level caches
		more := 10 * w.short
		short, long := mallocs(w.short), mallocs(w.short+more)
		// The run's own goroutines (reports, timers) allocate now and
		// then as time passes, which the longer run's extra seconds
		// show (0.05 per event once under -race); an allocation per
		// event shows as 1.
		if long > short && float64(long-short)/float64(more) > 0.25 {
			t.Errorf("%s: %d allocations for %d more events (%.3f per event)", w.name, long-short, more, float64(long-short)/float64(more))
		}
	}
}

// ownThreads is the thread policy of a run of threads workers whose
// sessions block, as the command line decides it.
func ownThreads(threads int) engine.ThreadPolicy {
	return engine.DecideThreadPolicy(threads, runtime.NumCPU(), func(engine.ThreadPolicy) bool { return true })
}
