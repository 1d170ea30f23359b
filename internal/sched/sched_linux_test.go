package sched

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
)

// TestYieldThreadKeepsThread: a worker resumes on its OS thread
// after YieldThread, locked to it or not, even while another
// goroutine keeps the global run queue busy; through Gosched the workers
// would trade threads there. Locked workers get a spare processor beside
// them, as in a run, which Gosched would hand to another thread.
func TestYieldThreadKeepsThread(t *testing.T) {
	const workers, yields = 2, 3000
	for _, locked := range []bool{false, true} {
		if moved := yieldsThatMoveWorkers(workers, yields, locked); moved > workers*yields/100 {
			t.Errorf("locked=%v: %d of %d yields resumed the worker on another OS thread, want at most 1 %%", locked, moved, workers*yields)
		}
	}
}

// yieldsThatMoveWorkers runs workers goroutines that each call
// YieldThread(locked) yields times beside one that keeps the global
// run queue busy, and counts the yields after which a worker ran on
// another OS thread.
func yieldsThatMoveWorkers(workers, yields int, locked bool) int {
	procs := workers
	if locked {
		procs++ // the spare processor of a run with locked workers
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	stop := make(chan struct{})
	var churn, wg sync.WaitGroup
	churn.Add(1)
	go func() { // always runnable, and never on a P for long
		defer churn.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	moved := make([]int, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			for range yields {
				tid := syscall.Gettid()
				YieldThread(locked)
				if syscall.Gettid() != tid {
					moved[i]++
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	churn.Wait()
	total := 0
	for _, n := range moved {
		total += n
	}
	return total
}
