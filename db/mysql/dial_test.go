package mysql

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"sbgo/engine"
)

func TestIOModeOption(t *testing.T) {
	tests := []struct {
		name     string
		kv       []string
		blocking bool
		wantErr  string
	}{
		// auto, the default, blocks while the workers own OS threads
		// (see ioModeOption).
		{"default", nil, true, ""},
		{"auto, few threads", []string{"mysql-io-mode", "auto", "threads", strconv.Itoa(engine.OSThreadWorkers())}, true, ""},
		{"auto, many threads", []string{"threads", strconv.Itoa(engine.OSThreadWorkers() + 1)}, false, ""},
		{"blocking, many threads", []string{"mysql-io-mode", "blocking", "threads", strconv.Itoa(engine.OSThreadWorkers() + 1)}, true, ""},
		{"blocking", []string{"mysql-io-mode", "blocking"}, true, ""},
		{"poller", []string{"mysql-io-mode", "poller"}, false, ""},
		{"junk", []string{"mysql-io-mode", "epoll"}, false, "Invalid value for --mysql-io-mode: 'epoll'"},
	}
	for _, tt := range tests {
		s, err := readSettings(newOptions(t, tt.kv...))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		d := &Driver{set: s}
		if got := d.config(endpoint{host: "127.0.0.1", port: 3306}).DialFunc != nil; got != tt.blocking || s.blocking != tt.blocking {
			t.Errorf("%s: custom dialer %v, want %v", tt.name, got, tt.blocking)
		}
	}
}

// TestIOModesConnectErrors: a failed connection is reported with the
// same number and text in both modes.
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
		for _, mode := range []string{"poller", "blocking"} {
			d, _ := newDriver(t, append(ep.kv, "mysql-io-mode", mode)...)
			_, err := d.Connect(context.Background())
			var ce *ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("%s, %s: %v, want a ConnectError", ep.name, mode, err)
			}
			texts = append(texts, ce.Error())
		}
		if texts[0] != texts[1] {
			t.Errorf("%s: poller %q, blocking %q", ep.name, texts[0], texts[1])
		}
	}
}

// TestIOModesAgainstServer runs a query over TCP and over the Unix
// socket in both modes.
func TestIOModesAgainstServer(t *testing.T) {
	name := scratchDB(t)
	for _, mode := range []string{"poller", "blocking"} {
		for _, host := range []string{"127.0.0.1", "localhost"} {
			c, _ := connect(t, name, "mysql-io-mode", mode, "mysql-host", host)
			res := mustQuery(t, c, "SELECT 'a' UNION ALL SELECT 'b'")
			if rows := fetchAll(t, res.Rows); len(rows) != 2 || rows[1][0] != "b" {
				t.Errorf("%s via %s: rows %v", mode, host, rows)
			}
		}
	}
}
