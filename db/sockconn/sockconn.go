//go:build linux || darwin || freebsd

// Package sockconn is a net.Conn over a blocking socket, for database
// sessions that spend their time in short request/response round trips.
//
// Go's own connections are non-blocking: a Read with no data parks the
// goroutine and the network poller (epoll) wakes it later, which costs an
// epoll_wait, a wake-up and a pass through the scheduler per round trip.
// For a client thread that sends a small query and waits for its small
// answer, as a benchmark's worker does, that overhead is larger than the
// work itself. A Conn instead calls read(2) and write(2) directly on a
// blocking socket, as a C client does: the thread sleeps in the kernel
// until the answer is there. The runtime still hands the waiting thread's
// processor to other goroutines (a blocking system call does that), so
// other goroutines keep running, but every waiting session holds an OS
// thread of its own.
//
// Dial connects with Go's dialer (name resolution, connect timeouts and
// error values are those of net.Dial), then takes the socket out of the
// runtime's poller.
//
// Conn deliberately does not implement syscall.Conn: code that finds it
// would wait on the socket through the runtime's poller, which expects a
// non-blocking socket.
//
// For sessions that wait in the runtime's poller instead (more of them
// than the machine should give OS threads to), PollerConn is Go's own
// connection with raw reads and writes (see poller.go).
package sockconn

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Supported tells that this system has the blocking Conn (Linux, macOS
// and FreeBSD); elsewhere the drivers' automatic io mode is the poller.
const Supported = true

// closedBit marks refs once Close has begun; the bits below it count the
// calls using the socket.
const closedBit = 1 << 62

// Conn is a connection over a blocking socket. Read and Write may be
// called from different goroutines at once, and Close from any goroutine:
// it wakes up calls blocked in Read or Write, which then return an error
// wrapping net.ErrClosed.
//
// Deadlines are kernel timeouts (SO_RCVTIMEO, SO_SNDTIMEO) armed at the
// start of each call: a deadline applies to the calls that start after it
// was set, and a call already blocked keeps the deadline it started with.
// Close is the way to interrupt a blocked call.
type Conn struct {
	fd      int
	network string // for errors: "tcp", "unix", ...
	laddr   net.Addr
	raddr   net.Addr

	// refs counts the Read, Write, deadline and Close calls using fd, with
	// closedBit set once Close has begun. The descriptor is closed when
	// the last of them is done, so that its number is never reused by
	// another open while a call may still pass it to the kernel.
	refs     atomic.Uint64
	fdClosed atomic.Bool

	// Deadlines as Unix nanoseconds, 0 for none.
	readDeadline  atomic.Int64
	writeDeadline atomic.Int64

	// readBuf[readPos:readEnd] is what the last read(2) brought beyond
	// what its caller asked for. A database driver reads through a small
	// buffer of its own (go-sql-driver: 4 KB), so a result of many rows
	// would otherwise cost a system call per 4 KB; a C client reads it
	// with one. Allocated once a read fills its caller's buffer: sessions
	// that only ever get small answers (point selects) do without, which
	// matters with thousands of them.
	readMu           sync.Mutex
	readBuf          []byte
	readPos, readEnd int

	// quickArmed is the receive timeout set for quickRead (ns), 0 when
	// the socket's receive timeout may be another.
	quickArmed atomic.Int64
	// quickYieldAt is when quickRead next passes through the scheduler
	// before it waits (see quickYieldEvery); only the reader touches it.
	quickYieldAt time.Duration
}

// readBufferSize is the size of a Conn's read buffer: a 100-row sysbench
// range result (about 13 KB) fits in one read.
const readBufferSize = 16 << 10

var _ net.Conn = (*Conn)(nil)

// newConn wraps fd, which must be a connected blocking stream socket.
func newConn(fd int, network string, laddr, raddr net.Addr) *Conn {
	return &Conn{fd: fd, network: network, laddr: laddr, raddr: raddr}
}

// acquire takes a reference to the descriptor, or reports false once
// Close has begun.
func (c *Conn) acquire() bool {
	if c.refs.Add(1)&closedBit != 0 {
		c.release()
		return false
	}
	return true
}

// release drops a reference; the last one after Close closes the
// descriptor.
func (c *Conn) release() {
	if c.refs.Add(^uint64(0)) == closedBit && c.fdClosed.CompareAndSwap(false, true) {
		syscall.Close(c.fd)
	}
}

func (c *Conn) closing() bool { return c.refs.Load()&closedBit != 0 }

// Read reads up to len(b) bytes with one read(2), waiting for at least
// one. It returns io.EOF when the peer has closed its side.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if n, ok := c.takeBuffered(b); ok {
		return n, nil
	}
	if c.readBuf == nil || len(b) >= readBufferSize {
		n, err := c.readFD(b)
		if n == len(b) && c.readBuf == nil && len(b) < readBufferSize {
			// The answer filled the caller's buffer, so answers on this
			// session can be larger than it: buffer from now on.
			c.readBuf = make([]byte, readBufferSize)
		}
		return n, err
	}
	n, err := c.readFD(c.readBuf)
	if err != nil {
		return 0, err
	}
	c.readPos, c.readEnd = copy(b, c.readBuf[:n]), n
	return c.readPos, nil
}

// ReadUnbuffered is Read for a caller that reads through a buffer of its
// own (sbgo's MySQL protocol reader): what Read had buffered comes first,
// then one read(2) straight into b, and Conn never allocates its own
// buffer for it.
func (c *Conn) ReadUnbuffered(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if n, ok := c.takeBuffered(b); ok {
		return n, nil
	}
	return c.readFD(b)
}

// takeBuffered copies into b what the read buffer holds, if anything.
// The caller holds readMu.
func (c *Conn) takeBuffered(b []byte) (int, bool) {
	if c.readPos == c.readEnd {
		return 0, false
	}
	n := copy(b, c.readBuf[c.readPos:c.readEnd])
	c.readPos += n
	return n, true
}

// readFD is one read(2) into b, retried after a signal or a timeout that
// is not yet the deadline.
func (c *Conn) readFD(b []byte) (int, error) {
	if !c.acquire() {
		return 0, c.opError("read", net.ErrClosed)
	}
	defer c.release()
	for {
		var n int
		var err error
		ok := false
		if d := c.readDeadline.Load(); d != 0 {
			c.quickArmed.Store(0)
			if err := c.arm(syscall.SO_RCVTIMEO, d); err != nil {
				return 0, c.opError("read", err)
			}
		} else {
			n, err, ok = c.quickRead(b)
		}
		if !ok {
			n, err = syscall.Read(c.fd, b)
		}
		switch {
		case err == nil && n > 0:
			return n, nil
		case err == nil:
			if c.closing() { // woken by Close's shutdown
				return 0, c.opError("read", net.ErrClosed)
			}
			return 0, io.EOF
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			c.quickArmed.Store(0) // expired may clear the timeout
			if c.expired(&c.readDeadline, syscall.SO_RCVTIMEO) {
				return 0, c.opError("read", os.ErrDeadlineExceeded)
			}
			continue
		case c.closing():
			return 0, c.opError("read", net.ErrClosed)
		}
		return 0, c.opError("read", os.NewSyscallError("read", err))
	}
}

// Write writes all of b, with as many write(2) calls as the kernel needs
// (a signal or a timeout can end one after part of the buffer). On error
// it returns how much was written.
func (c *Conn) Write(b []byte) (int, error) {
	if !c.acquire() {
		return 0, c.opError("write", net.ErrClosed)
	}
	defer c.release()
	written := 0
	if c.writeDeadline.Load() == 0 {
		written = c.quickWrite(b)
	}
	for written < len(b) {
		if d := c.writeDeadline.Load(); d != 0 {
			if err := c.arm(syscall.SO_SNDTIMEO, d); err != nil {
				return written, c.opError("write", err)
			}
		}
		n, err := syscall.Write(c.fd, b[written:])
		if n > 0 {
			written += n
		}
		switch {
		case err == nil && n > 0:
			continue
		case err == nil: // a socket never accepts 0 bytes of a non-empty buffer
			return written, c.opError("write", io.ErrShortWrite)
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if c.expired(&c.writeDeadline, syscall.SO_SNDTIMEO) {
				return written, c.opError("write", os.ErrDeadlineExceeded)
			}
			continue
		case c.closing():
			return written, c.opError("write", net.ErrClosed)
		}
		return written, c.opError("write", os.NewSyscallError("write", err))
	}
	return written, nil
}

// arm sets the socket timeout opt to the time left until deadline, or
// returns os.ErrDeadlineExceeded when none is left.
func (c *Conn) arm(opt int, deadline int64) error {
	left := deadline - time.Now().UnixNano()
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	// A zero timeval means "no timeout": never round down to it.
	tv := syscall.NsecToTimeval(max(left, int64(time.Microsecond)))
	return setTimeout(c.fd, opt, &tv)
}

// expired reports, after the kernel timeout opt ended a call, whether the
// deadline has passed. When it has not (the deadline was moved or cleared
// while the call was blocked) the caller retries; a cleared deadline's
// timeout is removed from the socket first.
func (c *Conn) expired(deadline *atomic.Int64, opt int) bool {
	d := deadline.Load()
	if d == 0 {
		setTimeout(c.fd, opt, &syscall.Timeval{})
		return false
	}
	return time.Now().UnixNano() >= d
}

func setTimeout(fd, opt int, tv *syscall.Timeval) error {
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return nil
}

// Close shuts the socket down, which wakes up any Read or Write blocked
// on it, and closes the descriptor once no call uses it any more. Only
// the first Close does this; later ones return an error wrapping
// net.ErrClosed.
func (c *Conn) Close() error {
	// Holding a reference keeps the descriptor open until shutdown is done.
	c.refs.Add(1)
	old := c.refs.Or(closedBit)
	if old&closedBit == 0 {
		// ENOTCONN (the peer reset the connection) changes nothing.
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
	c.release()
	if old&closedBit != 0 {
		return c.opError("close", net.ErrClosed)
	}
	return nil
}

// LocalAddr is the socket's own address.
func (c *Conn) LocalAddr() net.Addr { return c.laddr }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

// SetDeadline sets the read and write deadlines; the zero time clears
// them.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the time after which Read fails with a timeout
// (a net.Error whose Timeout is true, wrapping os.ErrDeadlineExceeded);
// the zero time clears it.
func (c *Conn) SetReadDeadline(t time.Time) error {
	return c.setDeadline(&c.readDeadline, syscall.SO_RCVTIMEO, t)
}

// SetWriteDeadline is SetReadDeadline for Write.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	return c.setDeadline(&c.writeDeadline, syscall.SO_SNDTIMEO, t)
}

// setDeadline records t; the next call arms the kernel timeout from it.
// Clearing a deadline clears the kernel timeout at once, so that calls
// without a deadline do not pay for a setsockopt.
func (c *Conn) setDeadline(deadline *atomic.Int64, opt int, t time.Time) error {
	if opt == syscall.SO_RCVTIMEO {
		c.quickArmed.Store(0)
	}
	if !c.acquire() {
		return c.opError("set", net.ErrClosed)
	}
	defer c.release()
	if t.IsZero() {
		deadline.Store(0)
		if err := setTimeout(c.fd, opt, &syscall.Timeval{}); err != nil {
			return c.opError("set", err)
		}
		return nil
	}
	deadline.Store(max(t.UnixNano(), 1)) // 0 means none
	return nil
}

// opError words a failure as Go's connections do.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.laddr, Addr: c.raddr, Err: err}
}

// Dial connects to address on network ("tcp", "tcp4", "tcp6" or "unix")
// as net.Dialer's DialContext does, honouring ctx's deadline and
// cancellation and returning the same errors, then returns the
// connection as a *Conn. TCP connections have TCP_NODELAY set, and the
// keep-alive probes that the dialer enables by default.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		// Write's loop and Read's EOF are those of a stream socket.
		return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError(network)}
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	c, err := detach(nc, network)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// detach moves the socket of nc, a *net.TCPConn or *net.UnixConn, out of
// the runtime's poller into a blocking *Conn, and closes nc. The socket
// lives on in a duplicate descriptor: closing nc's own descriptor
// removes it from the poller without ending the connection.
func detach(nc net.Conn, network string) (*Conn, error) {
	fail := func(op string, err error) (*Conn, error) {
		nc.Close()
		return nil, &net.OpError{Op: op, Net: network, Source: nc.LocalAddr(), Addr: nc.RemoteAddr(), Err: err}
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return fail("dial", syscall.EINVAL)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return fail("dial", err)
	}
	fd := -1
	var dupErr error
	err = raw.Control(func(s uintptr) {
		if _, isTCP := nc.(*net.TCPConn); isTCP {
			// Go sets it by default; the round trips depend on it.
			if err := syscall.SetsockoptInt(int(s), syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
				dupErr = os.NewSyscallError("setsockopt", err)
				return
			}
		}
		fd, dupErr = dupCloseOnExec(int(s))
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return fail("dial", err)
	}
	laddr, raddr := nc.LocalAddr(), nc.RemoteAddr()
	nc.Close()
	// O_NONBLOCK belongs to the socket, not to the descriptor: nc's was
	// non-blocking, so the duplicate is too until now.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Source: laddr, Addr: raddr, Err: os.NewSyscallError("fcntl", err)}
	}
	return newConn(fd, network, laddr, raddr), nil
}

// dupCloseOnExec duplicates fd with close-on-exec set, under ForkLock so
// that no child started meanwhile inherits it.
func dupCloseOnExec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return -1, os.NewSyscallError("dup", err)
	}
	syscall.CloseOnExec(nfd)
	return nfd, nil
}
