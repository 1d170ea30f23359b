package main

import (
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sbgo/internal/faultproxy"
)

// These tests put a fault proxy between sbgo and the server and make it
// stop forwarding (a blackhole: the sockets stay open, nothing arrives),
// the case of issue #28 where sbgo waited for as long as the proxy
// wanted. Every wait is bounded generously, so that a hang fails the
// test instead of holding it; how soon the runs really end is measured
// by TestDeadlineFigures (docs/reliability.md, "Deadlines").

// blackholeTarget is one way of talking to a server: a driver and an io
// mode, and the options that point sbgo at the proxy.
type blackholeTarget struct {
	name   string
	server string // the real server, "127.0.0.1:3306"
	lost   string // the driver's lost-connection code
	args   func(port int) []string
}

// mysqlVia and pgsqlVia are sbgo's options for a server behind a proxy
// on port, with io mode mode.
func mysqlVia(mode string) func(int) []string {
	return func(port int) []string {
		return []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(port),
			"--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest", "--mysql-io-mode=" + mode}
	}
}

func pgsqlVia(mode string) func(int) []string {
	return func(port int) []string {
		return []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + strconv.Itoa(port),
			"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest", "--pgsql-sslmode=disable",
			"--pgsql-io-mode=" + mode}
	}
}

// blackholeTargets are every driver and io mode a run can wait in.
var blackholeTargets = []blackholeTarget{
	{"mysql-blocking", "127.0.0.1:3306", "2013", mysqlVia("blocking")},
	{"mysql-poller", "127.0.0.1:3306", "2013", mysqlVia("poller")},
	{"mysql-go-sql-driver", "127.0.0.1:3306", "2013", mysqlVia("go-sql-driver")},
	{"pgsql-blocking", "127.0.0.1:5432", "08006", pgsqlVia("blocking")},
	{"pgsql-poller", "127.0.0.1:5432", "08006", pgsqlVia("poller")},
}

// needServer fails the test when nothing listens on addr: these tests
// are about a real server's sessions.
func needServer(t testing.TB, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("a server on %s is needed: %v", addr, err)
	}
	c.Close()
}

// proxied is sbgo running through a fault proxy.
type proxied struct {
	proxy *faultproxy.Proxy
	cmd   *exec.Cmd
	out   *watchedOutput
	exit  chan int // the exit code, once
	ended time.Time
}

// newProxy starts a proxy to tg's server, closed at the end of the test.
func newProxy(t testing.TB, tg blackholeTarget) *faultproxy.Proxy {
	t.Helper()
	needServer(t, tg.server)
	return startProxy(t, tg.server)
}

// startProxied starts a proxy to tg's server and sbgo on sql_query.lua
// through it, with args after tg's options. blackholed starts the proxy
// blackholed.
func startProxied(t testing.TB, tg blackholeTarget, blackholed bool, args ...string) *proxied {
	t.Helper()
	p := newProxy(t, tg)
	p.Blackhole(blackholed)
	return startThrough(t, p, "sql_query.lua", append(tg.args(p.Port()), args...)...)
}

// startThrough starts sbgo with script and args, which point it at p.
func startThrough(t testing.TB, p *faultproxy.Proxy, script string, args ...string) *proxied {
	t.Helper()
	all := append([]string{script}, args...)
	cmd := exec.Command(sbgoBinary, all...)
	cmd.Dir = "../../testdata"
	out := &watchedOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	r := &proxied{proxy: p, cmd: cmd, out: out, exit: make(chan int, 1)}
	go func() {
		err := cmd.Wait()
		r.ended = time.Now()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		r.exit <- code
	}()
	return r
}

// waitFor waits until the output has text, for at most limit.
func (r *proxied) waitFor(t testing.TB, text string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(r.out.String(), text); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %v:\n%s", text, limit, r.out.String())
		}
	}
}

// wait returns the exit code, failing the test when sbgo is still running
// after limit: a hang, not a slow machine, as limit is many times what
// the run needs.
func (r *proxied) wait(t testing.TB, limit time.Duration) int {
	t.Helper()
	select {
	case code := <-r.exit:
		return code
	case <-time.After(limit):
		t.Fatalf("sbgo still running after %v:\n%s", limit, r.out.String())
		return -1
	}
}

// expectExit waits for sbgo (see wait), checks its exit code and that
// its output has each of wants, and returns the output.
func (r *proxied) expectExit(t *testing.T, limit time.Duration, code int, wants ...string) string {
	t.Helper()
	got := r.wait(t, limit)
	out := r.out.String()
	if got != code {
		t.Errorf("exit %d, want %d:\n%s", got, code, out)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	return out
}

// outageLine is an intermediate report line of a second without a
// finished event.
var outageLine = regexp.MustCompile(`(?m)^\[ \d+s \] thds: \d+ tps: 0\.00 qps: 0\.00 `)

// maxLatency is the report's latency maximum in ms.
func maxLatency(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^ +max: +([0-9.]+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no latency maximum:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// checkAbandonedReport checks the report of a run that a blackhole held
// at its deadline: both events abandoned as the lost-connection error
// (fatal: not in the ignore list), so no ignored error; their wait in
// the maximum; seconds of zero tps during the outage; the report itself.
func checkAbandonedReport(t *testing.T, tg blackholeTarget, out string) {
	t.Helper()
	for _, want := range []string{
		"WARNING: 2 events in flight abandoned 0.8 s after the run stopped (error " + tg.lost + ", fatal): the report below is incomplete",
		"SQL statistics:", "General statistics:", "Threads fairness:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := reportNumber(t, out, "ignored errors"); n != 0 {
		t.Errorf("%d ignored errors: the abandoned events' error is fatal", n)
	}
	// The events waited from the blackhole to the deadline: a second
	// at least, the 0.8 s grace included.
	if max := maxLatency(t, out); max < 1000 {
		t.Errorf("latency maximum %v ms hides the stall", max)
	}
	if !outageLine.MatchString(out) {
		t.Errorf("no second of zero tps during the outage:\n%s", out)
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Errorf("sbgo panicked:\n%s", out)
	}
}

// TestBlackholeEndsAtTimeLimit: the server stops answering during a
// --time=3 run; at the time limit plus the grace the events in flight are
// abandoned, the report is printed and sbgo exits 1, whatever the driver
// and io mode.
func TestBlackholeEndsAtTimeLimit(t *testing.T) {
	for _, tg := range blackholeTargets {
		t.Run(tg.name, func(t *testing.T) {
			r := startProxied(t, tg, false, "--threads=2", "--time=3", "--report-interval=1", "run")
			r.waitFor(t, "Threads started!", 30*time.Second)
			time.Sleep(500 * time.Millisecond)
			r.proxy.Blackhole(true)
			checkAbandonedReport(t, tg, r.expectExit(t, 3*time.Second+15*time.Second, 1))
		})
	}
}

// TestBlackholeSIGTERM: SIGTERM during a blackhole ends an endless run at
// the grace: the report, marked interrupted and incomplete, and exit 1.
func TestBlackholeSIGTERM(t *testing.T) {
	for _, tg := range blackholeTargets {
		t.Run(tg.name, func(t *testing.T) {
			r := startProxied(t, tg, false, "--threads=2", "--time=0", "--report-interval=1", "run")
			r.waitFor(t, "Threads started!", 30*time.Second)
			time.Sleep(300 * time.Millisecond)
			r.proxy.Blackhole(true)
			time.Sleep(1200 * time.Millisecond)
			r.cmd.Process.Signal(syscall.SIGTERM)
			out := r.expectExit(t, 15*time.Second, 1, "WARNING: the run stopped early (interrupted): the report below is incomplete")
			checkAbandonedReport(t, tg, out)
		})
	}
}

// TestBlackholeDBTimeout: with --db-timeout=0.5 a statement the blackhole
// holds fails after half a second as the driver's lost connection. Not
// in the ignore list, the error is fatal: the run stops on it (exit 1)
// and does not count it as ignored. In the list, each worker reconnects
// (every attempt bounded by the same timeout while the blackhole lasts),
// the event runs again once the proxy forwards again, each failure counts
// a reconnect, the seconds of the outage show them, and the run ends
// normally at its time limit.
func TestBlackholeDBTimeout(t *testing.T) {
	for _, tc := range []struct {
		tg     blackholeTarget
		ignore string // the ignore-list option, "" for the default list
	}{
		{blackholeTargets[0], ""},
		{blackholeTargets[0], "--mysql-ignore-errors=2013"},
		{blackholeTargets[4], ""},
		{blackholeTargets[4], "--pgsql-ignore-errors=08006"},
	} {
		name := tc.tg.name + "-fatal"
		if tc.ignore != "" {
			name = tc.tg.name + "-ignored"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"--threads=2", "--time=4", "--report-interval=1", "--db-timeout=0.5", "run"}
			if tc.ignore != "" {
				args = append([]string{tc.ignore}, args...)
			}
			r := startProxied(t, tc.tg, false, args...)
			r.waitFor(t, "Threads started!", 30*time.Second)
			time.Sleep(300 * time.Millisecond)
			accepted := r.proxy.Accepted()
			r.proxy.Blackhole(true)
			if tc.ignore == "" {
				out := r.expectExit(t, 15*time.Second, 1,
					"errno = ", "state = '"+stateOf(tc.tg)+"'", "the report below is incomplete", "General statistics:")
				if n := reportNumber(t, out, "ignored errors"); n != 0 {
					t.Errorf("%d ignored errors: the error that stopped the run is fatal", n)
				}
				return
			}
			time.Sleep(1500 * time.Millisecond)
			r.proxy.Blackhole(false)
			out := r.expectExit(t, 4*time.Second+15*time.Second, 0)
			if n := reportNumber(t, out, "reconnects"); n < 2 {
				t.Errorf("%d reconnects, want one per worker at least:\n%s", n, out)
			}
			if n := r.proxy.Accepted() - accepted; n < 2 {
				t.Errorf("%d connections made after the blackhole began, want a new one per worker", n)
			}
			if !regexp.MustCompile(`reconn/s: [1-9]`).MatchString(out) {
				t.Errorf("no second of the outage shows its reconnects:\n%s", out)
			}
			if strings.Contains(out, "abandoned") || strings.Contains(out, "FATAL") {
				t.Errorf("the run went on after the outage, nothing was abandoned:\n%s", out)
			}
		})
	}
}

// stateOf is the SQLSTATE of tg's lost connection in sbgo's error line:
// MySQL's client errors have HY000.
func stateOf(tg blackholeTarget) string {
	if tg.lost == "08006" {
		return "08006"
	}
	return "HY000"
}

// TestBlackholeHangingConnect: the server accepts connections but never
// answers, so thread_init's connect hangs. SIGTERM ends the run at the
// grace, exit 1, naming the interrupt; with --db-timeout the connect
// fails on its own as a connection error.
func TestBlackholeHangingConnect(t *testing.T) {
	for _, tg := range []blackholeTarget{blackholeTargets[0], blackholeTargets[3]} {
		t.Run(tg.name+"-sigterm", func(t *testing.T) {
			r := startProxied(t, tg, true, "--threads=2", "--time=30", "run")
			r.waitFor(t, "Initializing worker threads...", 30*time.Second)
			time.Sleep(500 * time.Millisecond)
			r.cmd.Process.Signal(syscall.SIGTERM)
			r.expectExit(t, 15*time.Second, 1, "WARNING: the run stopped early (interrupted): thread_init was cut short 0.8 s after the interrupt")
		})
		t.Run(tg.name+"-db-timeout", func(t *testing.T) {
			r := startProxied(t, tg, true, "--threads=2", "--time=30", "--db-timeout=0.5", "run")
			r.expectExit(t, 15*time.Second, 1, "FATAL: Thread initialization failed!")
		})
	}
}

// TestDeadlineFigures measures issue #28's acceptance: the blackhole case
// (oltp_point_select, 2 threads, --report-interval=1, the proxy stopping
// halfway through a --time=4 run, or SIGTERM a second into the
// blackhole) run SBGO_DEADLINE_FIGURES times per driver and io mode. It
// logs, for each, the time from the --time expiry (or the SIGTERM) to the
// process's exit, median and maximum; docs/reliability.md has the
// figures and the command. The expiry is taken as --time after the
// "Threads started!" line reached the test, which is a little after the
// run's clock started: the figures err on the short side by the time
// that line takes through the pipe. Without the variable it is skipped:
// it is a measurement, not a test.
func TestDeadlineFigures(t *testing.T) {
	reps, _ := strconv.Atoi(os.Getenv("SBGO_DEADLINE_FIGURES"))
	if reps <= 0 {
		t.Skip("set SBGO_DEADLINE_FIGURES=N to measure N runs of each case")
	}
	for _, tg := range blackholeTargets {
		t.Run(tg.name, func(t *testing.T) {
			prepare := withArgs([]string{"oltp_point_select", "--tables=1", "--table-size=10000"}, serverArgs(tg)...)
			runBinary(t, sbgoBinary, append(prepare, "cleanup")...)
			if r := runBinary(t, sbgoBinary, append(prepare, "prepare")...); r.code != 0 {
				t.Fatalf("prepare: %s%s", r.stdout, r.stderr)
			}
			defer runBinary(t, sbgoBinary, append(prepare, "cleanup")...)
			for _, bySignal := range []bool{false, true} {
				var gaps []time.Duration
				for i := 0; i < reps; i++ {
					gaps = append(gaps, figureRun(t, tg, bySignal))
				}
				slices.Sort(gaps)
				how := "--time expiry"
				if bySignal {
					how = "SIGTERM"
				}
				t.Logf("%s, %s to exit over %d runs: median %v, max %v; all %v", tg.name, how, reps,
					gaps[len(gaps)/2].Round(time.Millisecond), gaps[len(gaps)-1].Round(time.Millisecond), roundAll(gaps))
			}
		})
	}
}

// serverArgs are sbgo's options for tg's server itself, not the proxy.
func serverArgs(tg blackholeTarget) []string {
	port, _ := strconv.Atoi(tg.server[strings.LastIndexByte(tg.server, ':')+1:])
	return tg.args(port)
}

// figureRun runs the blackhole case once and returns the time from the
// --time expiry, or the SIGTERM, to the exit.
func figureRun(t *testing.T, tg blackholeTarget, bySignal bool) time.Duration {
	t.Helper()
	const limit = 4 * time.Second
	p := newProxy(t, tg)
	args := append(tg.args(p.Port()), "--threads=2", "--time=4", "--report-interval=1", "run")
	r := startThrough(t, p, "oltp_point_select", append([]string{"--tables=1", "--table-size=10000"}, args...)...)
	r.waitFor(t, "Threads started!", 30*time.Second)
	started := time.Now()
	var from time.Time
	if bySignal {
		time.Sleep(limit / 4)
		r.proxy.Blackhole(true)
		time.Sleep(time.Second)
		from = time.Now()
		r.cmd.Process.Signal(syscall.SIGTERM)
	} else {
		time.Sleep(limit / 2)
		r.proxy.Blackhole(true)
		from = started.Add(limit)
	}
	if code := r.wait(t, limit+15*time.Second); code != 1 || !strings.Contains(r.out.String(), "in flight abandoned") {
		t.Fatalf("exit %d, want 1 after abandoning the events in flight:\n%s", code, r.out.String())
	}
	p.Close()
	return r.ended.Sub(from)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
