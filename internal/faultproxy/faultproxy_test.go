package faultproxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// echoServer answers every connection by writing back what it reads.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func newProxy(t *testing.T) *Proxy {
	t.Helper()
	p, err := New(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads as many bytes back, failing the test
// if they differ or do not come within a generous bound.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("reading the echo of %q: %v", msg, err)
	}
	if string(got) != msg {
		t.Fatalf("echo = %q, want %q", got, msg)
	}
}

// silent checks that nothing arrives on c for a while (no EOF either).
func silent(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n, err := c.Read(make([]byte, 16))
	if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d bytes, err %v; want nothing until the deadline", n, err)
	}
}

// closedByProxy checks that c ends (EOF or reset) without more data.
func closedByProxy(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := c.Read(make([]byte, 16))
	if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d bytes, err %v; want the connection closed", n, err)
	}
}

func TestForwards(t *testing.T) {
	p := newProxy(t)
	if p.Addr() != "127.0.0.1:"+strconv.Itoa(p.Port()) {
		t.Fatalf("Addr %q does not match Port %d", p.Addr(), p.Port())
	}
	c := dial(t, p)
	roundTrip(t, c, "hello")
	roundTrip(t, c, string(bytes.Repeat([]byte("x"), 3*chunkSize))) // several chunks
	dial(t, p)
	waitAccepted(t, p, 2)
}

func TestBlackholeHoldsThenResumes(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	roundTrip(t, c, "before")
	p.Blackhole(true)
	p.Blackhole(true) // twice is the same as once
	if _, err := c.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	silent(t, c)
	late := dial(t, p) // accepted, but gets nothing
	if _, err := late.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	silent(t, late)
	waitAccepted(t, p, 2)
	p.Blackhole(false)
	p.Blackhole(false)
	for _, pair := range []struct {
		c    net.Conn
		want string
	}{{c, "held"}, {late, "late"}} {
		_ = pair.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		got := make([]byte, len(pair.want))
		if _, err := io.ReadFull(pair.c, got); err != nil || string(got) != pair.want {
			t.Fatalf("after the blackhole read %q, %v; want %q", got, err, pair.want)
		}
	}
}

func TestCutAllClosesBothSides(t *testing.T) {
	p := newProxy(t)
	a, b := dial(t, p), dial(t, p)
	roundTrip(t, a, "a")
	roundTrip(t, b, "b")
	p.CutAll()
	closedByProxy(t, a)
	closedByProxy(t, b)
	c := dial(t, p) // still listening
	roundTrip(t, c, "after")
	if got := p.Accepted(); got != 3 {
		t.Fatalf("Accepted = %d, want 3", got)
	}
}

func TestCutAllDuringBlackhole(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	roundTrip(t, c, "x")
	p.Blackhole(true)
	if _, err := c.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	p.CutAll()
	closedByProxy(t, c)
}

func TestRefuseThenListenAgain(t *testing.T) {
	p := newProxy(t)
	open := dial(t, p)
	roundTrip(t, open, "x")
	p.Refuse(time.Hour)
	p.Refuse(300 * time.Millisecond) // the later call decides the end
	_, err := net.Dial("tcp", p.Addr())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while refusing: %v, want ECONNREFUSED", err)
	}
	roundTrip(t, open, "kept") // open connections are left alone
	var c net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err = net.Dial("tcp", p.Addr()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still refused: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer c.Close()
	roundTrip(t, c, "back")
	if got := p.Accepted(); got != 2 {
		t.Fatalf("Accepted = %d, want 2", got)
	}
}

func TestLatencyDelaysEachWay(t *testing.T) {
	p := newProxy(t)
	c := dial(t, p)
	const d = 50 * time.Millisecond
	p.SetLatency(d)
	start := time.Now()
	roundTrip(t, c, "slow")
	// A lower bound the sleeps guarantee, whatever the machine's load.
	if took := time.Since(start); took < 2*d {
		t.Fatalf("round trip took %v, want at least %v", took, 2*d)
	}
	p.SetLatency(0)
	roundTrip(t, c, "fast")
}

func TestTruncateNextCutsOneReply(t *testing.T) {
	p := newProxy(t)
	c, other := dial(t, p), dial(t, p)
	roundTrip(t, c, "whole")
	p.TruncateNext()
	msg := "0123456789abcdef"
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) >= len(msg) || msg[:len(got)] != string(got) {
		t.Fatalf("got %q; want a proper prefix of %q, then the end", got, msg)
	}
	roundTrip(t, other, "untouched") // only one chunk is cut
}

func TestCloseEndsEverything(t *testing.T) {
	p, err := New(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p)
	roundTrip(t, c, "x")
	p.Blackhole(true)
	p.Refuse(time.Hour)
	if err := p.Close(); err != nil { // returns once every goroutine ended
		t.Fatal(err)
	}
	closedByProxy(t, c)
	if _, err := net.Dial("tcp", p.Addr()); err == nil {
		t.Fatal("dial after Close succeeded")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestUnreachableTargetClosesClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := ln.Addr().String()
	ln.Close() // nothing listens there now
	p, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := dial(t, p)
	closedByProxy(t, c)
}

func waitAccepted(t *testing.T, p *Proxy, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); p.Accepted() < n; {
		if time.Now().After(deadline) {
			t.Fatalf("Accepted = %d, want %d", p.Accepted(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCutAfterSendingDeliversThenCloses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received := make(chan string, 4)
	go func() { // a server that reads until the end and tells what it got
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c)
				received <- string(b)
			}()
		}
	}()
	p, err := New(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.CutAfterSending([]byte("COMMIT"))
	other, c := dial(t, p), dial(t, p)
	if _, err := other.Write([]byte("BEGIN")); err != nil { // no match: forwarded, kept
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("..COMMIT..")); err != nil {
		t.Fatal(err)
	}
	closedByProxy(t, c)
	select {
	case got := <-received:
		if got != "..COMMIT.." {
			t.Fatalf("the server got %q, want the whole chunk", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw its connection end")
	}
	if _, err := other.Write([]byte("COMMIT")); err != nil { // disarmed now
		t.Fatal(err)
	}
	silent(t, other)
}

// TestCutAfterSendingLetsNoAnswerThrough: however fast the server
// answers the chunk, not a byte of the answer reaches the client.
func TestCutAfterSendingLetsNoAnswerThrough(t *testing.T) {
	p := newProxy(t) // to an echo server, which answers at once
	for i := range 200 {
		p.CutAfterSending([]byte("COMMIT"))
		c := dial(t, p)
		if _, err := c.Write([]byte("COMMIT")); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if got, _ := io.ReadAll(c); len(got) != 0 {
			t.Fatalf("attempt %d: the client got %q of the answer", i, got)
		}
		c.Close()
	}
}
