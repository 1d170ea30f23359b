//go:build linux || darwin || freebsd

package sockconn

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// PollerConn is Go's own connection, waited on by the runtime's network
// poller, whose read(2) and write(2) calls are raw system calls made
// through its syscall.RawConn.
//
// Why: the socket is non-blocking, so those calls never wait, and a
// system call the runtime sees (entersyscall) wakes its sysmon thread
// whenever every processor had gone idle, which for a client waiting on
// a busy server is about every round trip, and sysmon then polls until
// the processors are idle again. With raw calls client CPU per
// transaction fell by about a third at 32-64 threads
// (docs/performance.md, "The poller, beyond 32 threads per CPU").
// Deadlines, Close and the other methods are the wrapped connection's;
// the callbacks are made once, so that a call allocates nothing.
type PollerConn struct {
	net.Conn
	raw syscall.RawConn

	readMu sync.Mutex // the fields of the read in progress
	rb     []byte
	rn     int
	rerr   syscall.Errno
	readFn func(fd uintptr) bool

	writeMu sync.Mutex // the fields of the write in progress
	wb      []byte
	wn      int
	werr    syscall.Errno
	writeFn func(fd uintptr) bool
}

// NewPollerConn wraps nc, which must offer a syscall.RawConn (Go's TCP
// and Unix connections do).
func NewPollerConn(nc net.Conn) (*PollerConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%T has no raw connection", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	c := &PollerConn{Conn: nc, raw: raw}
	c.readFn, c.writeFn = c.readOnce, c.writeAll
	return c, nil
}

// DialPoller is net.Dialer's DialContext, wrapped by NewPollerConn.
func DialPoller(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	pc, err := NewPollerConn(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return pc, nil
}

// Read reads what has arrived, up to len(b), waiting for at least one
// byte. It returns io.EOF when the peer has closed its side.
func (c *PollerConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.readMu.Lock()
	defer c.readMu.Unlock()
	c.rb, c.rn, c.rerr = b, 0, 0
	err := c.raw.Read(c.readFn)
	c.rb = nil
	if err := c.callError("read", err, c.rerr); err != nil {
		return 0, err
	}
	if c.rn == 0 {
		return 0, io.EOF
	}
	return c.rn, nil
}

// ReadUnbuffered is Read: a PollerConn never buffers.
func (c *PollerConn) ReadUnbuffered(b []byte) (int, error) { return c.Read(b) }

// Write writes all of b.
func (c *PollerConn) Write(b []byte) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.wb, c.wn, c.werr = b, 0, 0
	err := c.raw.Write(c.writeFn)
	c.wb = nil
	return c.wn, c.callError("write", err, c.werr)
}

// readOnce is the RawConn read callback: one recv(2), false when there is
// nothing to read yet (the poller then waits for the socket).
func (c *PollerConn) readOnce(fd uintptr) bool {
	for {
		n, errno := rawRecv(fd, c.rb)
		switch errno {
		case 0:
			c.rn = n
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		c.rerr = errno
		return true
	}
}

// writeAll is the RawConn write callback: send(2) until all of wb is
// written, false when the socket's buffer is full (the poller then waits
// for room).
func (c *PollerConn) writeAll(fd uintptr) bool {
	for c.wn < len(c.wb) {
		rest := c.wb[c.wn:]
		n, errno := rawSend(fd, rest, 0)
		switch errno {
		case 0:
			c.wn += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werr = errno
			return true
		}
	}
	return true
}

// callError is the error of a read or write (op) as Go's connections
// report it: that of the RawConn (closed, deadline), else that of the
// system call, else nil.
func (c *PollerConn) callError(op string, err error, errno syscall.Errno) error {
	switch {
	case err != nil:
		if oe, ok := err.(*net.OpError); ok {
			err = oe.Err // the RawConn's, named raw-read or raw-write
		}
	case errno != 0:
		err = os.NewSyscallError(op, errno)
	default:
		return nil
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
