package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: the collector's starting pace follows the thread count,
// paceGC adjusts it up to 64 threads, and GOGC in the environment wins.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	for _, tt := range []struct {
		threads, want, ceiling int
	}{
		{1, 1600, 1600}, {fewRunThreads, 1600, 1600}, {fewRunThreads + 1, 400, 400}, {smallRunThreads, 400, 400},
		{smallRunThreads + 1, 100, 0}, {largeRunThreads - 1, 100, 0}, {largeRunThreads, 25, 0}, {4096, 25, 0},
	} {
		debug.SetGCPercent(100)
		ceiling := tuneGC(tt.threads)
		if got := debug.SetGCPercent(100); got != tt.want || ceiling != tt.ceiling {
			t.Errorf("%d threads: GC percent %d and pacing ceiling %d, want %d and %d", tt.threads, got, ceiling, tt.want, tt.ceiling)
		}
	}
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	if ceiling := tuneGC(1); ceiling != 0 {
		t.Errorf("with GOGC=150: pacing ceiling %d, want 0 (no pacing)", ceiling)
	}
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("with GOGC=150: GC percent %d, want 150 kept", got)
	}
}

// TestGCPercentFor: the heap may grow by what is allocated in
// gcMinInterval, between Go's default and the ceiling, and a small live
// heap counts as Go's smallest.
func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	perInterval := func(bytes float64) float64 { return bytes / gcMinInterval.Seconds() }
	for _, tt := range []struct {
		name    string
		rate    float64
		live    uint64
		ceiling int
		want    int
	}{
		{"idle", 0, 5 * mb, 1600, 100},
		{"round-trip pace: 33 MB/s over 5 MB live", 33 * mb, 5 * mb, 1600, 100},
		{"half the live heap per interval", perInterval(5 * mb), 10 * mb, 1600, 100},
		{"three live heaps per interval", perInterval(30 * mb), 10 * mb, 1600, 300},
		{"Lua-bound pace over a small live heap", perInterval(32 * mb), 2 * mb, 1600, 800},
		{"beyond the ceiling", perInterval(400 * mb), 4 * mb, 400, 400},
	} {
		if got := gcPercentFor(tt.rate, tt.live, tt.ceiling); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
