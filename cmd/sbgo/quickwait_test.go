package main

import (
	"testing"

	"sbgo/engine"
)

// The quick wait is the longer one exactly where the workers get no spare
// processor.
func TestQuickWaitFollowsSpareProcessor(t *testing.T) {
	n := engine.SpareProcWorkers()
	if got := quickWaitFor(n); got != quickWait {
		t.Errorf("quickWaitFor(%d) = %v, want %v", n, got, quickWait)
	}
	if got := quickWaitFor(n + 1); got != quickWaitMany {
		t.Errorf("quickWaitFor(%d) = %v, want %v", n+1, got, quickWaitMany)
	}
}
