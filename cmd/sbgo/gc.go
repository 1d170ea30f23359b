package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Thread counts at which tuneGC changes the collector's pace.
const (
	// fewRunThreads: the Lua states of 16 workers hold about 4 MB.
	fewRunThreads = 16
	// smallRunThreads: the Lua states of 64 workers hold about 15 MB.
	smallRunThreads = 64
	// largeRunThreads: from here the Lua states hold 250 MB and more.
	largeRunThreads = 1024
)

// tuneGC sets how far the heap may grow past what is live before the
// next collection, unless GOGC is set, and whether paceGC adjusts it. It
// runs before every run, so a thread sweep's steps each get their own.
// Each collection stops the world, and the stop waits for threads the
// kernel has put aside while the workers keep every CPU busy, so a script
// that allocates fast wants collections far apart: up to 16 workers the
// heap may grow to 17 times what is live (at least 64 MB: Go's smallest
// goal is 4 MB times GOGC/100), up to 64 to five times. But a heap that
// large is memory the caches no longer hold, and a script that allocates
// at the pace of its round trips runs faster on a small one; so up to 64
// workers paceGC lowers the percentage to what keeps collections
// gcMinInterval apart, down to gcFloorPercent. With thousands of workers
// the Lua states are nearly all of the heap and memory is what is scarce:
// the heap grows by a quarter only (docs/performance.md, "The garbage
// collector").
func tuneGC(threads int) {
	percent, ceiling := gcPolicy(threads)
	gcPace.Lock()
	defer gcPace.Unlock()
	if os.Getenv("GOGC") != "" {
		gcPace.ceiling = 0
		return
	}
	debug.SetGCPercent(percent)
	gcPace.ceiling, gcPace.current = ceiling, percent
	if ceiling > 0 {
		gcPace.once.Do(func() { go paceGC() })
	}
}

// gcPolicy returns the GC percentage a run of threads workers starts
// with, and the highest paceGC may set (0: no pacing).
func gcPolicy(threads int) (percent, paceCeiling int) {
	switch {
	case threads <= fewRunThreads:
		return 1600, 1600
	case threads <= smallRunThreads:
		return 400, 400
	case threads < largeRunThreads:
		return 100, 0
	}
	return 25, 0
}

// gcMinInterval is how far apart paceGC keeps collections, and
// gcPaceEvery how often it measures the allocation rate.
//
// Why 200 ms: a script that allocates as fast as Lua runs, with a worker
// on every CPU, has no idle CPU for the collector, and each collection
// costs it the stops and the mark work; a script that allocates at the
// pace of its round trips stays at gcFloorPercent either way, so only the
// first gains (docs/performance.md, "The garbage collector").
const (
	gcMinInterval = 200 * time.Millisecond
	gcPaceEvery   = 100 * time.Millisecond
)

// gcFloorPercent is the least percentage paceGC sets: a heap five times
// what is live, 20 MB when Go's 4 MB minimum is live.
//
// Why not Go's 100: each collection asks every processor to stop several
// times (its start, the flushes that end marking, its end), and a worker
// that owns its OS thread answers each request with a hand-off of its
// processor to a second thread and back, four futex calls and two context
// switches. A script that allocates at the pace of its round trips
// collected every half second at 100 for no gain in cache
// (docs/performance.md, "The garbage collector").
const gcFloorPercent = 400

// gcPace is what tuneGC and paceGC share: the ceiling tuneGC set (0 when
// the percentage must stay as it is) and the percentage last set.
var gcPace struct {
	sync.Mutex
	once             sync.Once
	ceiling, current int
}

// paceGC sets, every gcPaceEvery for the rest of the process, the GC
// percentage gcPercentFor gives for the allocation rate it measured, when
// it differs from the current one by more than a quarter.
func paceGC() {
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	lastAllocs, lastTime := samples[0].Value.Uint64(), time.Now()
	for range time.Tick(gcPaceEvery) {
		metrics.Read(samples)
		now := time.Now()
		rate := float64(samples[0].Value.Uint64()-lastAllocs) / now.Sub(lastTime).Seconds()
		lastAllocs, lastTime = samples[0].Value.Uint64(), now
		gcPace.Lock()
		if gcPace.ceiling > 0 {
			p := gcPercentFor(rate, samples[1].Value.Uint64(), gcPace.ceiling)
			if p*4 < gcPace.current*3 || p*3 > gcPace.current*4 {
				debug.SetGCPercent(p)
				gcPace.current = p
			}
		}
		gcPace.Unlock()
	}
}

// gcPercentFor returns the percentage by which a heap of live bytes may
// grow so that, allocating rate bytes a second, the next collection comes
// gcMinInterval later: no less than gcFloorPercent, no more than ceiling
// (which wins where it is lower).
func gcPercentFor(rate float64, live uint64, ceiling int) int {
	const minLive = 4 << 20 // Go's heap goal is at least 4 MB times GOGC/100
	if live < minLive {
		live = minLive
	}
	p := rate * gcMinInterval.Seconds() / float64(live) * 100
	floor := min(gcFloorPercent, ceiling)
	return int(min(max(p, float64(floor)), float64(ceiling)))
}
