package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: the collector's pace follows the thread count, and GOGC in
// the environment wins.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	for _, tt := range []struct {
		threads, want int
	}{
		{1, 1600}, {fewRunThreads, 1600}, {fewRunThreads + 1, 400}, {smallRunThreads, 400}, {smallRunThreads + 1, 100}, {largeRunThreads - 1, 100}, {largeRunThreads, 25}, {4096, 25},
	} {
		debug.SetGCPercent(100)
		tuneGC(tt.threads)
		if got := debug.SetGCPercent(100); got != tt.want {
			t.Errorf("%d threads: GC percent %d, want %d", tt.threads, got, tt.want)
		}
	}
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	tuneGC(1)
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("with GOGC=150: GC percent %d, want 150 kept", got)
	}
}
