// Package faultproxy is a TCP proxy for tests that need a database server
// to misbehave: it forwards connections to a real server and, on request,
// stops forwarding (a blackhole), cuts every connection, refuses new ones
// for a while, adds latency, truncates a reply mid-packet, or loses the
// answer to a request the server received.
//
// It is test infrastructure: the faults act on whole chunks as read from
// the sockets, not on protocol packets, which is what a network or a
// crashing server does too. Every method is safe for concurrent use.
package faultproxy

import (
	"bytes"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// chunkSize is the most one read takes from a socket before forwarding.
const chunkSize = 32 << 10

// Proxy forwards every connection accepted on 127.0.0.1:Port to a target.
type Proxy struct {
	target string
	port   int

	latency  atomic.Int64           // time.Duration added before each forwarded chunk
	truncate atomic.Bool            // the next server->client chunk is cut
	cutAfter atomic.Pointer[[]byte] // see CutAfterSending
	accepted atomic.Int64

	mu       sync.Mutex
	ln       net.Listener   // nil while refusing
	gate     chan struct{}  // closed while forwarding, open while blackholed
	conns    map[*pipe]bool // open connections
	refuseID int            // the latest Refuse, so older timers do nothing
	closed   bool
	done     chan struct{} // closed by Close
	wg       sync.WaitGroup
}

// New listens on 127.0.0.1:0 and forwards every accepted connection to
// target ("127.0.0.1:3306").
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	open := make(chan struct{})
	close(open)
	p := &Proxy{
		target: target,
		port:   ln.Addr().(*net.TCPAddr).Port,
		ln:     ln,
		gate:   open,
		conns:  make(map[*pipe]bool),
		done:   make(chan struct{}),
	}
	p.wg.Add(1)
	go p.accept(ln)
	return p, nil
}

// Addr is the proxy's listening address, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// Port is the proxy's listening port; it stays the same across Refuse.
func (p *Proxy) Port() int { return p.port }

// Accepted is the number of connections accepted so far, so a test can
// count a client's reconnects.
func (p *Proxy) Accepted() int { return int(p.accepted.Load()) }

// SetLatency delays each forwarded chunk, both ways, by d (0: none).
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// TruncateNext cuts the next chunk the server sends, on any connection,
// to half its bytes, forwards that half and closes the connection: the
// client sees a reply end in the middle.
func (p *Proxy) TruncateNext() { p.truncate.Store(true) }

// CutAfterSending closes the connection that next sends a chunk holding
// pattern, right after forwarding that chunk and before any reply gets
// back: the server runs what was asked, the client never learns the
// outcome (a COMMIT whose answer is lost). The pattern must arrive in
// one chunk, as a short statement does; it cannot be seen inside TLS.
func (p *Proxy) CutAfterSending(pattern []byte) {
	p.cutAfter.Store(&pattern)
}

// Blackhole(true) stops forwarding bytes both ways while keeping every
// socket open, as a network that drops packets does; connections accepted
// meanwhile get nothing. Blackhole(false) resumes, delivering what was
// held back in order.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
		if on {
			p.gate = make(chan struct{})
		}
	default:
		if !on {
			close(p.gate)
		}
	}
}

// CutAll closes every open connection now, on both sides.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	list := make([]*pipe, 0, len(p.conns))
	for c := range p.conns {
		list = append(list, c)
	}
	p.mu.Unlock()
	for _, c := range list {
		c.close()
	}
}

// Refuse closes the listener, so that connecting to Port fails with
// ECONNREFUSED, and listens again on the same port d later. It returns at
// once; open connections are left alone (CutAll first to drop them too).
// A second Refuse while refusing moves the end to its own d.
func (p *Proxy) Refuse(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.refuseID++
	id := p.refuseID
	p.wg.Add(1)
	go p.relisten(id, d)
}

// Close stops listening, closes every connection and waits until all of
// the proxy's goroutines have ended.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	var err error
	if p.ln != nil {
		err = p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.CutAll()
	p.wg.Wait()
	return err
}

// relisten ends the refusal that Refuse number id started, after d,
// unless the proxy was closed or a later Refuse took over. Binding the
// same port again can fail for a moment (another socket may have been
// given it), so it retries until it succeeds or the proxy closes.
func (p *Proxy) relisten(id int, d time.Duration) {
	defer p.wg.Done()
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		p.mu.Lock()
		if p.closed || id != p.refuseID {
			p.mu.Unlock()
			return
		}
		ln, err := net.Listen("tcp", p.Addr())
		if err == nil {
			p.ln = ln
			p.wg.Add(1)
			go p.accept(ln)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		t.Reset(10 * time.Millisecond)
	}
}

// accept serves ln until it is closed, by Refuse or Close.
func (p *Proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil { // out of descriptors, say: try again shortly
			time.Sleep(5 * time.Millisecond)
			continue
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve connects client to the target and forwards both ways until
// either side ends or the proxy cuts the pair.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	c := &pipe{client: client, server: server, dead: make(chan struct{})}
	if !p.track(c) {
		c.close()
		return
	}
	defer p.untrack(c)
	var both sync.WaitGroup
	both.Add(2)
	go func() { defer both.Done(); p.forward(c, server, client, true) }()
	go func() { defer both.Done(); p.forward(c, client, server, false) }()
	both.Wait()
}

func (p *Proxy) track(c *pipe) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = true
	return true
}

func (p *Proxy) untrack(c *pipe) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// forward copies chunks from src to dst, applying the faults in force
// when each chunk arrives; fromServer tells the server->client direction.
// Any error ends the whole pair: database protocols have no use for a
// half-open connection.
func (p *Proxy) forward(c *pipe, src, dst net.Conn, fromServer bool) {
	defer c.close()
	buf := make([]byte, chunkSize)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.hold(c) {
				return
			}
			out, cut := buf[:n], false
			switch {
			case fromServer && c.muted.Load():
				return // the answer to a CutAfterSending chunk
			case fromServer && p.truncate.CompareAndSwap(true, false):
				out, cut = buf[:n/2], true
			case !fromServer && p.sendsPattern(out):
				// Muted before the server can have the chunk, so
				// that no part of its answer gets through.
				c.muted.Store(true)
				cut = true
			}
			if _, werr := dst.Write(out); werr != nil || cut {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// sendsPattern reports whether chunk holds the CutAfterSending pattern,
// disarming it: only one connection is cut per call.
func (p *Proxy) sendsPattern(chunk []byte) bool {
	pat := p.cutAfter.Load()
	return pat != nil && bytes.Contains(chunk, *pat) && p.cutAfter.CompareAndSwap(pat, nil)
}

// hold waits while the proxy is blackholed, then for the latency, then
// again for a blackhole begun meanwhile; false if the pair was cut.
func (p *Proxy) hold(c *pipe) bool {
	if !p.waitGate(c) {
		return false
	}
	if d := time.Duration(p.latency.Load()); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.dead:
			return false
		}
	}
	return p.waitGate(c)
}

// waitGate waits until forwarding is allowed; false if the pair died.
func (p *Proxy) waitGate(c *pipe) bool {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	select {
	case <-gate:
		return true
	case <-c.dead:
		return false
	}
}

// pipe is one proxied connection: the client's socket and ours to the
// server.
type pipe struct {
	client, server net.Conn
	once           sync.Once
	dead           chan struct{}
	muted          atomic.Bool // nothing more goes to the client
}

func (c *pipe) close() {
	c.once.Do(func() {
		close(c.dead)
		c.client.Close()
		c.server.Close()
	})
}
