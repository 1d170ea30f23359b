package luabind

import (
	"io"
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
