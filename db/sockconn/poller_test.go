package sockconn

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// pollerPair is a pollerConn over loopback TCP and the peer's end.
func pollerPair(t *testing.T) (*PollerConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	pc, err := NewPollerConn(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(); peer.Close() })
	return pc, peer
}

// A write larger than the socket buffers waits for room and arrives
// whole; reads take what has arrived; the peer's close reads as EOF.
func TestPollerConnReadWrite(t *testing.T) {
	pc, peer := pollerPair(t)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	got := make(chan []byte)
	go func() {
		time.Sleep(50 * time.Millisecond) // let the buffers fill
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
		got <- b
	}()
	if n, err := pc.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("peer read %d bytes, not what was written", len(b))
	}

	go func() {
		time.Sleep(20 * time.Millisecond) // the read waits in the poller
		peer.Write([]byte("answer"))
	}()
	buf := make([]byte, 64)
	if n, err := pc.Read(buf); err != nil || string(buf[:n]) != "answer" {
		t.Fatalf("Read: %q, %v", buf[:n], err)
	}
	peer.Close()
	if n, err := pc.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the peer closed: %d, %v; want EOF", n, err)
	}
}

// Close wakes a read that waits, which reports net.ErrClosed as Go's
// connections do; calls after Close fail the same way.
func TestPollerConnClose(t *testing.T) {
	pc, _ := pollerPair(t)
	done := make(chan error)
	go func() {
		_, err := pc.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	pc.Close()
	select {
	case err := <-done:
		var oe *net.OpError
		if !errors.Is(err, net.ErrClosed) || !errors.As(err, &oe) || oe.Op != "read" {
			t.Errorf("read interrupted by Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the read")
	}
	if _, err := pc.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

// A round trip allocates nothing.
func TestPollerConnAllocs(t *testing.T) {
	pc, peer := pollerPair(t)
	go io.Copy(peer, peer) // echo
	out, in := []byte("ping"), make([]byte, 4)
	allocs := testing.AllocsPerRun(100, func() {
		pc.Write(out)
		for n := 0; n < len(in); {
			m, err := pc.Read(in[n:])
			if err != nil {
				t.Fatal(err)
			}
			n += m
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per round trip, want 0", allocs)
	}
}
