package luabind

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"sbgo/db/dbtest"
	"sbgo/engine"
)

// These tests pin what the run's context (engine.Events.Context) does to
// a statement in flight: an event held in the driver is abandoned when the
// run gives up on it, and only then.

// fakeHeldEvent is an event whose one statement the server holds.
const fakeHeldEvent = `
function thread_init()
  con = sysbench.sql.driver():connect()
end
function event()
  con:query("SLOW")
end
function thread_done()
  print("thread_done ran")
end
`

// holdSlow makes f's server hold every "SLOW" until the test ends.
func holdSlow(t *testing.T, f *fakeScript) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	f.srv.On(dbtest.Exact("SLOW"), dbtest.Reply{Block: block})
}

// eventually polls cond for up to 10 s: what the tests wait for happens
// within milliseconds, the bound only keeps a slow machine from flaking.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not the case after 10 s", what)
		}
	}
}

// checkAbandoned checks that f's workers left their held statements: the
// connections closed, no thread_done, no error reported, and no goroutine
// left over from the run.
func checkAbandoned(t *testing.T, f *fakeScript, conns, goroutines int) {
	t.Helper()
	eventually(t, "every connection closed", func() bool { return len(f.srv.Log(dbtest.OpClose)) == conns })
	eventually(t, "the run's goroutines gone", func() bool { return runtime.NumGoroutine() <= goroutines })
	if strings.Contains(f.out.String(), "thread_done ran") {
		t.Errorf("thread_done ran after the run was abandoned")
	}
	if log := f.log.String(); strings.Contains(log, "lost connection") || strings.Contains(log, "SQL error") {
		t.Errorf("the abandoned statement's error was reported:\n%s", log)
	}
}

// TestFakeForcedShutdownAbandonsHeldStatement: with --forced-shutdown, the
// report is printed while the statements are held, then the workers are
// abandoned and end.
func TestFakeForcedShutdownAbandonsHeldStatement(t *testing.T) {
	f := loadFake(t, "run", fakeHeldEvent)
	holdSlow(t, f)
	before := runtime.NumGoroutine()
	const threads = 2
	cfg := engine.Config{Threads: threads, Time: 200 * time.Millisecond, ForcedShutdown: 200 * time.Millisecond, Percentile: 95}
	if code := engine.NewRun(cfg, f.lg).Execute(f.Script); code != engine.ExitForced {
		t.Fatalf("exit code %d, want %d:\n%s", code, engine.ExitForced, f.log.String())
	}
	if !strings.Contains(f.log.String(), "Number of unfinished transactions on forced shutdown: 2") {
		t.Errorf("no unfinished transactions in the report:\n%s", f.log.String())
	}
	checkAbandoned(t, f, threads, before)
}

// TestFakeSecondInterruptAbandonsHeldStatement: the first interrupt lets
// the event in flight run on; the second abandons it.
func TestFakeSecondInterruptAbandonsHeldStatement(t *testing.T) {
	f := loadFake(t, "run", fakeHeldEvent)
	holdSlow(t, f)
	before := runtime.NumGoroutine()
	r := engine.NewRun(engine.Config{Threads: 1, Percentile: 95, ForcedShutdown: -1}, f.lg)
	code := make(chan int, 1)
	go func() { code <- r.Execute(f.Script) }()
	eventually(t, "the statement in flight", func() bool { return len(f.srv.Log(dbtest.OpQuery)) == 1 })

	r.Interrupt()
	select {
	case c := <-code:
		t.Fatalf("the first interrupt ended the run (exit code %d): the event in flight must finish", c)
	case <-time.After(100 * time.Millisecond):
	}
	if n := len(f.srv.Log(dbtest.OpClose)); n != 0 {
		t.Fatalf("%d connections closed after the first interrupt", n)
	}

	r.Interrupt()
	select {
	case c := <-code:
		if c != engine.ExitFailed {
			t.Errorf("exit code %d, want %d", c, engine.ExitFailed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second interrupt did not end the run")
	}
	checkAbandoned(t, f, 1, before)
}

// TestFakeOutsideRunContextIsBackground: the main state (prepare and the
// like) carries a run's context only in init() and done(), so a run that
// ended does not cancel what the main state does afterwards.
func TestFakeOutsideRunContextIsBackground(t *testing.T) {
	f := loadFake(t, "run", `
function event() end
function done()
  sysbench.sql.driver():connect():query("SELECT 1")
end
`)
	if code := f.run(1, 1); code != engine.ExitOK {
		t.Fatalf("exit code %d:\n%s", code, f.log.String())
	}
	if got := f.srv.Log(dbtest.OpQuery); len(got) != 1 || strings.Contains(got[0], "error") {
		t.Errorf("done()'s query: %q, want it answered", got)
	}
	if f.main.ctx.Done() != nil {
		t.Errorf("the main state's context can be cancelled")
	}
}
