//go:build !sbgo_gosched

package sched

import _ "unsafe" // go:linkname

// Yield is runtime.goyield: a Gosched onto the current processor's own
// run queue, where its own thread finds the goroutine next, without
// waking an idle thread to look for work. Unlike Gosched it neither goes
// through the global run queue (where workers traded threads) nor wakes
// a thread beside an idle processor; docs/performance.md has the
// measurements.
//
// The runtime keeps goyield reachable this way for the packages that use
// it (go.dev/issue/67401). Should a Go release stop linking it, build
// with -tags sbgo_gosched: gosched.go then falls back to runtime.Gosched,
// slower but correct. TestYieldIsGoyield tells which one is built.
//
//go:linkname Yield runtime.goyield
func Yield()

// linked tells that Yield is the runtime's goyield.
const linked = true
