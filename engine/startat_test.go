package engine

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStartAtWaits: with StartAt the workers, ready long before, run no
// event before that instant, and the measured run starts there.
func TestStartAtWaits(t *testing.T) {
	var mu sync.Mutex
	var first time.Time
	w := &fakeWorkload{event: func(tid, n int) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); first.IsZero() || now.Before(first) {
			first = now
		}
		return false, nil
	}}
	at := time.Now().Add(300 * time.Millisecond)
	out := &lockedBuffer{}
	r := NewRun(Config{Threads: 3, Events: 30, Percentile: 95, ForcedShutdown: -1, StartAt: at}, NewLogger(out, 3))
	if code := r.Execute(w); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if first.Before(at) {
		t.Errorf("the first event started %v before --start-at", at.Sub(first))
	}
	if s := r.Summary(); s.Start.Before(at) || !s.Complete {
		t.Errorf("the run started %v, --start-at %v (complete %v)", s.Start, at, s.Complete)
	}
	text := out.String()
	if i, j := strings.Index(text, "Waiting "), strings.Index(text, "Threads started!"); i < 0 || j < i {
		t.Errorf("no wait before the start:\n%s", text)
	}
}

// TestStartAtPassed: workers ready after StartAt run nothing; the run
// fails with one line saying why.
func TestStartAtPassed(t *testing.T) {
	w := &fakeWorkload{}
	at := time.Now().Add(-1500 * time.Millisecond)
	out := &lockedBuffer{}
	r := NewRun(Config{Threads: 2, Events: 10, Percentile: 95, ForcedShutdown: -1, StartAt: at}, NewLogger(out, 3))
	if code := r.Execute(w); code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if n := w.started.Load(); n != 0 {
		t.Errorf("%d events ran", n)
	}
	text := out.String()
	if !strings.Contains(text, "FATAL: --start-at="+at.Format(time.RFC3339Nano)+" passed 1.") ||
		!strings.Contains(text, "before the workers were ready: this client would not measure the same window as the others") {
		t.Errorf("no FATAL line about the late start:\n%s", text)
	}
	if strings.Contains(text, "Threads started!") || strings.Contains(text, "General statistics") {
		t.Errorf("a late client reported a run:\n%s", text)
	}
	if s := r.Summary(); s.Complete || s.Reason != "the workers were ready after --start-at" {
		t.Errorf("summary complete %v, reason %q", s.Complete, s.Reason)
	}
}

// TestStartAtInterrupted: an interrupt during the wait ends the run
// without an event.
func TestStartAtInterrupted(t *testing.T) {
	w := &fakeWorkload{}
	out := &lockedBuffer{}
	r := NewRun(Config{Threads: 2, Percentile: 95, ForcedShutdown: -1, StartAt: time.Now().Add(time.Hour)}, NewLogger(out, 3))
	time.AfterFunc(100*time.Millisecond, r.Interrupt)
	if code := r.Execute(w); code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	if n := w.started.Load(); n != 0 {
		t.Errorf("%d events ran", n)
	}
	if !strings.Contains(out.String(), "the run stopped early (interrupted)") {
		t.Errorf("no incomplete marker:\n%s", out)
	}
}
