package pgsql

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"sbgo/db"
	"sbgo/db/sockconn"
)

// These tests pin how a session honours the context of its calls
// (db/db.go's contract, watch.go): a call in flight whose context ends
// returns promptly with a lost connection, the server stops its
// statement, and the context costs nothing per call.

// ioModes are the two ways sessions wait: the watch closes either
// kind of socket.
var ioModes = []string{sockconn.ModeBlocking, sockconn.ModePoller}

// sleepers counts the sessions other than c's own that run a statement
// containing marker.
func sleepers(t *testing.T, c *conn, marker string) int {
	t.Helper()
	rows := text(t, mustQuery(t, c, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "+
		"AND pid <> pg_backend_pid() AND strpos(query, '"+marker+"') > 0"))
	n, _ := strconv.Atoi(rowsText(rows))
	return n
}

// waitNoSleepers fails t unless no session runs marker's statement
// within 10 s.
func waitNoSleepers(t *testing.T, admin *conn, marker string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); sleepers(t, admin, marker) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server still runs %s 10 s after its context ended", marker)
		}
	}
}

// checkAbandoned checks that err is the lost connection of a call whose
// context ended, of the kind ignore makes it, and that the session stays
// lost until Reconnect.
func checkAbandoned(t *testing.T, c *conn, err error, kind db.Kind) {
	t.Helper()
	e := asDBError(t, err)
	if e.State != stateConnectionFailure || e.Kind != kind || !strings.Contains(e.Msg, "context canceled") {
		t.Errorf("abandoned call: %+v; want %s of kind %v, naming the context", e, stateConnectionFailure, kind)
	}
	if _, err := c.Query(context.Background(), "SELECT 1"); err == nil || asDBError(t, err).State != stateConnectionFailure {
		t.Errorf("call after the abandoned one: %v; want %s", err, stateConnectionFailure)
	}
	if err := c.Reconnect(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if got := rowsText(text(t, mustQuery(t, c, "SELECT 1"))); got != "1" {
		t.Errorf("after Reconnect: %s", got)
	}
}

// TestContextEndsCallInFlight: a query or an execute that sleeps 30 s on
// the server returns within seconds of its context's end, as a lost
// connection (08006, a reconnect when listed as ignorable), and the
// server stops the sleep.
func TestContextEndsCallInFlight(t *testing.T) {
	calls := []struct {
		name string
		run  func(ctx context.Context, c *conn, marker string) error
	}{
		{"query", func(ctx context.Context, c *conn, marker string) error {
			_, err := c.Query(ctx, "SELECT pg_sleep(30) "+marker)
			return err
		}},
		{"execute", func(ctx context.Context, c *conn, marker string) error {
			s, err := c.Prepare(ctx, "SELECT pg_sleep(?) "+marker, nil)
			if err != nil {
				return err
			}
			_, err = s.Execute(ctx, []db.Value{{Type: db.ParamDouble, F: 30}})
			return err
		}},
	}
	for _, mode := range ioModes {
		for _, call := range calls {
			t.Run(mode+"/"+call.name, func(t *testing.T) {
				d := testDriver(t, map[string]string{"pgsql-io-mode": mode, "pgsql-ignore-errors": "08006"})
				c, admin := connect(t, d), connect(t, d)
				marker := "/* sbgo ctx test " + strconv.Itoa(os.Getpid()) + " " + mode + " " + call.name + " */"
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				time.AfterFunc(300*time.Millisecond, cancel)
				start := time.Now()
				err := call.run(ctx, c, marker)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("the call returned %v after its context ended", took)
				}
				waitNoSleepers(t, admin, marker)
				checkAbandoned(t, c, err, db.Reconnect)
			})
		}
	}
}

// TestContextDoneBeforeCall: a call started on a context already done
// fails at once, as a lost connection, whether the session has watched
// that context before or not.
func TestContextDoneBeforeCall(t *testing.T) {
	for _, watched := range []bool{false, true} {
		t.Run("watched="+strconv.FormatBool(watched), func(t *testing.T) {
			c := connect(t, testDriver(t, nil))
			ctx, cancel := context.WithCancel(context.Background())
			if watched {
				if _, err := c.Query(ctx, "SELECT 1"); err != nil {
					t.Fatal(err)
				}
			}
			cancel()
			s, err := c.Prepare(context.Background(), "SELECT 1", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Query(ctx, "SELECT 1")
			checkAbandoned(t, c, err, db.Fatal)
			if _, err := s.Execute(ctx, nil); err == nil {
				t.Error("execute on a done context succeeded")
			}
		})
	}
}

// TestContextEndedWhileIdle: a context that ends between calls leaves the
// session alone; calls with another context still run on it.
func TestContextEndedWhileIdle(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := c.Query(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(10 * time.Millisecond) // the context's AfterFunc runs
	if got := rowsText(text(t, mustQuery(t, c, "SELECT 1"))); got != "1" {
		t.Errorf("after the idle cancel: %s", got)
	}
	if _, err := c.Query(context.Background(), "SELECT 1"); err != nil {
		t.Errorf("background call after the idle cancel: %v", err)
	}
}

// TestContextCostsNothingPerCall: a query with a cancellable context,
// the same call after call as a worker's, allocates no more than with a
// background one: pgx is not asked to watch it.
func TestContextCostsNothingPerCall(t *testing.T) {
	c := connect(t, testDriver(t, nil))
	s, err := c.Prepare(context.Background(), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	allocs := func(ctx context.Context) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := c.Query(ctx, "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Execute(ctx, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	background, run := allocs(context.Background()), allocs(ctx)
	if run > background {
		t.Errorf("%.1f allocations per call with a cancellable context, %.1f with a background one", run, background)
	}
}
