package engine

// Tests that tell OS threads apart by their id (gettid(2)): Linux only,
// the thread policy they check is the same on every system.

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestOSThreadPerWorker checks that with a policy of own threads each
// worker keeps its OS thread through its events (between them, a yield
// may move it to another), that GOMAXPROCS is a processor per worker
// during the run, never fewer than before it, and that it is restored.
func TestOSThreadPerWorker(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	threads := min(3, osThreadWorkersPerCPU*runtime.NumCPU())
	var mu sync.Mutex
	workers := map[int]bool{} // workers seen
	moved := map[int]bool{}   // worker -> seen on another OS thread within an event
	procs := map[int]bool{}   // GOMAXPROCS values seen inside events
	w := &fakeWorkload{event: func(tid, n int) (bool, error) {
		first := syscall.Gettid()
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
		last := syscall.Gettid()
		mu.Lock()
		defer mu.Unlock()
		procs[runtime.GOMAXPROCS(0)] = true
		workers[tid] = true
		if first != last {
			moved[tid] = true
		}
		return false, nil
	}}
	code, out := execute(t, Config{Threads: threads, Events: 300, ThreadPolicy: ownThreads(threads)}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if len(workers) != threads || len(moved) != 0 {
		t.Errorf("workers seen: %v, moved to another OS thread within an event: %v", workers, moved)
	}
	want := max(before, threads)
	if len(procs) != 1 || !procs[want] {
		t.Errorf("GOMAXPROCS during the run: %v, want %d", procs, want)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after the run: %d, want %d restored", after, before)
	}

	w.event = func(tid, n int) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		procs[runtime.GOMAXPROCS(0)] = true
		return false, nil
	}

	// Beyond lockedWorkersPerCPU workers per CPU, unlocked, there is
	// still a processor per worker.
	unlocked := lockedWorkersPerCPU*runtime.NumCPU() + 1
	procs = map[int]bool{}
	if code, out := execute(t, Config{Threads: unlocked, Events: 100, ThreadPolicy: ownThreads(unlocked)}, w); code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if want := max(before, unlocked); len(procs) != 1 || !procs[want] {
		t.Errorf("GOMAXPROCS with %d workers: %v, want %d", unlocked, procs, want)
	}

	// Above osThreadWorkersPerCPU workers per CPU the runtime's default
	// stays.
	many := osThreadWorkersPerCPU*runtime.NumCPU() + 1
	procs = map[int]bool{}
	if code, out := execute(t, Config{Threads: many, Events: 100, ThreadPolicy: ownThreads(many)}, w); code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if len(procs) != 1 || !procs[before] {
		t.Errorf("GOMAXPROCS with %d workers: %v, want %d unchanged", many, procs, before)
	}
}

// TestLockedWorkersYield: a worker that owns its OS thread passes through
// the scheduler from Events.Count once lockedYieldEvery has gone by, which
// moves its next yield on by that much, and is locked to a thread again
// afterwards; other workers never do.
func TestLockedWorkersYield(t *testing.T) {
	for _, locked := range []bool{true, false} {
		var mu sync.Mutex
		due := map[int][2]int64{} // worker -> yieldAt before and after its last Count
		unstuck := map[int]bool{} // worker -> left its OS thread within an event
		w := &fakeWorkload{
			// Each event outlasts lockedYieldEvery, so its Count is due.
			sleepy: time.Duration(lockedYieldEvery) + time.Millisecond,
			count: func(ev *Events) {
				before := ev.yieldAt
				ev.Count(CounterRead) // it yields here when locked
				after := ev.yieldAt
				first := syscall.Gettid()
				runtime.Gosched()
				moved := syscall.Gettid() != first
				mu.Lock()
				defer mu.Unlock()
				due[ev.ID()] = [2]int64{before, after}
				unstuck[ev.ID()] = unstuck[ev.ID()] || moved
			},
		}
		var p ThreadPolicy
		if locked {
			p = ownThreads(2)
		}
		code, out := execute(t, Config{Threads: 2, Events: 6, ThreadPolicy: p}, w)
		if code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if len(due) != 2 {
			t.Fatalf("locked %v: events of %d workers recorded, want 2", locked, len(due))
		}
		for id, d := range due {
			before, after := d[0], d[1]
			switch {
			case !locked && (before != 0 || after != 0):
				t.Errorf("worker %d without an OS thread of its own: yieldAt %d -> %d, want 0", id, before, after)
			case locked && (before == 0 || after < before+lockedYieldEvery):
				t.Errorf("worker %d: yieldAt %d -> %d, want it moved on by at least %d", id, before, after, lockedYieldEvery)
			case locked && unstuck[id]:
				t.Errorf("worker %d left its OS thread after a yield", id)
			}
		}
	}
}
