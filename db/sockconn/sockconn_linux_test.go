package sockconn

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestShortWrites: a signal that interrupts a blocked write(2) after part
// of the buffer went out ends it with a short count; Write must go on
// with the rest. The writer's thread is sent signals (SIGURG, which the
// runtime ignores unless it asked for a preemption) while a slow reader
// drains a socket pair with small buffers.
func TestShortWrites(t *testing.T) {
	msg := make([]byte, 1<<20)
	for i := range msg {
		msg[i] = byte(i * 13)
	}

	// First check that raw write(2) calls do come back short here,
	// otherwise the test proves nothing.
	short := func(t *testing.T, write func(fd int, b []byte) (int, error)) (int, []byte, error) {
		fds := smallSocketPair(t)
		got := make(chan []byte, 1)
		go func() {
			var buf bytes.Buffer
			chunk := make([]byte, 4096)
			for {
				n, err := syscall.Read(fds[1], chunk)
				if n <= 0 || err != nil {
					got <- buf.Bytes()
					return
				}
				buf.Write(chunk[:n])
				time.Sleep(20 * time.Microsecond)
			}
		}()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		stop := signalThread(syscall.Gettid())
		n, err := write(fds[0], msg)
		stop()
		syscall.Shutdown(fds[0], syscall.SHUT_WR)
		return n, <-got, err
	}
	if n, _, err := short(t, syscall.Write); err != nil || n == len(msg) {
		t.Skipf("write(2) was not cut short (n=%d of %d, err=%v)", n, len(msg), err)
	}

	n, got, err := short(t, func(fd int, b []byte) (int, error) {
		c := newConn(fd, "unix", &net.UnixAddr{Net: "unix"}, &net.UnixAddr{Net: "unix"})
		return c.Write(b)
	})
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("the reader got %d bytes that differ from the %d written", len(got), len(msg))
	}
}

// smallSocketPair is a connected Unix stream socket pair with send and
// receive buffers as small as the kernel allows, closed at the end of the
// test.
func smallSocketPair(t *testing.T) [2]int {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	for _, fd := range fds {
		syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1)
		syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1)
	}
	return fds
}

// signalThread sends SIGURG to thread tid every 50µs until the returned
// function is called.
func signalThread(tid int) (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	pid := syscall.Getpid()
	go func() {
		defer close(finished)
		for !done.Load() {
			syscall.Tgkill(pid, tid, syscall.SIGURG)
			time.Sleep(50 * time.Microsecond)
		}
	}()
	return func() { done.Store(true); <-finished }
}

var _ io.Writer = (*Conn)(nil)

// TestCloseOnce: only the first Close closes the descriptor, so a
// second one cannot close a file that has since taken its number.
func TestCloseOnce(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[1])
	fd := fds[0]
	c := newConn(fd, "unix", &net.UnixAddr{Net: "unix"}, &net.UnixAddr{Net: "unix"})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The closed number now names /dev/null (open takes the lowest free
	// number, which is likely fd already).
	if int(f.Fd()) != fd {
		if err := syscall.Dup3(int(f.Fd()), fd, syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno != 0 {
		t.Errorf("the file that took the descriptor's number was closed: %v", errno)
	}
}

// quickWaitFor turns SetQuickWait on for the test.
func quickWaitFor(t *testing.T, d time.Duration) {
	SetQuickWait(d, true)
	t.Cleanup(func() { SetQuickWait(0, false) })
}

// Quick reads take answers that come at once with a raw read(2); a slow
// answer, a deadline and a cleared deadline still behave as without them.
func TestQuickReads(t *testing.T) {
	runtime.LockOSThread() // quick reads are for readers that own their thread
	defer runtime.UnlockOSThread()
	quickWaitFor(t, 20*time.Millisecond)
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted
	buf := make([]byte, 64)

	if _, err := peer.Write([]byte("fast")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // the answer is there before the read
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "fast" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if got := c.quickArmed.Load(); got != int64(20*time.Millisecond) {
		t.Fatalf("quick timeout armed: %d, want the quick read to have set it", got)
	}
	// A quick read passes through the scheduler when its time has come
	// (and sets the next time), not before.
	readNext := func() {
		t.Helper()
		if _, err := peer.Write([]byte("next")); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Read(buf); err != nil || string(buf[:n]) != "next" {
			t.Fatalf("Read = %q, %v", buf[:n], err)
		}
	}
	later := time.Since(quickEpoch) + time.Hour
	c.quickYieldAt = later
	readNext()
	if c.quickYieldAt != later {
		t.Errorf("a read before its yield time moved it: %v, want %v", c.quickYieldAt, later)
	}
	c.quickYieldAt = 0
	before := time.Since(quickEpoch)
	readNext()
	if got := c.quickYieldAt; got < before+quickYieldEvery || got > time.Since(quickEpoch)+quickYieldEvery {
		t.Errorf("next yield at %v, want %v after the read (%v)", got, quickYieldEvery, before)
	}

	// A quick wait no longer than quickYieldEvery never yields.
	SetQuickWait(quickYieldEvery, true)
	c.quickYieldAt = 0
	readNext()
	if c.quickYieldAt != 0 {
		t.Errorf("a %v quick wait yielded (next at %v)", quickYieldEvery, c.quickYieldAt)
	}
	SetQuickWait(20*time.Millisecond, true)

	// Slower than the quick wait: the read goes on the usual way.
	go func() {
		time.Sleep(150 * time.Millisecond)
		peer.Write([]byte("slow"))
	}()
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "slow" {
		t.Fatalf("slow answer: %q, %v", buf[:n], err)
	}
	if got := c.quickArmed.Load(); got != 0 {
		t.Errorf("quick timeout still recorded after a slow answer: %d", got)
	}

	// A deadline still ends a read with nothing to read.
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})
	if _, err := peer.Write([]byte("again")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "again" {
		t.Fatalf("after the deadline was cleared: %q, %v", buf[:n], err)
	}
}

// A signal to a goroutine waiting in a quick read, such as the runtime's
// preemption request, is answered with a pass through the scheduler and
// the read goes on waiting unseen: it does not fall back to a read the
// scheduler sees (which would clear the quick timeout).
func TestQuickReadResumesAfterSignals(t *testing.T) {
	quickWaitFor(t, time.Hour)
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted

	tid := make(chan int, 1)
	done := make(chan string, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		if err != nil {
			done <- err.Error()
			return
		}
		done <- string(buf[:n])
	}()
	reader := <-tid
	time.Sleep(50 * time.Millisecond) // let it block in the read
	stop := signalThread(reader)
	time.Sleep(20 * time.Millisecond)
	stop()
	if _, err := peer.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != "data" {
		t.Fatalf("read after signals: %q, want \"data\"", got)
	}
	if got := c.quickArmed.Load(); got != int64(time.Hour) {
		t.Errorf("quick timeout after signals: %d, want %d (the read fell back)", got, int64(time.Hour))
	}
}

// A goroutine waiting in a quick read neither holds up a garbage
// collection (the runtime's preemption signal ends the raw read) nor
// keeps Close from waking it.
func TestQuickReadYieldsToGCAndClose(t *testing.T) {
	quickWaitFor(t, time.Hour)
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted

	type result struct {
		data string
		err  error
	}
	read := func() <-chan result {
		done := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			buf := make([]byte, 16)
			n, err := c.Read(buf)
			done <- result{string(buf[:n]), err}
		}()
		time.Sleep(50 * time.Millisecond) // let it block in the read
		return done
	}

	done := read()
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the garbage collection waited for a quick read")
	}
	if _, err := peer.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.data != "data" {
		t.Fatalf("read after the collection: %+v", r)
	}

	done = read()
	c.Close()
	select {
	case r := <-done:
		if !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("read woken by Close: %+v, want net.ErrClosed", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not wake a quick read")
	}
}

// BenchmarkEmptySocketRead is the cost of entering a socket read with
// nothing to read (EAGAIN), by read(2) and by recvfrom(2): what the file
// layer adds to each of quickRead's calls (see quickRead).
func BenchmarkEmptySocketRead(b *testing.B) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	buf := make([]byte, 16<<10)
	p, n := uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))
	for _, call := range []struct {
		name string
		do   func() syscall.Errno
	}{
		{"read", func() syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fds[0]), p, n)
			return e
		}},
		{"recvfrom", func() syscall.Errno {
			_, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(fds[0]), p, n, 0, 0, 0)
			return e
		}},
	} {
		b.Run(call.name, func(b *testing.B) {
			for b.Loop() {
				if e := call.do(); e != syscall.EAGAIN {
					b.Fatalf("%s on an empty socket: %v, want EAGAIN", call.name, e)
				}
			}
		})
	}
}
