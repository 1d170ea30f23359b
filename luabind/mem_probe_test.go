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
	reportHeapPerItem(b, 100, "KB/state", func(int) func() {
		st := s.newState(1, nil, NewRand(1, &s.randOpts))
		if err := st.runChunk(); err != nil {
			b.Fatal(err)
		}
		st.exportOptions()
		return func() { runtime.KeepAlive(st) }
	})
}

// reportHeapPerItem reports, as metric unit, the live heap that n items
// made by newItem hold each, measured between two collections. newItem(j)
// returns the item's release, called once the heap is measured, which
// also keeps the item alive until then.
func reportHeapPerItem(b *testing.B, n int, unit string, newItem func(j int) func()) {
	var before, after runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		releases := make([]func(), n)
		for j := range releases {
			releases[j] = newItem(j)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n)/1024, unit)
		for _, release := range releases {
			release()
		}
	}
}

// BenchmarkWorkerMemory reports the heap one run worker of the bundled
// oltp_point_select holds after thread_init, session and prepared
// statements included, on the local MariaDB (database sbgo_bench, as
// BenchmarkWorkloadEvent): the figure that --threads=4096 multiplies.
// It measures 100 workers, which stay under the 151 sessions a MariaDB
// allows by default (max_connections) with room for other clients.
//
//	go test -run '^$' -bench WorkerMemory -benchtime=1x ./luabind
func BenchmarkWorkerMemory(b *testing.B) {
	args := []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db=sbgo_bench", "--tables=1", "--table-size=10000"}
	if err := adminQuery("mysql", []string{"--mysql-host=127.0.0.1", "--mysql-user=root", "--mysql-db="}, "CREATE DATABASE IF NOT EXISTS sbgo_bench"); err != nil {
		b.Skipf("no mysql server: %v", err)
	}
	for _, cmd := range []string{"cleanup", "prepare"} {
		s := loadWorkload(b, "oltp_point_select", cmd, args)
		if err := runCommand(s, cmd); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	s := loadWorkload(b, "oltp_point_select", "run", args)
	defer s.Close()
	reportHeapPerItem(b, 100, "KB/worker", func(j int) func() {
		w, err := s.NewThread(j+1, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Init(); err != nil {
			b.Fatal(err)
		}
		return w.Close
	})
}
