package main

import (
	"runtime/debug"
	"testing"
)

// TestGCPolicy: the collector's starting pace follows the thread count,
// and paceGC adjusts it up to 64 threads only.
func TestGCPolicy(t *testing.T) {
	for _, tt := range []struct {
		threads, percent, ceiling int
	}{
		{1, 1600, 1600}, {fewRunThreads, 1600, 1600}, {fewRunThreads + 1, 400, 400}, {smallRunThreads, 400, 400},
		{smallRunThreads + 1, 100, 0}, {largeRunThreads - 1, 100, 0}, {largeRunThreads, 25, 0}, {4096, 25, 0},
	} {
		if percent, ceiling := gcPolicy(tt.threads); percent != tt.percent || ceiling != tt.ceiling {
			t.Errorf("%d threads: GC percent %d and pacing ceiling %d, want %d and %d", tt.threads, percent, ceiling, tt.percent, tt.ceiling)
		}
	}
}

// TestTuneGC: tuneGC sets the policy's percentage, a sweep's later step
// with thousands of threads stops the pacing, and GOGC in the
// environment wins.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	tuneGC(largeRunThreads)
	if got := debug.SetGCPercent(25); got != 25 || gcPaceCeilingNow() != 0 {
		t.Errorf("%d threads: GC percent %d, pacing ceiling %d; want 25 and no pacing", largeRunThreads, got, gcPaceCeilingNow())
	}
	tuneGC(1)
	if c := gcPaceCeilingNow(); c != 1600 {
		t.Errorf("1 thread: pacing ceiling %d, want 1600", c)
	}
	t.Setenv("GOGC", "150")
	tuneGC(1) // stops the pacing started above before the percentage is set
	debug.SetGCPercent(150)
	tuneGC(1)
	if got := debug.SetGCPercent(100); got != 150 || gcPaceCeilingNow() != 0 {
		t.Errorf("with GOGC=150: GC percent %d, pacing ceiling %d; want 150 kept and no pacing", got, gcPaceCeilingNow())
	}
}

// gcPaceCeilingNow reads the pacer's ceiling.
func gcPaceCeilingNow() int {
	gcPace.Lock()
	defer gcPace.Unlock()
	return gcPace.ceiling
}

// TestGCPercentFor: the heap may grow by what is allocated in
// gcMinInterval, between gcFloorPercent and the ceiling, and a small live
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
		{"idle", 0, 5 * mb, 1600, gcFloorPercent},
		{"round-trip pace: 33 MB/s over 5 MB live", 33 * mb, 5 * mb, 1600, gcFloorPercent},
		{"half the live heap per interval", perInterval(5 * mb), 10 * mb, 1600, gcFloorPercent},
		{"three live heaps per interval", perInterval(30 * mb), 10 * mb, 1600, gcFloorPercent},
		{"six live heaps per interval", perInterval(60 * mb), 10 * mb, 1600, 600},
		{"Lua-bound pace over a small live heap", perInterval(32 * mb), 2 * mb, 1600, 800},
		{"beyond the ceiling", perInterval(400 * mb), 4 * mb, 400, 400},
		{"a ceiling below the floor", 0, 4 * mb, 200, 200},
	} {
		if got := gcPercentFor(tt.rate, tt.live, tt.ceiling); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
