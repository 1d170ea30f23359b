package sockconn

import (
	"sync/atomic"
	"syscall"
	"time"

	"sbgo/internal/sched"
)

// quickWaitNs is how long a read waits for its answer with the runtime's
// scheduler unaware of it (see SetQuickWait); 0: never.
var quickWaitNs atomic.Int64

// quickLocked tells whether the readers that wait in quick reads are
// locked to their OS threads (see SetQuickWait).
var quickLocked atomic.Bool

// SetQuickWait makes reads without a deadline wait up to d for their
// answer in a read(2) the runtime's scheduler does not see, before they
// block the usual way; 0 turns it off.
//
// Why: a goroutine in a system call is one the runtime watches. Leaving
// the call wakes the sysmon thread when it sleeps (a futex wake per round
// trip), and sysmon then polls every 20 µs and takes the processor (P) of
// a call that lasts, so that a MySQL round trip cost the client more
// system time than a C client's. A raw system call is invisible to the
// scheduler: the goroutine keeps its P and resumes, as a C thread does.
// That is only right while every waiting goroutine has a P of its own to
// keep (workers that own OS threads, GOMAXPROCS above their number),
// hence a switch for the caller, which decides it with the run's
// engine.ThreadPolicy (QuickWait, Locked). The wait is bounded by the socket's
// receive timeout, and a signal (the runtime's preemption request among
// them) ends it for a pass through the scheduler (see yieldThread), so a
// garbage collection never waits for a worker. locked tells whether the
// readers are locked to their OS threads (runtime.LockOSThread), which
// that pass has to keep as it found them (sched.YieldThread).
func SetQuickWait(d time.Duration, locked bool) {
	quickLocked.Store(locked)
	quickWaitNs.Store(int64(max(d, 0)))
}

// quickYieldEvery is how often a reader that waits in quick reads passes
// through the scheduler of its own accord, before a read: half the
// runtime's 10 ms time slice, so that sysmon asks it to stop (with a
// signal that cuts the read short, see yieldThread) only when a single
// read lasts more than 5 ms.
//
// Why: a worker in a raw read keeps its P "running" as far as sysmon
// knows, and engine's per-event yield comes too seldom where one event
// waits for many statements (64 workers on 2 CPUs, oltp_read_write: 1.3
// signals per transaction, 0.86 with these yields). Only with a quick
// wait longer than this: a shorter one falls back to a read the scheduler
// sees before these yields would be due (docs/performance.md, "Passes
// through the scheduler").
const quickYieldEvery = 5 * time.Millisecond

// quickEpoch is the origin of Conn.quickYieldAt: time.Since reads the
// monotonic clock.
var quickEpoch = time.Now()

// quickRead is one raw recv(2) into b, with the socket's receive timeout
// set to the quick-wait time, repeated after a signal; ok is false when
// the answer did not come in that time, and the caller then reads the
// usual way.
func (c *Conn) quickRead(b []byte) (n int, err error, ok bool) {
	wait := quickWaitNs.Load()
	if wait == 0 || len(b) == 0 {
		return 0, nil, false
	}
	if c.quickArmed.Load() != wait {
		tv := syscall.NsecToTimeval(wait)
		if setTimeout(c.fd, syscall.SO_RCVTIMEO, &tv) != nil {
			return 0, nil, false
		}
		c.quickArmed.Store(wait)
	}
	if wait > int64(quickYieldEvery) {
		if now := time.Since(quickEpoch); now >= c.quickYieldAt {
			c.quickYieldAt = now + quickYieldEvery
			yieldThread()
		}
	}
	for {
		r, errno := rawRecv(uintptr(c.fd), b)
		switch errno {
		case 0:
			return r, nil, true
		case syscall.EINTR:
			yieldThread()
		case syscall.EAGAIN:
			// Slow answer: block the usual way, without the quick
			// timeout.
			c.quickArmed.Store(0)
			setTimeout(c.fd, syscall.SO_RCVTIMEO, &syscall.Timeval{})
			return 0, nil, false
		default:
			return 0, errno, true
		}
	}
}

// quickWrite is one raw, non-blocking send(2) of b, and returns how much
// of it the kernel took (0 on any error): the rest, if any, is written
// the usual way, which also reports the error again.
//
// Why: an OLTP statement is a few hundred bytes, which the socket's send
// buffer takes at once, so its write never has to wait; a raw call saves
// the runtime's bookkeeping for a system call that may block (entersyscall
// and exitsyscall, about 5 % of the client's user time per point select
// at 1 thread; docs/performance.md, "The MySQL protocol"). MSG_DONTWAIT keeps it from ever blocking, whatever the
// socket's mode; a bulk INSERT larger than the buffer sends its first part
// here and the rest through Write's loop.
func (c *Conn) quickWrite(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, errno := rawSend(uintptr(c.fd), b, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	if errno != 0 {
		return 0
	}
	return n
}

// yieldThread answers a signal that cut a quick read short: the reading
// goroutine, which owns its OS thread (see SetQuickWait), passes through
// the scheduler and then waits in a raw read again.
//
// Why: the signal is nearly always the runtime asking the goroutine to
// stop (sysmon's preemption of a P "running" for 10 ms, a stop-the-world
// or a stack scan of the garbage collector), and the request stays
// pending until it is met. A pass through the scheduler meets it at once,
// with no hand-off between threads (see sched.YieldThread). Falling back
// to a read the scheduler sees left the request pending until after the
// answer, when a locked goroutine is handed from thread to thread
// (docs/performance.md, "Passes through the scheduler").
func yieldThread() { sched.YieldThread(quickLocked.Load()) }
