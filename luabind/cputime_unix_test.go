//go:build unix

package luabind

import (
	"syscall"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestOSClock checks that os.clock is the process's CPU time, as C's
// clock() is in LuaJIT, and not wall time since start as in gopher-lua:
// its value lies between two getrusage readings taken around it.
func TestOSClock(t *testing.T) {
	cpu := func() float64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return float64(int64(ru.Utime.Sec)+int64(ru.Stime.Sec)) + float64(int64(ru.Utime.Usec)+int64(ru.Stime.Usec))/1e6
	}
	L, _, _ := compatNewState(t)
	before := cpu()
	if err := L.DoString(`local x = 0 for i = 1, 200000 do x = x + i end clock = os.clock()`); err != nil {
		t.Fatal(err)
	}
	after := cpu()
	got := float64(L.GetGlobal("clock").(lua.LNumber))
	if got < before || got > after {
		t.Errorf("os.clock() = %v, want CPU time between %v and %v", got, before, after)
	}
}
