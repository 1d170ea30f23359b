package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// metricsSecret is the password the metrics tests connect with.
const metricsSecret = "Qm4-metrics-pw"

// freeAddr is a local address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scrapeResult is one scrape of /metrics: the body as sent and the
// metric families it holds, by name.
type scrapeResult struct {
	body string
	fams map[string]*dto.MetricFamily
}

// scrape fetches http://addr/metrics, in the protobuf format (which
// carries native histograms) or the text format.
func scrape(addr string, proto bool) (*scrapeResult, error) {
	req, err := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if proto {
		req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s: %v\n%s", resp.Status, err, body)
	}
	res := &scrapeResult{body: string(body), fams: map[string]*dto.MetricFamily{}}
	dec := expfmt.NewDecoder(bytes.NewReader(body), expfmt.ResponseFormat(resp.Header))
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err == io.EOF {
			return res, nil
		} else if err != nil {
			return nil, err
		}
		res.fams[mf.GetName()] = &mf
	}
}

// value is the counter or gauge name{label=value}; -1 when absent.
func (s *scrapeResult) value(name string, label ...string) float64 {
	for _, m := range s.fams[name].GetMetric() {
		if len(label) == 2 && !hasLabel(m, label[0], label[1]) {
			continue
		}
		if c := m.GetCounter(); c != nil {
			return c.GetValue()
		}
		return m.GetGauge().GetValue()
	}
	return -1
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// latency is the sbgo_latency_seconds histogram; nil when absent.
func (s *scrapeResult) latency() *dto.Histogram {
	if ms := s.fams["sbgo_latency_seconds"].GetMetric(); len(ms) == 1 {
		return ms[0].GetHistogram()
	}
	return nil
}

// watchedOutput is a process's output, readable while it runs.
type watchedOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startWatched starts sbgo with args in testdata; done is closed when it
// has exited, with its exit code in *code.
func startWatched(t *testing.T, args ...string) (out *watchedOutput, done chan struct{}, code *int) {
	t.Helper()
	cmd := exec.Command(sbgoBinary, args...)
	cmd.Dir = "../../testdata"
	out, done, code = &watchedOutput{}, make(chan struct{}), new(int)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(done)
		cmd.Wait()
		*code = cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	return out, done, code
}

// scrapeUntil scrapes addr every 50 ms until stop says so (given each
// scrape and the output so far) or the process exits; a limit many times
// what the run needs catches a hang.
func scrapeUntil(t *testing.T, addr string, out *watchedOutput, done chan struct{}, stop func(*scrapeResult, string) bool) []*scrapeResult {
	t.Helper()
	var all []*scrapeResult
	limit := time.After(60 * time.Second)
	for i := 0; ; i++ {
		select {
		case <-done:
			return all
		case <-limit:
			t.Fatalf("still running after a minute:\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
		s, err := scrape(addr, i%2 == 0)
		if err != nil {
			continue // not listening yet, or gone
		}
		all = append(all, s)
		if stop(s, out.String()) {
			return all
		}
	}
}

// checkGrew fails unless some scrape saw name{label} grow from the one
// before it.
func checkGrew(t *testing.T, scrapes []*scrapeResult, name string, label ...string) {
	t.Helper()
	for i := 1; i < len(scrapes); i++ {
		if prev := scrapes[i-1].value(name, label...); prev >= 0 && scrapes[i].value(name, label...) > prev {
			return
		}
	}
	t.Errorf("%s%v never grew in %d scrapes", name, label, len(scrapes))
}

// reportFloat reads a number with decimals from a report line such as
// "         sum:                                 6001.01".
func reportFloat(t *testing.T, out, label string) float64 {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(label) + `:\s+([0-9.]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in the report:\n%s", label, out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// lingerScript's events sleep 2 ms; its done() says so and waits 5 s, so
// that the metrics can be read once the run is over, before the listener
// closes.
const lingerScript = `ffi.cdef("int usleep(unsigned int);")
function event()
  ffi.C.usleep(2000)
end
function done()
  print("run over")
  for i = 1, 50 do ffi.C.usleep(100000) end
end
`

// TestPrometheusLive: scraped during a run, the counters grow; once the
// run is over, the histogram holds exactly the report's events and their
// latency sum, in classic and native buckets alike.
func TestPrometheusLive(t *testing.T) {
	script := filepath.Join(t.TempDir(), "linger.lua")
	if err := os.WriteFile(script, []byte(lingerScript), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	out, done, _ := startWatched(t, script, "--threads=2", "--time=2", "--prometheus="+addr, "run")
	scrapes := scrapeUntil(t, addr, out, done, func(_ *scrapeResult, text string) bool {
		return strings.Contains(text, "run over")
	})
	if !strings.Contains(out.String(), "run over") || len(scrapes) < 3 {
		t.Fatalf("%d scrapes before the run was over:\n%s", len(scrapes), out)
	}
	checkGrew(t, scrapes[:len(scrapes)-1], "sbgo_events_total")
	final, err := scrape(addr, true)
	if err != nil {
		t.Fatal(err)
	}
	report := out.String()
	events := final.value("sbgo_events_total")
	if want := float64(reportNumber(t, report, "total number of events")); events != want || want == 0 {
		t.Errorf("sbgo_events_total %v, the report says %v", events, want)
	}
	if n := final.value("sbgo_threads_running"); n != 0 {
		t.Errorf("sbgo_threads_running %v after the run", n)
	}
	h := final.latency()
	if h == nil {
		t.Fatalf("no latency histogram:\n%s", final.body)
	}
	if float64(h.GetSampleCount()) != events {
		t.Errorf("the histogram counts %d events, sbgo_events_total %v", h.GetSampleCount(), events)
	}
	// The report prints the sum in ms with two decimals.
	if sumMs := reportFloat(t, report, "sum"); math.Abs(h.GetSampleSum()*1000-sumMs) > 0.006 {
		t.Errorf("latency sum %v s, the report says %v ms", h.GetSampleSum(), sumMs)
	}
	checkClassicBuckets(t, h)
	checkNativeBuckets(t, h, reportFloat(t, report, "95th percentile")/1000)
}

// checkClassicBuckets: cumulative counts that never fall, the last one
// the total, and the 2 ms sleeps under 0.25 s but not under 1 ms.
func checkClassicBuckets(t *testing.T, h *dto.Histogram) {
	t.Helper()
	var prev uint64
	for _, b := range h.GetBucket() {
		n := b.GetCumulativeCount()
		if n < prev || n > h.GetSampleCount() {
			t.Errorf("bucket le=%v holds %d after %d (count %d)", b.GetUpperBound(), n, prev, h.GetSampleCount())
		}
		if b.GetUpperBound() == 0.001 && n != 0 || b.GetUpperBound() == 0.25 && n != h.GetSampleCount() {
			t.Errorf("bucket le=%v holds %d of %d events of 2 ms and more", b.GetUpperBound(), n, h.GetSampleCount())
		}
		prev = n
	}
	if len(h.GetBucket()) < 10 {
		t.Errorf("%d classic buckets", len(h.GetBucket()))
	}
}

// checkNativeBuckets: the native buckets hold every event, none below
// 2 ms, and 95 % of them where the report's 95th percentile (p95,
// seconds) says.
func checkNativeBuckets(t *testing.T, h *dto.Histogram, p95 float64) {
	t.Helper()
	if h.GetSchema() != 3 || len(h.GetPositiveSpan()) == 0 {
		t.Fatalf("no native histogram: schema %d, spans %v", h.GetSchema(), h.GetPositiveSpan())
	}
	var total, upToP95, count int64
	idx := int32(0)
	d := 0
	for _, span := range h.GetPositiveSpan() {
		idx += span.GetOffset()
		for j := uint32(0); j < span.GetLength(); j++ {
			count += h.GetPositiveDelta()[d]
			d++
			// Bucket idx holds the values in (2^((idx-1)/8), 2^(idx/8)].
			lower, upper := math.Exp2(float64(idx-1)/8), math.Exp2(float64(idx)/8)
			if count > 0 && upper < 0.002 {
				t.Errorf("%d events in the native bucket up to %v s", count, upper)
			}
			// The report's percentile is its own histogram's bucket
			// (about 2 % wide): one native bucket (9 %) of slack.
			if lower < p95*math.Exp2(1.0/8) {
				upToP95 += count
			}
			total += count
			idx++
		}
	}
	if uint64(total) != h.GetSampleCount() {
		t.Errorf("the native buckets hold %d events, the count is %d", total, h.GetSampleCount())
	}
	if float64(upToP95) < 0.95*float64(total) {
		t.Errorf("%d of %d events in native buckets from below the 95th percentile, %v s", upToP95, total, p95)
	}
}

// TestPrometheusClosesWithTheRun: the endpoint answers during the run and
// its port is closed once the run command returns, while the process
// lives on.
func TestPrometheusClosesWithTheRun(t *testing.T) {
	addr := freeAddr(t)
	var stdout, stderr bytes.Buffer
	served := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := scrape(addr, false)
			if err == nil || time.Now().After(deadline) {
				served <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	code := run([]string{"sbgo", "../../testdata/sleepy.lua", "--threads=1", "--time=1", "--prometheus=" + addr, "run"},
		strings.NewReader(""), &stdout, &stderr, nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if err := <-served; err != nil {
		t.Errorf("no scrape answered during the run: %v", err)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after the run", addr)
	}
}

// TestPrometheusBadAddress: an address that cannot be listened on is one
// FATAL line naming it, and exit 1, before the run starts.
func TestPrometheusBadAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		addr, problem string
	}{
		{busy.Addr().String(), "address already in use"},      // another listener has it
		{"127.0.0.1:99999", "invalid port"},                   // no such port
		{"nonsense", "missing port"},                          // no port at all
		{"192.0.2.1:9273", "cannot assign requested address"}, // not an address of this host
	} {
		r := runBinary(t, sbgoBinary, "sleepy.lua", "--events=10", "--prometheus="+tc.addr, "run")
		var fatal []string
		for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
			if strings.HasPrefix(l, "FATAL") {
				fatal = append(fatal, l)
			}
		}
		if r.code != 1 || len(fatal) != 1 || !strings.Contains(fatal[0], tc.addr) || !strings.Contains(fatal[0], tc.problem) {
			t.Errorf("%s: exit %d, FATAL lines %q, want one naming the address and %q", tc.addr, r.code, fatal, tc.problem)
		}
		if strings.Contains(r.stdout, "Running the test") || strings.Contains(r.stdout, "Threads started") {
			t.Errorf("%s: the run started:\n%s", tc.addr, r.stdout)
		}
	}
}

// TestPrometheusMySQL: deadlock.lua on MariaDB as a user with a
// password: the write counters grow, the deadlocks show up by error code,
// and the password appears in no scrape, text or protobuf.
func TestPrometheusMySQL(t *testing.T) {
	admin := needMySQL(t)
	conn := mysqlUserWithPassword(t, admin, "sbgo_metrics", metricsSecret)
	base := withArgs([]string{"deadlock.lua"}, conn...)
	if r := runBinary(t, sbgoBinary, append(base, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	defer runBinary(t, sbgoBinary, append(base, "cleanup")...)
	addr := freeAddr(t)
	out, done, code := startWatched(t, append(withArgs(withArgs(base, wlTimedIgnore...), "--threads=2", "--time=3", "--prometheus="+addr), "run")...)
	scrapes := scrapeUntil(t, addr, out, done, func(*scrapeResult, string) bool { return false })
	<-done
	if *code != 0 || len(scrapes) < 3 {
		t.Fatalf("exit %d after %d scrapes:\n%s", *code, len(scrapes), out)
	}
	for i, s := range scrapes {
		if strings.Contains(s.body, metricsSecret) {
			t.Errorf("scrape %d holds the password", i)
		}
	}
	checkGrew(t, scrapes, "sbgo_queries_total", "kind", "write")
	checkGrew(t, scrapes, "sbgo_events_total")
	last := scrapes[len(scrapes)-1]
	deadlocks := max(last.value("sbgo_errors_total", "code", "1213"), 0) + max(last.value("sbgo_errors_total", "code", "1205"), 0)
	if ignored := float64(reportNumber(t, out.String(), "ignored errors")); deadlocks == 0 || deadlocks > ignored {
		t.Errorf("%v deadlocks and lock wait timeouts by code; the report has %v ignored errors\n%s", deadlocks, ignored, last.body)
	}
}
