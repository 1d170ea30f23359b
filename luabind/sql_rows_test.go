package luabind

import (
	"runtime"
	"testing"
)

// TestResultRowsAllocateOncePerRow: a row read from a result costs one
// allocation for all its values (the string headers and bytes together),
// and con:query_row nothing else: ten query_row calls of three columns
// per event, on the canned driver, allocate ten times per event.
// (Each value was two allocations, the row a third, the result a fourth.)
func TestResultRowsAllocateOncePerRow(t *testing.T) {
	path := cannedProbe(t, `
function event()
  for i = 1, 10 do
    local a, b, c = con:query_row("SELECT i_price, i_name, i_data FROM item WHERE i_id = 5")
    assert(a == "3" and b == "2718" and c == "abcdefghijklmnopqrstuvwx")
  end
end`)
	mallocs := func(events uint64) uint64 {
		s := loadCanned(t, path)
		defer s.Close()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if code := runCanned(s, events); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	mallocs(100) // warm-up: package-level caches
	const more = 4000
	short, long := mallocs(100), mallocs(100+more)
	if perEvent := float64(long-short) / more; perEvent > 10.5 {
		t.Errorf("%.2f allocations per event of ten query_row calls, want 10", perEvent)
	}
}
