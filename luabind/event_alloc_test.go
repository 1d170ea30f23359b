package luabind

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"sbgo/engine"
)

// TestEventLoopDoesNotAllocate runs an empty event() in two workers
// (thread ids 0 and 1) for a short and a long run: the long run's extra
// events must cost no allocations, whatever the worker's id.
func TestEventLoopDoesNotAllocate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.lua")
	if err := os.WriteFile(path, []byte("function event() end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mallocs := func(events uint64) uint64 {
		log := engine.NewLogger(io.Discard, 3)
		s, err := Load(Config{TestName: path, Command: "run", Argv: []string{"sbgo", path, "run"},
			Out: io.Discard, Log: log, Options: engine.NewGeneralOptions(), VersionString: "sbgo test"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Configure(DefaultRandOptions(), 2)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code := engine.NewRun(engine.Config{Threads: 2, Events: events, Percentile: 95, ForcedShutdown: -1}, log).Execute(s)
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
