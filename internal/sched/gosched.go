//go:build sbgo_gosched

package sched

import "runtime"

// Yield falls back to runtime.Gosched where runtime.goyield does not
// link (see goyield.go): the goroutine goes through the global run queue
// and may wake an idle thread, which costs client CPU but changes no
// result.
func Yield() { runtime.Gosched() }

// linked tells that Yield is not the runtime's goyield.
const linked = false
