// Package sched holds the one pass through Go's scheduler that workers
// owning their OS threads make (engine's per-statement yield, sockconn's
// answer to a signal that cut a quick read short), so that both reach the
// runtime the same way and neither imports the other.
package sched

import "runtime"

// YieldThread passes the calling goroutine, which owns its OS thread,
// through the scheduler and resumes it there as a rule; locked tells
// whether it is locked to that thread (runtime.LockOSThread). A locked
// goroutine is unlocked for the pass, so that it is never handed off
// between threads, and locked again after it.
//
// It is nosplit because a pass is often the answer to a preemption
// request (the signal that cut a quick read short), which the runtime
// meets at the first stack check it finds: with a check at YieldThread's
// entry, that was before the unlock, and the runtime handed the locked
// goroutine from thread to thread (four futex calls and two thread
// switches). Without it the request is met in the pass itself, unlocked
// (docs/performance.md, "Passes through the scheduler").
//
//go:nosplit
func YieldThread(locked bool) {
	if locked {
		runtime.UnlockOSThread()
	}
	Yield()
	if locked {
		runtime.LockOSThread()
	}
}
