package engine

import (
	"runtime"
	"testing"
	"time"
)

// ownThreads is the policy of threads workers on this machine whose
// sessions block.
func ownThreads(threads int) ThreadPolicy {
	return DecideThreadPolicy(threads, runtime.NumCPU(), func(ThreadPolicy) bool { return true })
}

// TestDecideThreadPolicy locks the decisions: threads x CPUs x whether the
// sessions block -> the policy; the driver is asked only where the
// workers may own OS threads.
func TestDecideThreadPolicy(t *testing.T) {
	shared := func(threads, cpus int, may bool) ThreadPolicy {
		return ThreadPolicy{Threads: threads, CPUs: cpus, MayOwnThreads: may}
	}
	for _, tt := range []struct {
		name          string
		threads, cpus int
		blocks        bool
		want          ThreadPolicy
	}{
		// Sessions on the poller share the processors at any count.
		{"poller, few", 2, 2, false, shared(2, 2, true)},
		{"poller, many", 65, 2, false, shared(65, 2, false)},
		// Blocking sessions, few workers: locked, a P per worker.
		{"1 worker", 1, 2, true, ThreadPolicy{1, 2, true, true, true, 1, quickWait}},
		{"below 16/CPU", 31, 2, true, ThreadPolicy{31, 2, true, true, true, 31, quickWait}},
		// At 16 per CPU: still locked.
		{"16/CPU", 32, 2, true, ThreadPolicy{32, 2, true, true, true, 32, quickWait}},
		// Beyond 16 per CPU: own threads, not locked.
		{"above 16/CPU", 33, 2, true, ThreadPolicy{33, 2, true, true, false, 33, quickWait}},
		{"32/CPU", 64, 2, true, ThreadPolicy{64, 2, true, true, false, 64, quickWait}},
		// Beyond 32 per CPU: the processors are shared, blocking or not.
		{"above 32/CPU", 65, 2, true, shared(65, 2, false)},
		// The bounds scale with the CPUs.
		{"64 on 4 CPUs", 64, 4, true, ThreadPolicy{64, 4, true, true, true, 64, quickWait}},
		{"129 on 4 CPUs", 129, 4, true, shared(129, 4, false)},
		// A CPU count below 1 counts as 1.
		{"no CPU count", 16, 0, true, ThreadPolicy{16, 1, true, true, true, 16, quickWait}},
	} {
		asked := false
		got := DecideThreadPolicy(tt.threads, tt.cpus, func(p ThreadPolicy) bool {
			asked = true
			if p.OwnThreads || p.Threads != tt.threads || !p.MayOwnThreads {
				t.Errorf("%s: driver asked with %+v", tt.name, p)
			}
			return tt.blocks
		})
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
		if asked != tt.want.MayOwnThreads {
			t.Errorf("%s: driver asked %v, want %v", tt.name, asked, tt.want.MayOwnThreads)
		}
	}
	if got := DecideThreadPolicy(2, 2, nil); got != shared(2, 2, true) {
		t.Errorf("nil sessionsBlock: %+v", got)
	}
}

// TestOptionsThreadPolicy: options carry the decided policy; before one is
// decided, what --threads allows with sessions that do not block.
func TestOptionsThreadPolicy(t *testing.T) {
	o := NewGeneralOptions()
	threads := "3"
	if err := o.Set("threads", &threads); err != nil {
		t.Fatal(err)
	}
	if got, want := o.ThreadPolicy(), DecideThreadPolicy(3, runtime.NumCPU(), nil); got != want {
		t.Errorf("undecided: %+v, want %+v", got, want)
	}
	p := ThreadPolicy{Threads: 3, CPUs: 2, MayOwnThreads: true, OwnThreads: true, Locked: true, Procs: 4, QuickWait: time.Millisecond}
	o.SetThreadPolicy(p)
	if got := o.ThreadPolicy(); got != p {
		t.Errorf("decided: %+v, want %+v", got, p)
	}
}
