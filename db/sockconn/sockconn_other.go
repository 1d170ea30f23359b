//go:build !(linux || darwin || freebsd)

// Package sockconn is a net.Conn over a blocking socket on Linux, macOS
// and FreeBSD; elsewhere Dial returns Go's own connection.
package sockconn

import (
	"context"
	"net"
)

// Dial is net.Dialer's DialContext on this system.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}
