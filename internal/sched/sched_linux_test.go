package sched

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestYieldThreadKeepsThread: a worker resumes on its OS thread
// after YieldThread, locked to it or not, even while another
// goroutine keeps the global run queue busy; through Gosched the workers
// would trade threads there. Locked workers get an idle processor beside
// them, as one worker on two CPUs has in a run, which Gosched would hand
// to another thread.
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
		procs++ // an idle processor beside the locked workers
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

// TestPreemptedYieldThreadSleepsNot: a locked goroutine whose raw system
// call was cut short by the runtime's preemption signal (the quick reads'
// case) meets the pending request in YieldThread's pass without its thread
// going to sleep. With a stack check before the unlock, the runtime handed
// the locked goroutine to another thread and back, and the thread slept
// (a voluntary context switch) for every such pass. One processor, so that
// nothing else can take the goroutine in between.
func TestPreemptedYieldThreadSleepsNot(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	done := make(chan [2]int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var preempted, slept int
		for range 40 {
			if rawSleepCutShort(50 * time.Millisecond) {
				before := threadVoluntarySwitches()
				YieldThread(true)
				if threadVoluntarySwitches() != before {
					slept++
				}
				preempted++
			}
		}
		done <- [2]int{preempted, slept}
	}()
	r := <-done
	preempted, slept := r[0], r[1]
	if preempted < 10 {
		t.Fatalf("only %d of 40 raw sleeps were cut short by a preemption signal, want at least 10", preempted)
	}
	if slept > preempted/5 {
		t.Errorf("the thread slept in %d of %d passes after a preemption signal, want at most a fifth", slept, preempted)
	}
	t.Logf("%d preempted passes, %d with the thread asleep", preempted, slept)
}

// rawSleepCutShort sleeps up to d in a raw nanosleep(2), which the
// scheduler takes for running Go code, and reports whether a signal (the
// runtime's preemption request, sent after 10 ms) ended it early. It and
// its callees until the pass must not check the stack: it is what the
// test is about.
//
//go:nosplit
func rawSleepCutShort(d time.Duration) bool {
	ts := syscall.NsecToTimespec(int64(d))
	_, _, errno := syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	return errno == syscall.EINTR
}

// threadVoluntarySwitches is the calling thread's count of voluntary
// context switches (getrusage(2) RUSAGE_THREAD), read with a raw system
// call and no stack check, so that reading it never meets a pending
// preemption request.
//
//go:nosplit
func threadVoluntarySwitches() int64 {
	var ru syscall.Rusage
	syscall.RawSyscall(syscall.SYS_GETRUSAGE, rusageThread, uintptr(unsafe.Pointer(&ru)), 0)
	return ru.Nvcsw
}

// rusageThread is getrusage(2)'s RUSAGE_THREAD, which package syscall
// does not name.
const rusageThread = 1
