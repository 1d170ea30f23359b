package mysql

import (
	"context"
	"strconv"
	"testing"
	"time"

	"sbgo/internal/faultproxy"
)

// TestBlackholeMidResult: the server stops sending in the middle of a
// result set whose rows are read after the query returned (lazily, or
// skipped by the next call). The end of the query's context still closes
// the session at once, in every io mode, and the next call fails as a
// lost connection instead of waiting for ever. The bound of each wait
// only keeps a hang from holding the test.
func TestBlackholeMidResult(t *testing.T) {
	name := scratchDB(t)
	for _, mode := range []string{"blocking", "poller", "go-sql-driver"} {
		t.Run(mode, func(t *testing.T) {
			p, err := faultproxy.New("127.0.0.1:3306")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			d, _ := newDriver(t, "mysql-host", "127.0.0.1", "mysql-port", strconv.Itoa(p.Port()),
				"mysql-user", "root", "mysql-db", name, "mysql-io-mode", mode)
			c, err := d.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// About 20 MB: far more than the socket buffers and the
			// proxy hold, so most of it is still on the server's side
			// when the proxy stops.
			res, err := c.Query(ctx, "SELECT REPEAT('x', 1000) FROM seq_1_to_20000")
			if err != nil || res.Rows == nil {
				t.Fatalf("query: %v, rows %v", err, res.Rows)
			}
			p.Blackhole(true)
			time.AfterFunc(200*time.Millisecond, cancel)
			done := make(chan error, 1)
			go func() {
				// The next call skips the rows left first.
				_, err := c.Query(ctx, "SELECT 1")
				done <- err
			}()
			select {
			case err := <-done:
				if e := asDBError(t, err); e.Errno != crServerLost && e.Errno != crServerGone {
					t.Errorf("the call after the blackhole: %v, want a lost connection", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the context's end did not free the session reading the result")
			}
		})
	}
}
