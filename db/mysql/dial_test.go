package mysql

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"sbgo/engine"
)

// TestIOModeOption: --mysql-io-mode, auto resolved with the decided
// thread policy (on 2 CPUs, workers may own OS threads up to 64).
func TestIOModeOption(t *testing.T) {
	few := engine.DecideThreadPolicy(64, 2, nil)
	many := engine.DecideThreadPolicy(65, 2, nil)
	tests := []struct {
		name    string
		kv      []string
		policy  *engine.ThreadPolicy // nil: none decided, --threads on this machine
		mode    ioMode
		dialer  bool // sbgo's own dialer, which captures the handshake for the wire
		wantErr string
	}{
		// auto, the default, blocks while the workers may own OS threads
		// (see ioModeOption).
		{"default", nil, nil, ioBlocking, true, ""},
		{"auto, few threads", []string{"mysql-io-mode", "auto"}, &few, ioBlocking, true, ""},
		{"auto, many threads", nil, &many, ioPoller, true, ""},
		{"blocking, many threads", []string{"mysql-io-mode", "blocking"}, &many, ioBlocking, true, ""},
		{"blocking", []string{"mysql-io-mode", "blocking"}, nil, ioBlocking, true, ""},
		{"poller", []string{"mysql-io-mode", "poller"}, &few, ioPoller, true, ""},
		{"go-sql-driver", []string{"mysql-io-mode", "go-sql-driver"}, &many, ioDriver, false, ""},
		{"junk", []string{"mysql-io-mode", "epoll"}, nil, 0, false, "Invalid value for --mysql-io-mode: 'epoll'"},
	}
	for _, tt := range tests {
		opts := newOptions(t, tt.kv...)
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
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if s.ioMode != tt.mode {
			t.Errorf("%s: mode %d, want %d", tt.name, s.ioMode, tt.mode)
		}
		d := &Driver{set: s}
		if got := d.config(endpoint{host: "127.0.0.1", port: 3306}).DialFunc != nil; got != tt.dialer {
			t.Errorf("%s: custom dialer %v, want %v", tt.name, got, tt.dialer)
		}
		if got, want := (Factory{}).BlocksThreads(opts, opts.ThreadPolicy()), tt.mode == ioBlocking; got != want {
			t.Errorf("%s: BlocksThreads %v, want %v", tt.name, got, want)
		}
	}
}

// TestIOModesConnectErrors: a failed connection is reported with the
// same number and text in every mode.
func TestIOModesConnectErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.sock")
	endpoints := []struct {
		name string
		kv   []string
	}{
		{"refused TCP port", []string{"mysql-host", "127.0.0.1", "mysql-port", "1"}},
		{"missing socket", []string{"mysql-socket", missing}},
	}
	for _, ep := range endpoints {
		var texts []string
		for _, mode := range []string{"go-sql-driver", "poller", "blocking"} {
			d, _ := newDriver(t, append(ep.kv, "mysql-io-mode", mode)...)
			_, err := d.Connect(context.Background())
			var ce *ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("%s, %s: %v, want a ConnectError", ep.name, mode, err)
			}
			texts = append(texts, ce.Error())
		}
		if texts[0] != texts[1] || texts[0] != texts[2] {
			t.Errorf("%s: go-sql-driver %q, poller %q, blocking %q", ep.name, texts[0], texts[1], texts[2])
		}
	}
}

// TestIOModesAgainstServer runs a query over TCP and over the Unix
// socket in every mode.
func TestIOModesAgainstServer(t *testing.T) {
	name := scratchDB(t)
	for _, mode := range []string{"go-sql-driver", "poller", "blocking"} {
		for _, host := range []string{"127.0.0.1", "localhost"} {
			c, _ := connect(t, name, "mysql-io-mode", mode, "mysql-host", host)
			res := mustQuery(t, c, "SELECT 'a' UNION ALL SELECT 'b'")
			if rows := fetchAll(t, res.Rows); len(rows) != 2 || rows[1][0] != "b" {
				t.Errorf("%s via %s: rows %v", mode, host, rows)
			}
		}
	}
}
