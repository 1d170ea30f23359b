package sqlite

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// busyConns finds the conn of a busy handler's call: SQLite hands the
// handler only the pointer-sized argument it was registered with, here
// the conn's id. Looked up only while a lock is being waited for.
var (
	busyConns sync.Map // uintptr -> *conn
	busyIDs   atomic.Uintptr
)

// busyDelays are the sleeps before each retry, in µs; the last one
// repeats. SQLite's own handler sleeps up to 100 ms between tries: with
// several writers, one of them then starves for seconds while the others
// take the lock in turn. Short sleeps keep the waits in order of arrival
// roughly, at the cost of a few more tries.
var busyDelays = [...]int{50, 100, 200, 500, 1000}

// setBusyHandler makes c wait for locks with busyHandler, which tries
// again after the busyDelays up to --sqlite-busy-timeout and gives up as
// soon as the context of the call ends (SQLite's own sleeps through it).
func (c *conn) setBusyHandler() {
	if c.id == 0 {
		c.id = busyIDs.Add(1)
	}
	busyConns.Store(c.id, c)
	lib.Xsqlite3_busy_handler(c.tls, c.db, cFunc(busyHandler), c.id)
}

// busyHandler is called by SQLite with the number of times it was
// called for the same lock; it returns 1 to try again after its sleep,
// 0 to give up (the statement fails with SQLITE_BUSY). It runs on the
// goroutine of the call, so reading callDone needs no lock.
func busyHandler(_ *libc.TLS, id uintptr, count int32) int32 {
	v, ok := busyConns.Load(id)
	if !ok {
		return 0
	}
	c := v.(*conn)
	delay, waited := busyDelay(int(count))
	if left := c.d.s.busyTimeout*1000 - waited; left <= 0 {
		return 0
	} else if delay > left {
		delay = left
	}
	t := time.NewTimer(time.Duration(delay) * time.Microsecond)
	defer t.Stop()
	select {
	case <-c.callDone: // nil (never ready) for a call without a context
		return 0
	case <-t.C:
		return 1
	}
}

// busyDelay is the sleep before retry n and the time slept before it,
// in µs.
func busyDelay(n int) (delay, waited int) {
	for i := 0; i < n; i++ {
		waited += busyDelays[min(i, len(busyDelays)-1)]
	}
	return busyDelays[min(n, len(busyDelays)-1)], waited
}

// cFunc is the C function pointer of a Go function declared at the top
// level, as the translated code calls it.
func cFunc[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}
