package luabind

import (
	"strings"
	"testing"
)

// TestCommandBarrierOrdersPhases: the threads of a parallel command pass
// sysbench.cmdline.barrier() only together, round after round, so every
// line of one phase is printed before any line of the next; a thread that
// returns early stops counting; outside a parallel command it returns
// true at once.
func TestCommandBarrierOrdersPhases(t *testing.T) {
	f := loadFake(t, "phases", `
local barrier = sysbench.cmdline.barrier
function phases()
  if sysbench.tid == 3 then return end -- ends early: not waited for
  for phase = 1, 3 do
    print("phase " .. phase)
    if not barrier() then error("broken") end
  end
end
function serial() print("serial " .. tostring(barrier())) end
sysbench.cmdline.commands = {
  phases = {phases, sysbench.cmdline.PARALLEL_COMMAND},
  serial = {serial},
}`)
	if err := f.RunCommand("phases", 4); err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(strings.ReplaceAll(f.out.String(), "phase ", "p"))
	if len(lines) != 9 {
		t.Fatalf("%d lines, want 3 phases of 3 threads:\n%s\nlog:\n%s", len(lines), f.out.String(), f.log.String())
	}
	for i, l := range lines {
		if want := []string{"p1", "p2", "p3"}[i/3]; l != want {
			t.Fatalf("line %d is %s, want %s: a phase began before the last one ended:\n%s", i, l, want, f.out.String())
		}
	}
	if err := f.RunCommand("serial", 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.out.String(), "serial true\n") {
		t.Errorf("barrier outside a parallel command:\n%s", f.out.String())
	}
}

// TestCommandBarrierBrokenByFailure: when a thread of a parallel command
// fails, the barrier returns false to the threads waiting at it and to
// those that arrive later, instead of waiting for the failed thread.
func TestCommandBarrierBrokenByFailure(t *testing.T) {
	f := loadFake(t, "load", `
function load()
  if sysbench.tid == 0 then error("load failed") end
  print("first " .. tostring(sysbench.cmdline.barrier()))
  print("again " .. tostring(sysbench.cmdline.barrier()))
end
sysbench.cmdline.commands = {load = {load, sysbench.cmdline.PARALLEL_COMMAND}}`)
	if err := f.RunCommand("load", 3); err != nil {
		t.Fatal(err)
	}
	out := f.out.String()
	if strings.Count(out, "first false\n") != 2 || strings.Count(out, "again false\n") != 2 {
		t.Errorf("barrier after a failed thread:\n%s", out)
	}
	if !strings.Contains(f.log.String(), "load failed") {
		t.Errorf("the failure is not logged:\n%s", f.log.String())
	}
}
