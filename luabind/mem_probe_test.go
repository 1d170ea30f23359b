package luabind

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"sbgo/engine"
)

// BenchmarkStateMemory reports the heap one worker's Lua state holds once
// the script has run in it: with --threads in the thousands, this is most
// of sbgo's memory.
func BenchmarkStateMemory(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "x.lua")
	if err := os.WriteFile(path, []byte("function event() end\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	log := engine.NewLogger(io.Discard, 3)
	s, err := Load(Config{TestName: path, Command: "run", Argv: []string{"sbgo"}, Out: io.Discard, Log: log, Options: engine.NewGeneralOptions()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100
	var before, after runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		states := make([]*state, n)
		for j := range states {
			st := s.newState(1, nil, NewRand(1, &s.randOpts))
			if err := st.runChunk(); err != nil {
				b.Fatal(err)
			}
			st.exportOptions()
			states[j] = st
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n/1024, "KB/state")
		runtime.KeepAlive(states)
	}
}
