package pgsql

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"sbgo/engine"
)

// TestIOModeOption: --pgsql-io-mode, auto resolved with the decided
// thread policy (on 2 CPUs, blocking up to 4 threads).
func TestIOModeOption(t *testing.T) {
	few := engine.DecideThreadPolicy(4, 2, nil)
	many := engine.DecideThreadPolicy(5, 2, nil)
	tests := []struct {
		name     string
		set      map[string]string
		policy   *engine.ThreadPolicy // nil: none decided, --threads on this machine
		blocking bool
		wantErr  string
	}{
		// auto, the default, blocks up to autoBlockingPerCPU threads per
		// CPU (see ioModeOption).
		{"default", nil, nil, true, ""},
		{"auto, few threads", map[string]string{"pgsql-io-mode": "auto"}, &few, true, ""},
		{"auto, many threads", nil, &many, false, ""},
		{"blocking, many threads", map[string]string{"pgsql-io-mode": "blocking"}, &many, true, ""},
		{"blocking", map[string]string{"pgsql-io-mode": "blocking"}, nil, true, ""},
		{"poller", map[string]string{"pgsql-io-mode": "poller"}, &few, false, ""},
		{"junk", map[string]string{"pgsql-io-mode": "epoll"}, nil, false, "Invalid value for --pgsql-io-mode: 'epoll'"},
	}
	for _, tt := range tests {
		opts := testOptions(t, tt.set)
		if tt.policy != nil {
			opts.SetThreadPolicy(*tt.policy)
		}
		s, err := readSettings(opts)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.blocking != tt.blocking {
			t.Errorf("%s: blocking %v, %v; want %v", tt.name, s.blocking, err, tt.blocking)
		}
		if got := (Factory{}).BlocksThreads(opts, opts.ThreadPolicy()); got != tt.blocking {
			t.Errorf("%s: BlocksThreads %v, want %v", tt.name, got, tt.blocking)
		}
	}
}

// TestIOModes: both modes run queries over TCP and the Unix socket, and
// a failed connection reads the same in both.
func TestIOModes(t *testing.T) {
	requireServer(t)
	targets := []struct {
		name string
		set  map[string]string
		ok   bool
	}{
		{"tcp", nil, true},
		{"socket", map[string]string{"pgsql-host": "/var/run/postgresql"}, true},
		{"refused", map[string]string{"pgsql-port": "1"}, false},
		{"no socket", map[string]string{"pgsql-host": "/nonexistent", "pgsql-port": "1"}, false},
	}
	for _, tt := range targets {
		var msgs []string
		for _, mode := range []string{"poller", "blocking"} {
			set := map[string]string{"pgsql-io-mode": mode}
			for k, v := range tt.set {
				set[k] = v
			}
			d := testDriver(t, set)
			c, err := d.Connect(testContext(t))
			if !tt.ok {
				if err == nil {
					c.Close()
					t.Fatalf("%s, %s: connected", tt.name, mode)
				}
				msgs = append(msgs, asDBError(t, err).State+" "+asDBError(t, err).Msg)
				continue
			}
			if err != nil {
				t.Fatalf("%s, %s: %v", tt.name, mode, err)
			}
			want := map[string]string{"blocking": "*sockconn.Conn", "poller": "*sockconn.PollerConn"}[mode]
			if got := fmt.Sprintf("%T", c.(*conn).pg.PgConn().Conn()); got != want {
				t.Errorf("%s, %s: the session's connection is a %s, want %s", tt.name, mode, got, want)
			}
			if got := rowsText(text(t, mustQuery(t, c, "SELECT 'a' UNION ALL SELECT 'b'"))); got != "a;b" {
				t.Errorf("%s, %s: rows %q", tt.name, mode, got)
			}
			c.Close()
		}
		if len(msgs) == 2 && msgs[0] != msgs[1] {
			t.Errorf("%s: poller %q, blocking %q", tt.name, msgs[0], msgs[1])
		}
	}
}

// TestConnectToSilentServer: a server that accepts the connection and
// never answers holds a connect until its context ends, in both io
// modes: a deadline reads as libpq's connect timeout, a cancellation
// ends it too. The bound of the wait only keeps a hang from holding the
// test.
func TestConnectToSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			held = append(held, c) // open, silent, until the test ends
		}
		for _, c := range held {
			c.Close()
		}
	}()
	defer func() { ln.Close(); <-accepted }()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, mode := range []string{"poller", "blocking"} {
		for _, deadline := range []bool{true, false} {
			d := testDriver(t, map[string]string{"pgsql-io-mode": mode, "pgsql-port": port, "pgsql-sslmode": "disable"})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			if !deadline {
				cancel()
				ctx, cancel = context.WithCancel(context.Background())
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			done := make(chan error, 1)
			go func() {
				c, err := d.Connect(ctx)
				if err == nil {
					c.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				e := asDBError(t, err)
				if deadline && !strings.HasSuffix(e.Msg, "failed: timeout expired") {
					t.Errorf("%s: a connect past its deadline says %q", mode, e.Msg)
				}
				if e.State != stateUnableToConnect {
					t.Errorf("%s: SQLSTATE %s, want %s", mode, e.State, stateUnableToConnect)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("%s: the connect outlived its context", mode)
			}
			cancel()
		}
	}
}
