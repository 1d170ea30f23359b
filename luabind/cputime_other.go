//go:build !unix && !windows

package luabind

// processCPUTime has no source on this system (js/wasm, plan9, wasip1):
// os.clock() returns -1, as clock() does when the time is not available.
func processCPUTime() (sec float64, ok bool) { return 0, false }
