package main

import (
	"testing"
	"time"

	"sbgo/engine"
)

// The quick wait is the longer one from engine.SpareProcWorkers on, where
// statements wait long enough that the short one would fall back often,
// and the short one below it.
func TestQuickWaitLongerFromSpareProcWorkers(t *testing.T) {
	n := engine.SpareProcWorkers()
	for threads, want := range map[int]time.Duration{1: quickWait, n - 1: quickWait, n: quickWaitMany, n + 1: quickWaitMany} {
		if got := quickWaitFor(threads); got != want {
			t.Errorf("quickWaitFor(%d) = %v, want %v", threads, got, want)
		}
	}
}
