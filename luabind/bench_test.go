package luabind

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sbgo/engine"
)

// benchScript runs event() of src b.N times in one worker through the
// real engine and reports events per second per thread. These are the
// engine-overhead probes of the side-by-side bench (an empty event, and
// the per-event Lua work of an oltp_* script without SQL); sysbench
// 1.0.20 on LuaJIT does about 10 M/s and 0.5 M/s on our 2-core machines.
func benchScript(b *testing.B, src string) { benchScriptWith(b, src, false) }

// benchScriptWith is benchScript, with series recording (a results
// file's) on or off.
func benchScriptWith(b *testing.B, src string, series bool) {
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	opts := engine.NewGeneralOptions()
	log := engine.NewLogger(io.Discard, 3)
	s, err := Load(Config{TestName: path, Command: "run", Argv: []string{"sbgo", path, "run"},
		Out: io.Discard, Log: log, Options: opts, VersionString: "sbgo test"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.Configure(DefaultRandOptions(), 1)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	code := engine.NewRun(engine.Config{Threads: 1, Events: uint64(b.N), Percentile: 95, ForcedShutdown: -1, Series: series}, log).Execute(s)
	elapsed := time.Since(start)
	if code != 0 {
		b.Fatalf("exit code %d", code)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}

func BenchmarkEventEmpty(b *testing.B) {
	benchScript(b, "function event() end\n")
}

// BenchmarkEventEmptySeries is BenchmarkEventEmpty recording what a
// results file needs: every latency goes through the worker's ring.
func BenchmarkEventEmptySeries(b *testing.B) {
	benchScriptWith(b, "function event() end\n", true)
}

// The same Lua work per event as ../shared/bench/lua/oltp_like_event.lua:
// 10 x rand.default, 10 x string.format of point-select SQL, one random
// 120-char c string and one concatenated UPDATE.
const oltpLikeEvent = `
local c_tmpl = "###########-###########-###########-###########-###########-" ..
               "###########-###########-###########-###########-###########"
local fmt = string.format
local sink = 0
function event()
  local rand = sysbench.rand.default
  local id
  for i = 1, 10 do
    id = rand(1, 100000)
    local q = fmt("SELECT c FROM sbtest%d WHERE id=%d", id % 4 + 1, id)
    sink = sink + #q
  end
  local c = sysbench.rand.string(c_tmpl)
  local q = "UPDATE sbtest" .. (id % 4 + 1) .. " SET c='" .. c .. "' WHERE id=" .. id
  sink = sink + #q
end
`

func BenchmarkEventOLTPLike(b *testing.B) {
	benchScript(b, oltpLikeEvent)
}
