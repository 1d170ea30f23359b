package pgsql

import (
	"fmt"
	"strconv"
	"testing"
)

func TestIOModeOption(t *testing.T) {
	tests := []struct {
		name     string
		set      map[string]string
		blocking bool
		wantErr  string
	}{
		// auto, the default, blocks while the workers own OS threads
		// (see ioModeOption).
		{"default", nil, true, ""},
		{"auto, few threads", map[string]string{"pgsql-io-mode": "auto", "threads": strconv.Itoa(autoBlockingThreads())}, true, ""},
		{"auto, many threads", map[string]string{"threads": strconv.Itoa(autoBlockingThreads() + 1)}, false, ""},
		{"blocking", map[string]string{"pgsql-io-mode": "blocking"}, true, ""},
		{"poller", map[string]string{"pgsql-io-mode": "poller"}, false, ""},
		{"junk", map[string]string{"pgsql-io-mode": "epoll"}, false, "Invalid value for --pgsql-io-mode: 'epoll'"},
	}
	for _, tt := range tests {
		s, err := readSettings(testOptions(t, tt.set))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.blocking != tt.blocking {
			t.Errorf("%s: blocking %v, %v; want %v", tt.name, s.blocking, err, tt.blocking)
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
