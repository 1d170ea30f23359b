package main

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startBinary starts sbgo in the testdata directory and returns the
// command and its output buffers.
func startBinary(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(sbgoBinary, args...)
	cmd.Dir = "../../testdata"
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &out
}

// waitExit waits for cmd, failing the test if it does not end within
// limit (a hang, not a slow machine: limit is many times what it needs).
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("sbgo still running %v after the signal", limit)
		return -1
	}
}

// TestFirstInterruptPrintsReport: an endless run stopped by SIGINT prints
// the report so far, marked incomplete, and exits 1.
func TestFirstInterruptPrintsReport(t *testing.T) {
	cmd, out := startBinary(t, "sleepy.lua", "--time=0", "--threads=2", "run")
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	code := waitExit(t, cmd, 20*time.Second)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	text := out.String()
	for _, want := range []string{
		"WARNING: the run stopped early (interrupted): the report below is incomplete",
		"General statistics:",
		"Threads fairness:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestSecondInterruptExitsAtOnce: while the first SIGINT waits for an
// event that sleeps a minute, a second one ends the process at once.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	cmd, out := startBinary(t, "sleepy.lua", "--sleep_ms=60000", "--time=0", "run")
	time.Sleep(700 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	code := waitExit(t, cmd, 20*time.Second)
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, out.String())
	}
}
