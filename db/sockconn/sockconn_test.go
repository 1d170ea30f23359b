//go:build linux || darwin || freebsd

package sockconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// echoServer listens on network ("tcp" or "unix") and echoes every
// connection's bytes back until the test ends. It returns the listener's
// address and a channel that yields the server side of each accepted
// connection.
func echoServer(t *testing.T, network string) (string, <-chan net.Conn) {
	t.Helper()
	return server(t, network, func(c net.Conn) { io.Copy(c, c) })
}

// server listens on network and runs serve on each connection in a
// goroutine of its own; everything is closed at the end of the test.
func server(t *testing.T, network string, serve func(net.Conn)) (string, <-chan net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s.sock")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			select {
			case accepted <- c:
			default:
			}
			go serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String(), accepted
}

// dial is Dial that fails the test on error and closes the connection
// at its end.
func dial(t *testing.T, network, addr string) *Conn {
	t.Helper()
	nc, err := Dial(context.Background(), network, addr)
	if err != nil {
		t.Fatalf("Dial(%s, %s): %v", network, addr, err)
	}
	c, ok := nc.(*Conn)
	if !ok {
		t.Fatalf("Dial returned %T, want *Conn", nc)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// isBlocking reports whether O_NONBLOCK is clear on fd.
func isBlocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatalf("fcntl(F_GETFL): %v", errno)
	}
	return flags&syscall.O_NONBLOCK == 0
}

func TestDialRoundTrip(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr, accepted := echoServer(t, network)
			c := dial(t, network, addr)
			if !isBlocking(t, c.fd) {
				t.Error("the socket is non-blocking")
			}
			if network == "tcp" {
				nodelay, err := syscall.GetsockoptInt(c.fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
				if err != nil || nodelay == 0 {
					t.Errorf("TCP_NODELAY = %d, %v; want on", nodelay, err)
				}
			}
			if _, isSyscallConn := any(c).(syscall.Conn); isSyscallConn {
				t.Error("*Conn implements syscall.Conn")
			}

			msg := []byte("SELECT c FROM sbtest1 WHERE id=?")
			if n, err := c.Write(msg); n != len(msg) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("read back %q, %v; want %q", got, err, msg)
			}
			if n, err := c.Read(nil); n != 0 || err != nil {
				t.Errorf("Read(nil) = %d, %v; want 0, nil", n, err)
			}

			peer := <-accepted
			if c.RemoteAddr().Network() != network || c.RemoteAddr().String() != peer.LocalAddr().String() {
				t.Errorf("RemoteAddr = %s %q, want %s %q", c.RemoteAddr().Network(), c.RemoteAddr(), network, peer.LocalAddr())
			}
			if network == "tcp" && c.LocalAddr().String() != peer.RemoteAddr().String() {
				t.Errorf("LocalAddr = %q, the server sees %q", c.LocalAddr(), peer.RemoteAddr())
			}
		})
	}
}

// TestFullDuplex writes a large buffer while another goroutine reads the
// echo: both directions block in the kernel at once, on two threads.
func TestFullDuplex(t *testing.T) {
	addr, _ := echoServer(t, "tcp")
	c := dial(t, "tcp", addr)
	msg := make([]byte, 8<<20)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	errc := make(chan error, 1)
	go func() {
		n, err := c.Write(msg)
		if err == nil && n != len(msg) {
			err = errors.New("short write without error: " + strconv.Itoa(n))
		}
		errc <- err
	}()
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("the echoed bytes differ from those written")
	}
}

func TestPeerCloseIsEOF(t *testing.T) {
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	(<-accepted).Close()
	if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read = %d, %v; want 0, EOF", n, err)
	}
}

// isTimeout checks that err is what Go's connections return when a
// deadline passes.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

func TestReadDeadline(t *testing.T) {
	tests := []struct {
		name     string
		deadline time.Duration // from now
	}{
		{"passed before the read", -time.Second}, // fails without waiting
		{"passes during the read", 50 * time.Millisecond},
		{"below the kernel's resolution", time.Microsecond}, // must not mean "no timeout"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, accepted := server(t, "tcp", func(net.Conn) {}) // never writes
			c := dial(t, "tcp", addr)
			peer := <-accepted
			if err := c.SetReadDeadline(time.Now().Add(tt.deadline)); err != nil {
				t.Fatal(err)
			}
			n, err := c.Read(make([]byte, 8))
			if n != 0 || !isTimeout(err) {
				t.Fatalf("Read = %d, %v; want a timeout", n, err)
			}
			var op *net.OpError
			if !errors.As(err, &op) || op.Op != "read" {
				t.Errorf("error %#v is not a read *net.OpError", err)
			}

			// A timeout leaves the connection usable, and clearing the
			// deadline clears the kernel's timeout: data sent later than
			// the old timeout is read.
			if err := c.SetReadDeadline(time.Time{}); err != nil {
				t.Fatal(err)
			}
			go func() {
				time.Sleep(150 * time.Millisecond)
				peer.Write([]byte("late"))
			}()
			buf := make([]byte, 8)
			if n, err := c.Read(buf); err != nil || string(buf[:n]) != "late" {
				t.Fatalf("Read after clearing the deadline = %q, %v", buf[:n], err)
			}
		})
	}
}

// TestDeadlineAppliesToLaterReads: a deadline counts from when it was
// set, not from each read: reads that each wait part of it do not extend
// it.
func TestDeadlineAppliesToLaterReads(t *testing.T) {
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted
	start := time.Now()
	if err := c.SetReadDeadline(start.Add(300 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		peer.Write([]byte("x"))
	}()
	buf := make([]byte, 8)
	if _, err := c.Read(buf); err != nil {
		t.Fatalf("first Read: %v", err)
	}
	_, err := c.Read(buf)
	if !isTimeout(err) {
		t.Fatalf("second Read: %v, want a timeout", err)
	}
	// The second read had about 100 ms left; re-arming the full 300 ms
	// would end it after 500 ms in all.
	if elapsed := time.Since(start); elapsed > 480*time.Millisecond {
		t.Errorf("the deadline ended the second read %v after it was set, want about 300ms", elapsed)
	}
}

func TestWriteDeadline(t *testing.T) {
	addr, _ := server(t, "tcp", func(net.Conn) {}) // never reads
	c := dial(t, "tcp", addr)
	big := make([]byte, 64<<20) // more than both socket buffers hold
	if err := c.SetDeadline(time.Now().Add(300 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	n, err := c.Write(big)
	if !isTimeout(err) {
		t.Fatalf("Write: %v, want a timeout", err)
	}
	if n <= 0 || n >= len(big) {
		t.Errorf("Write wrote %d bytes, want part of %d", n, len(big))
	}
	if _, err := c.Read(make([]byte, 1)); !isTimeout(err) {
		t.Errorf("Read after SetDeadline: %v, want a timeout", err)
	}
}

// TestCloseUnblocksRead: Close from another goroutine ends a Read that
// is waiting in the kernel.
func TestCloseUnblocksRead(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr, _ := server(t, network, func(net.Conn) {})
			c := dial(t, network, addr)
			errc := make(chan error, 1)
			go func() {
				_, err := c.Read(make([]byte, 8))
				errc <- err
			}()
			time.Sleep(50 * time.Millisecond) // let the Read block
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case err := <-errc:
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("Read: %v, want net.ErrClosed", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not wake the blocked Read")
			}
		})
	}
}

func TestUseAfterClose(t *testing.T) {
	addr, _ := echoServer(t, "tcp")
	c := dial(t, "tcp", addr)
	c.Close()
	calls := []struct {
		name string
		call func() error
	}{
		{"Read", func() error { _, err := c.Read(make([]byte, 1)); return err }},
		{"Write", func() error { _, err := c.Write([]byte("x")); return err }},
		{"SetDeadline", func() error { return c.SetDeadline(time.Now()) }},
		{"SetReadDeadline zero", func() error { return c.SetReadDeadline(time.Time{}) }},
	}
	for _, tt := range calls {
		if err := tt.call(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("%s after Close: %v, want net.ErrClosed", tt.name, err)
		}
	}
}

// TestDialErrors: failures are the errors net.Dialer returns, which the
// drivers turn into libmysqlclient's and libpq's messages.
func TestDialErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close()

	tests := []struct {
		name, network, addr string
		errno               syscall.Errno // 0: a name resolution failure
	}{
		{"refused", "tcp", closedPort, syscall.ECONNREFUSED},
		{"no such socket", "unix", filepath.Join(t.TempDir(), "none.sock"), syscall.ENOENT},
		{"unknown host", "tcp", "no-such-host.invalid:3306", 0},
		{"datagram network", "udp", "127.0.0.1:9", 0}, // not a stream
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Dial(ctx, tt.network, tt.addr)
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			var op *net.OpError
			if !errors.As(err, &op) || op.Op != "dial" {
				t.Fatalf("error %#v is not a dial *net.OpError", err)
			}
			if tt.errno != 0 {
				var errno syscall.Errno
				if !errors.As(err, &errno) || errno != tt.errno {
					t.Errorf("errno = %v, want %v", errno, tt.errno)
				}
				var d net.Dialer
				if _, want := d.DialContext(ctx, tt.network, tt.addr); err.Error() != want.Error() {
					t.Errorf("error %q, net.Dial's %q", err, want)
				}
				return
			}
			var dnsErr *net.DNSError
			var unknown net.UnknownNetworkError
			if tt.network == "udp" {
				if !errors.As(err, &unknown) {
					t.Errorf("error %v is not a net.UnknownNetworkError", err)
				}
				return
			}
			if !errors.As(err, &dnsErr) {
				t.Errorf("error %v is not a *net.DNSError", err)
			}
		})
	}
}

// TestDialContext: the context's deadline ends a connect that the server
// does not answer (a listener whose queue is full drops new SYNs), and a
// cancelled context fails at once.
func TestDialContext(t *testing.T) {
	addr := stalledListener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c, err := Dial(ctx, "tcp", addr)
	if err == nil {
		c.Close()
		t.Fatal("Dial to a stalled listener succeeded")
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Dial: %v, want a timeout", err)
	}

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if c, err := Dial(cancelled, "tcp", addr); !errors.Is(err, context.Canceled) {
		if c != nil {
			c.Close()
		}
		t.Errorf("Dial with a cancelled context: %v, want context.Canceled", err)
	}
}

// stalledListener is a TCP listener with a backlog of 0 whose queue is
// filled, so that further connects get no answer.
func stalledListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	for i := 0; i < 8; i++ {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // this one got no answer: the queue is full
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the listener's queue never filled")
	return ""
}

// TestSmallReadsShareOneSystemCall: once an answer has filled a read, a
// result that has arrived whole is handed out to small reads (a driver's
// 4 KB buffer) from what one read(2) brought, byte for byte, and a read
// as large as the buffer goes to the socket directly.
func TestSmallReadsShareOneSystemCall(t *testing.T) {
	payload := make([]byte, 3*readBufferSize)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted

	// Answers that fit the caller's buffer are read without one.
	if _, err := peer.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 8)); n != 2 || err != nil || c.readBuf != nil {
		t.Fatalf("Read = %d, %v; buffer allocated: %v", n, err, c.readBuf != nil)
	}
	// One that fills it turns buffering on.
	if _, err := peer.Write([]byte("12345678")); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(c, make([]byte, 8)); n != 8 || err != nil || c.readBuf == nil {
		t.Fatalf("Read = %d, %v; buffer allocated: %v", n, err, c.readBuf != nil)
	}

	half := readBufferSize / 2
	if _, err := peer.Write(payload[:half]); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 100)
	if n, err := io.ReadFull(c, first); n != 100 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	// Loopback delivers a small write in one segment: the first read took
	// it all.
	if got := c.readEnd - c.readPos; got != half-100 {
		t.Errorf("%d bytes buffered after the first read, want %d", got, half-100)
	}
	if _, err := peer.Write(payload[half:]); err != nil {
		t.Fatal(err)
	}
	got := append([]byte{}, first...)
	small := make([]byte, 4096)
	for len(got) < len(payload)-readBufferSize {
		n, err := c.Read(small)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, small[:n]...)
	}
	big := make([]byte, readBufferSize)
	for len(got) < len(payload) {
		if c.readPos < c.readEnd {
			n, _ := c.Read(small)
			got = append(got, small[:n]...)
			continue
		}
		n, err := c.Read(big)
		if err != nil {
			t.Fatal(err)
		}
		if c.readPos != c.readEnd {
			t.Fatalf("a %d-byte read went through the buffer", len(big))
		}
		got = append(got, big[:n]...)
	}
	if !bytes.Equal(got, payload) {
		t.Fatal("the bytes read differ from the bytes written")
	}
}

func TestReadUnbufferedDrainsThenReadsDirectly(t *testing.T) {
	addr, accepted := server(t, "tcp", func(net.Conn) {})
	c := dial(t, "tcp", addr)
	peer := <-accepted

	// Read buffers what a read brings beyond its caller's buffer ...
	if _, err := peer.Write([]byte("12345678")); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(c, make([]byte, 8)); n != 8 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if _, err := peer.Write([]byte("abcdefgh")); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 3)
	if n, err := io.ReadFull(c, head); n != 3 || err != nil || string(head) != "abc" {
		t.Fatalf("Read = %d %q, %v", n, head, err)
	}
	// ... which ReadUnbuffered hands over first, then reads itself.
	rest := make([]byte, 64)
	if n, err := c.ReadUnbuffered(rest); err != nil || string(rest[:n]) != "defgh" {
		t.Fatalf("ReadUnbuffered = %q, %v; want the buffered defgh", rest[:n], err)
	}
	if _, err := peer.Write([]byte("xyz")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.ReadUnbuffered(rest); err != nil || string(rest[:n]) != "xyz" {
		t.Fatalf("ReadUnbuffered = %q, %v; want xyz", rest[:n], err)
	}
	if c.readPos != c.readEnd {
		t.Errorf("ReadUnbuffered left %d bytes in the buffer", c.readEnd-c.readPos)
	}
	// A small buffer filled by ReadUnbuffered does not start buffering.
	fresh := dial(t, "tcp", addr)
	peer2 := <-accepted
	if _, err := peer2.Write([]byte("0123")); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(readerFunc(fresh.ReadUnbuffered), make([]byte, 4)); n != 4 || err != nil || fresh.readBuf != nil {
		t.Fatalf("ReadUnbuffered = %d, %v; buffer allocated: %v", n, err, fresh.readBuf != nil)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }
