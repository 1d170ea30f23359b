//go:build linux || darwin || freebsd

package sockconn

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// echoEnv, when set, makes the test binary an echo server listening on
// TCP loopback: the benchmark runs the server in a process of its own so
// that the CPU time it measures is the client's alone.
const echoEnv = "SOCKCONN_ECHO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) != "" {
		serveEcho()
		return
	}
	os.Exit(m.Run())
}

// serveEcho prints its address, echoes every connection and exits when
// its standard input closes.
func serveEcho() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(c, c)
		}
	}()
	io.Copy(io.Discard, os.Stdin)
}

// startEchoProcess runs the echo server and returns its address.
func startEchoProcess(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), echoEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(addr)
}

// cpuTime is the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRoundTrip: small request/response round trips, as a database
// session makes them, over connections that each have a goroutine of
// their own, with Go's connections (poller), with PollerConn
// (poller-raw), with Conn (blocking), and with Conn and each goroutine
// locked to its thread (blocking-locked).
// cpu-ns/op is the client process's CPU time per round trip, the figure
// that matters on a machine whose cores the server shares.
func BenchmarkRoundTrip(b *testing.B) {
	addr := startEchoProcess(b)
	var netDialer net.Dialer
	modes := []struct {
		name string
		dial func(context.Context, string, string) (net.Conn, error)
		lock bool
	}{
		{"poller", netDialer.DialContext, false},
		{"poller-raw", DialPoller, false},
		{"blocking", Dial, false},
		{"blocking-locked", Dial, true},
	}
	for _, conns := range []int{1, 2, 8, 32} {
		for _, mode := range modes {
			b.Run(fmt.Sprintf("conns=%d/%s", conns, mode.name), func(b *testing.B) {
				cs := make([]net.Conn, conns)
				for i := range cs {
					c, err := mode.dial(context.Background(), "tcp", addr)
					if err != nil {
						b.Fatal(err)
					}
					defer c.Close()
					cs[i] = c
				}
				request := make([]byte, 64)
				b.ResetTimer()
				cpu0 := cpuTime()
				var wg sync.WaitGroup
				for i, c := range cs {
					n := b.N / conns
					if i < b.N%conns {
						n++
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						if mode.lock {
							runtime.LockOSThread()
							defer runtime.UnlockOSThread()
						}
						response := make([]byte, len(request))
						for range n {
							if _, err := c.Write(request); err != nil {
								b.Error(err)
								return
							}
							if _, err := io.ReadFull(c, response); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
