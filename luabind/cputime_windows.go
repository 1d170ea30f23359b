package luabind

import "syscall"

// processCPUTime is the process's user + kernel CPU time in seconds, from
// GetProcessTimes, the call Windows' own clock() would need; ok is false
// when the call fails.
func processCPUTime() (sec float64, ok bool) {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, false
	}
	var created, exited, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(self, &created, &exited, &kernel, &user) != nil {
		return 0, false
	}
	// Filetime counts 100 ns ticks.
	ticks := filetimeTicks(kernel) + filetimeTicks(user)
	return float64(ticks) / 1e7, true
}

func filetimeTicks(f syscall.Filetime) uint64 {
	return uint64(f.HighDateTime)<<32 | uint64(f.LowDateTime)
}
