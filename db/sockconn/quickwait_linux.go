package sockconn

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// quickWaitNs is how long a read waits for its answer with the runtime's
// scheduler unaware of it (see SetQuickWait); 0: never.
var quickWaitNs atomic.Int64

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
// hence a switch for the caller. The wait is bounded by the socket's
// receive timeout, and a signal (the runtime's preemption request among
// them) ends it, so a garbage collection never waits for a worker.
func SetQuickWait(d time.Duration) { quickWaitNs.Store(int64(max(d, 0))) }

// quickRead is one raw read(2) into b, with the socket's receive timeout
// set to the quick-wait time; ok is false when the answer did not come in
// that time (or a signal came first), and the caller then reads the usual
// way.
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
	r, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	switch errno {
	case 0:
		return int(r), nil, true
	case syscall.EAGAIN, syscall.EINTR:
		// Slow answer or signal: block the usual way, without the
		// quick timeout.
		c.quickArmed.Store(0)
		setTimeout(c.fd, syscall.SO_RCVTIMEO, &syscall.Timeval{})
		return 0, nil, false
	}
	return 0, errno, true
}

// quickWrite is one raw, non-blocking send(2) of b, and returns how much
// of it the kernel took (0 on any error): the rest, if any, is written
// the usual way, which also reports the error again.
//
// Why: an OLTP statement is a few hundred bytes, which the socket's send
// buffer takes at once, so its write never has to wait; a raw call saves
// the runtime's bookkeeping for a system call that may block (entersyscall
// and exitsyscall, about 5 % of the client's user time per point select
// at 1 thread). MSG_DONTWAIT keeps it from ever blocking, whatever the
// socket's mode; a bulk INSERT larger than the buffer sends its first part
// here and the rest through Write's loop.
func (c *Conn) quickWrite(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
		syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
	if errno != 0 {
		return 0
	}
	return int(n)
}
