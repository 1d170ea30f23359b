//go:build !(linux || darwin || freebsd)

// Package sockconn is a net.Conn over a blocking socket on Linux, macOS
// and FreeBSD. Elsewhere (Windows) it has none: the drivers' io mode is
// the poller, and Dial and DialPoller return Go's own connection.
package sockconn

import (
	"context"
	"net"
	"time"
)

// Supported tells that this system has no blocking Conn.
const Supported = false

// SetQuickWait is a no-op: no reads bypass the runtime's poller here.
func SetQuickWait(d time.Duration, locked bool) {}

// Dial is net.Dialer's DialContext on this system.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

// PollerConn is Go's own connection on this system.
type PollerConn struct{ net.Conn }

// NewPollerConn wraps nc.
func NewPollerConn(nc net.Conn) (*PollerConn, error) { return &PollerConn{nc}, nil }

// DialPoller is net.Dialer's DialContext, wrapped by NewPollerConn.
func DialPoller(ctx context.Context, network, address string) (net.Conn, error) {
	nc, err := Dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &PollerConn{nc}, nil
}

// ReadUnbuffered is Read.
func (c *PollerConn) ReadUnbuffered(b []byte) (int, error) { return c.Read(b) }
