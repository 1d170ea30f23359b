package engine

import (
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
)

// sqlWorkload counts statements as the SQL bindings do: each event
// counts a read, a write and an other; every tenth event overall counts
// a failure first (an ignored error, or a reconnect every twentieth), as
// an event restarted under the same timer does. init() in the main state
// counts one other, which the report shows as thread 0's.
type sqlWorkload struct {
	started atomic.Int64 // events started, over every worker
}

func (w *sqlWorkload) SQLMode() bool { return true }

func (w *sqlWorkload) Init(ev *Events) error {
	ev.Count(CounterOther)
	return nil
}

func (w *sqlWorkload) Done() error { return nil }

func (w *sqlWorkload) NewThread(id int, ev *Events) (Thread, error) {
	return &sqlThread{w: w, ev: ev}, nil
}

type sqlThread struct {
	w  *sqlWorkload
	ev *Events
}

func (t *sqlThread) Init() error { return nil }
func (t *sqlThread) Done() error { return nil }
func (t *sqlThread) Close()      {}

func (t *sqlThread) Run() error {
	for t.ev.More() {
		t.ev.Start()
		switch n := t.w.started.Add(1); {
		case n%20 == 0:
			t.ev.Count(CounterReconnect)
		case n%10 == 0:
			t.ev.Count(CounterError)
		}
		t.ev.Count(CounterRead)
		t.ev.Count(CounterWrite)
		t.ev.Count(CounterOther)
		t.ev.Stop()
	}
	return nil
}

var sqlReportLine = regexp.MustCompile(`(?m)^ +(read|write|other|total|transactions|queries|ignored errors|reconnects): +(\d+)`)

// TestSQLReportCountsEveryWorker pins the SQL statistics of a run with
// several workers and --events: the counters of every worker and of the
// main state's init() add up exactly, errors and reconnects included.
func TestSQLReportCountsEveryWorker(t *testing.T) {
	const events = 1000
	w := &sqlWorkload{}
	code, out := execute(t, Config{Threads: 4, Events: events}, w)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	got := map[string]uint64{}
	for _, m := range sqlReportLine.FindAllStringSubmatch(out, -1) {
		got[m[1]], _ = strconv.ParseUint(m[2], 10, 64)
	}
	want := map[string]uint64{
		"read":           events,
		"write":          events,
		"other":          events + 1, // init()'s
		"total":          3*events + 1,
		"queries":        3*events + 1,
		"transactions":   events,
		"ignored errors": events/10 - events/20,
		"reconnects":     events / 20,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d", k, got[k], v)
		}
	}
}
