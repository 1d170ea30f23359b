package main

import (
	"testing"
	"time"

	"sbgo/db"
	"sbgo/engine"
)

// TestDecideThreadPolicy locks the decisions the command line makes once
// per run: threads x CPUs x driver and io mode -> the policy, and that the
// drivers find it in the options.
func TestDecideThreadPolicy(t *testing.T) {
	const wait = 50 * time.Millisecond
	type policy = engine.ThreadPolicy
	// own is the policy of workers that own OS threads.
	own := func(threads, cpus int, locked bool, procs int) policy {
		return policy{Threads: threads, CPUs: cpus, MayOwnThreads: true, OwnThreads: true, Locked: locked, Procs: procs, QuickWait: wait}
	}
	for _, tt := range []struct {
		name          string
		threads, cpus int
		kv            []string // options beyond --threads
		want          policy
	}{
		// MySQL's auto mode blocks while the workers may own OS threads:
		// a P per worker, locked up to 16 per CPU, unlocked beyond.
		{"mysql auto, 1", 1, 2, nil, own(1, 2, true, 1)},
		{"mysql auto, 31", 31, 2, nil, own(31, 2, true, 31)},
		{"mysql auto, 32", 32, 2, nil, own(32, 2, true, 32)},
		{"mysql auto, 33", 33, 2, nil, own(33, 2, false, 33)},
		{"mysql auto, 64", 64, 2, nil, own(64, 2, false, 64)},
		// Beyond 32 per CPU, the poller and shared processors.
		{"mysql auto, 65", 65, 2, nil, policy{Threads: 65, CPUs: 2}},
		{"mysql auto, 65 on 4 CPUs", 65, 4, nil, own(65, 4, false, 65)},
		// Blocking sessions beyond the bound share the processors too.
		{"mysql blocking, 65", 65, 2, []string{"mysql-io-mode", "blocking"}, policy{Threads: 65, CPUs: 2}},
		{"mysql poller, 2", 2, 2, []string{"mysql-io-mode", "poller"}, policy{Threads: 2, CPUs: 2, MayOwnThreads: true}},
		{"go-sql-driver, 2", 2, 2, []string{"mysql-io-mode", "go-sql-driver"}, policy{Threads: 2, CPUs: 2, MayOwnThreads: true}},
		// PostgreSQL's auto mode blocks up to 2 threads per CPU only.
		{"pgsql auto, 4", 4, 2, []string{"db-driver", "pgsql"}, own(4, 2, true, 4)},
		{"pgsql auto, 5", 5, 2, []string{"db-driver", "pgsql"}, policy{Threads: 5, CPUs: 2, MayOwnThreads: true}},
		{"pgsql blocking, 40", 40, 2, []string{"db-driver", "pgsql", "pgsql-io-mode", "blocking"}, own(40, 2, false, 40)},
		// A driver that is not registered never blocks.
		{"unknown driver", 2, 2, []string{"db-driver", "none"}, policy{Threads: 2, CPUs: 2, MayOwnThreads: true}},
	} {
		opts := policyOptions(t, tt.kv)
		if got := decideThreadPolicy(opts, tt.threads, tt.cpus); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
		if got := opts.ThreadPolicy(); got != tt.want {
			t.Errorf("%s: options carry %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// policyOptions is the general and driver options with kv set.
func policyOptions(t *testing.T, kv []string) *engine.Options {
	t.Helper()
	opts := engine.NewGeneralOptions()
	for _, f := range db.Factories() {
		if err := opts.Register(f.Options()...); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if err := opts.Set(kv[i], &kv[i+1]); err != nil {
			t.Fatalf("--%s=%s: %v", kv[i], kv[i+1], err)
		}
	}
	return opts
}
