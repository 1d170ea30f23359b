package luabind

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sbgo/db/dbtest"
	"sbgo/engine"
)

// TestFakeDBTimeoutRestartsOnNewConnection: with --db-timeout, a
// statement the server holds fails as a lost connection once the time
// has passed; the driver's ignore list (dbtest's lost connection is
// always a reconnect) makes the event reconnect and run again, and the
// run counts one reconnect and every event.
func TestFakeDBTimeoutRestartsOnNewConnection(t *testing.T) {
	f := loadFake(t, "run", fakeHeldEvent, "--db-timeout=0.05")
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	f.srv.Add(&dbtest.Rule{Match: dbtest.Exact("SLOW"), Calls: dbtest.Nth(2), Reply: dbtest.Reply{Block: block}})
	const events = 3
	// The time limit only ends the test should the timeout not work.
	cfg := engine.Config{Threads: 1, Events: events, Time: 10 * time.Second, Percentile: 95, ForcedShutdown: -1}
	if code := engine.NewRun(cfg, f.lg).Execute(f.Script); code != engine.ExitOK {
		t.Fatalf("exit code %d:\n%s", code, f.log.String())
	}
	// The held call is logged as it starts, without its outcome.
	want := []string{"1 query SLOW", "1 query SLOW", "1 reconnect", "1 query SLOW", "1 query SLOW"}
	if got := f.srv.Log(dbtest.OpQuery, dbtest.OpReconnect); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := f.counts(t); got.transactions != events || got.reconnects != 1 || got.errors != 0 {
		t.Errorf("counters %+v, want %d transactions and 1 reconnect", got, events)
	}
}

// TestStmtTimer pins the timer's contract: no timer without a limit; a
// call within the limit keeps the calls' context for the next one; a
// call past it has its context cancelled, worded as a deadline, and the
// next call gets a fresh one; the state's own context ending is not a
// deadline.
func TestStmtTimer(t *testing.T) {
	if newStmtTimer(0) != nil {
		t.Fatal("a timer without a limit")
	}
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	tm := newStmtTimer(20 * time.Millisecond)
	defer tm.close()

	first := tm.begin(parent)
	tm.end()
	if second := tm.begin(parent); second != first {
		t.Error("a call within the limit changed the calls' context")
	}
	// The call outlives its limit: wait for the context, bounded so a
	// broken timer fails rather than hangs.
	select {
	case <-first.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a call past its limit kept its context")
	}
	if !errors.Is(first.Err(), context.DeadlineExceeded) {
		t.Errorf("a timed-out call's context says %v, want a deadline", first.Err())
	}
	tm.end()
	third := tm.begin(parent)
	if third == first || third.Err() != nil {
		t.Errorf("the call after a timeout did not get a fresh context (err %v)", third.Err())
	}
	cancel()
	if !errors.Is(third.Err(), context.Canceled) {
		t.Errorf("the state's context ended, the call's says %v, want cancelled", third.Err())
	}
	tm.end()

	// A late firing of an ended call's timer leaves the next call alone.
	tm2 := newStmtTimer(time.Hour)
	defer tm2.close()
	ctx := tm2.begin(context.Background())
	tm2.expire() // as if the timer fired now, long before the hour
	if ctx.Err() != nil {
		t.Error("an early firing cancelled a call that is not due")
	}
	tm2.end()
}
