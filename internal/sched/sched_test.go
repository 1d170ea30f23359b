package sched

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestYieldIsGoyield fails when the default build no longer reaches the
// runtime's goyield, so that a fallback to Gosched (-tags sbgo_gosched)
// is a deliberate choice, never a silent one.
func TestYieldIsGoyield(t *testing.T) {
	name := runtime.FuncForPC(reflect.ValueOf(Yield).Pointer()).Name()
	if !linked {
		t.Skipf("built with sbgo_gosched: Yield is %s", name)
	}
	if name != "runtime.goyield" {
		t.Fatalf("Yield is %s, want runtime.goyield", name)
	}
}

// TestYieldThreadLetsOthersRun checks that a pass, locked or not, lets
// another goroutine run on the only processor and comes back.
func TestYieldThreadLetsOthersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, locked := range []bool{false, true} {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			var other atomic.Bool
			go other.Store(true)
			for !other.Load() {
				YieldThread(locked)
			}
		}()
		wg.Wait()
	}
}
