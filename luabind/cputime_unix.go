//go:build unix

package luabind

import "syscall"

// processCPUTime is the process's user + system CPU time in seconds, from
// getrusage(2), which every Unix has; ok is false when the call fails.
func processCPUTime() (sec float64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	// Field widths differ per system (Usec is 32 bits on macOS): widen first.
	usec := int64(ru.Utime.Usec) + int64(ru.Stime.Usec)
	return float64(int64(ru.Utime.Sec)+int64(ru.Stime.Sec)) + float64(usec)/1e6, true
}
