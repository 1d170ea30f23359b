package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sbgo/kube"
	"sbgo/results"
)

// clientRun is one simulated multi-client run: what each client printed
// (its log, the results between markers) and every latency it measured.
type clientRun struct {
	logs, dumps []string
}

// clientCmd is how one client is started: its arguments (after the
// program's name), working directory and environment.
type clientCmd struct {
	args []string
	dir  string
	env  []string
}

// clientStagger is how far apart the clients are started, as a Job's pods
// start at different moments: only --start-at can then line their windows
// up, so the overlap checks test it.
const clientStagger = 300 * time.Millisecond

// clientAttempts is how many times a multi-client test may run its
// clients. A loaded machine can spoil a run in ways that say nothing of
// sbgo's merge: a statement stalled past the deadline's grace (the client
// abandons it and exits 1, as designed), workers not ready by --start-at,
// or a stall at the deadline that stretches one client's window. Such an
// attempt is logged and run again; a defect spoils every attempt.
const clientAttempts = 4

// spoiledBy are what an attempt's error says when the machine spoiled it:
// a client's output, or runClients' own overlap check.
var spoiledBy = []string{"in flight abandoned", "before the workers were ready", "windows overlap"}

// runClients runs the clients that next() lays out in a directory of
// their own, clientStagger apart, until an attempt has every client
// succeed and their windows overlap by minOverlap or more, and returns
// that attempt with its parts. A client's failure other than spoiledBy
// fails the test at once.
func runClients(t *testing.T, next func(dir string) []clientCmd, minOverlap float64) (clientRun, []*results.Document) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(attempt))
		cr, err := startClients(dir, next(dir))
		var parts []*results.Document
		if err == nil {
			parts = cr.parts(t)
			if ov := windowsOverlap(parts); ov < minOverlap {
				err = fmt.Errorf("the clients' windows overlap by %.2f %%, want %.0f %% or more%s", ov*100, minOverlap*100, windowsText(parts))
			}
		}
		switch {
		case err == nil:
			return cr, parts
		case attempt == clientAttempts || !spoiled(err):
			t.Fatalf("attempt %d of %d: %v", attempt, clientAttempts, err)
		}
		t.Logf("attempt %d of %d spoiled, run again: %v", attempt, clientAttempts, err)
	}
}

// spoiled tells whether err, and each error it joins, is one of the ways
// the machine spoils a run (clientAttempts).
func spoiled(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !spoiled(e) {
				return false
			}
		}
		return true
	}
	for _, s := range spoiledBy {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// startClients starts the clients clientStagger apart and waits for them;
// each also dumps its raw latencies (SBGO_LATENCY_DUMP). It returns the
// clients' failures, each with its output, joined.
func startClients(dir string, cmds []clientCmd) (clientRun, error) {
	var cr clientRun
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cr, err
	}
	for i, c := range cmds {
		cr.logs = append(cr.logs, filepath.Join(dir, fmt.Sprintf("client-%d.log", i)))
		cr.dumps = append(cr.dumps, filepath.Join(dir, fmt.Sprintf("latencies-%d.txt", i)))
		cmd := exec.Command(sbgoBinary, c.args...)
		cmd.Dir = c.dir
		cmd.Env = append(c.env, "SBGO_LATENCY_DUMP="+cr.dumps[i])
		log := cr.logs[i]
		if i > 0 {
			time.Sleep(clientStagger)
		}
		wg.Go(func() {
			out, err := cmd.CombinedOutput()
			os.WriteFile(log, out, 0o644)
			if err != nil {
				errs[i] = fmt.Errorf("client %d: %v\n%s", i, err, out)
			}
		})
	}
	wg.Wait()
	return cr, errors.Join(errs...)
}

// parts reads the results each client printed.
func (cr clientRun) parts(t *testing.T) []*results.Document {
	t.Helper()
	var parts []*results.Document
	for _, l := range cr.logs {
		d, err := results.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, d)
	}
	return parts
}

// windowsText lists the parts' windows and slowest events, for a log.
func windowsText(parts []*results.Document) string {
	var b strings.Builder
	for i, p := range parts {
		s := p.Steps[0]
		fmt.Fprintf(&b, "\n  client %d: %s to %s, slowest event %.1f ms", i,
			s.Start.Format("15:04:05.000"), s.End.Format("15:04:05.000"), s.Latency.Max)
	}
	return b.String()
}

// indexedClients are n clients of the same arguments in testdata, as an
// Indexed Job numbers its pods: JOB_COMPLETION_INDEX = 0..n-1.
func indexedClients(n int, args ...string) []clientCmd {
	var cmds []clientCmd
	for i := range n {
		cmds = append(cmds, clientCmd{args: withArgs(args, "--results-file=-", "run"), dir: "../../testdata",
			env: append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))})
	}
	return cmds
}

// podClients are the pods of the Job that sbgo kube wrote, run here as
// the kubelet would run them: the container's arguments with $(VAR)
// expanded from its environment (the completion index, the Secret's
// values), in a working directory that holds the ConfigMap's files, with
// that environment only.
func podClients(t *testing.T, dir string, m kube.Manifests) []clientCmd {
	t.Helper()
	c := m.Job.Spec.Template.Spec.Containers[0]
	var cmds []clientCmd
	for i := range int(*m.Job.Spec.Completions) {
		work := filepath.Join(dir, fmt.Sprintf("pod-%d", i))
		writeConfigMap(t, work, m)
		env := []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}
		vars := map[string]string{}
		for _, e := range c.Env {
			switch {
			case e.ValueFrom.FieldRef != nil:
				vars[e.Name] = strconv.Itoa(i)
			case e.ValueFrom.SecretKeyRef != nil:
				vars[e.Name] = m.Secret.StringData[e.ValueFrom.SecretKeyRef.Key]
			}
			env = append(env, e.Name+"="+vars[e.Name])
		}
		var args []string
		for _, a := range c.Args {
			for k, v := range vars {
				a = strings.ReplaceAll(a, "$("+k+")", v)
			}
			args = append(args, a)
		}
		cmds = append(cmds, clientCmd{args: args, dir: work, env: env})
	}
	return cmds
}

// writeConfigMap lays the ConfigMap's files out in dir as the pods'
// volume does.
func writeConfigMap(t *testing.T, dir string, m kube.Manifests) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range m.Job.Spec.Template.Spec.Volumes {
		for _, item := range v.ConfigMap.Items {
			p := filepath.Join(dir, item.Path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(m.ConfigMap.Data[item.Key]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// startAt is a --start-at the given time from now, as sbgo kube writes
// it: one absolute instant for every client.
func startAt(d time.Duration) string {
	return "--start-at=" + time.Now().Add(d).UTC().Format(time.RFC3339Nano)
}

// merge runs sbgo merge on the clients' logs and returns the merged
// document, checked against the schema.
func (cr clientRun) merge(t *testing.T) *results.Document {
	t.Helper()
	out := filepath.Join(filepath.Dir(cr.logs[0]), "merged.json")
	r := runBinary(t, sbgoBinary, append([]string{"merge", "-o", out}, cr.logs...)...)
	if r.code != 0 || r.stdout != "" || strings.Contains(r.stderr, "warning") {
		t.Fatalf("merge: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("%s", strings.TrimSpace(r.stderr))
	return checkResultsFile(t, out)
}

// rawLatencies reads the dumps, sorted.
func (cr clientRun) rawLatencies(t *testing.T) []int64 {
	t.Helper()
	var all []int64
	for _, path := range cr.dumps {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			v, err := strconv.ParseInt(sc.Text(), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			all = append(all, v)
		}
		f.Close()
	}
	slices.Sort(all)
	return all
}

// checkSums: the merged step's counts and threads are the parts' sums,
// and its percentiles are those of all the clients' raw latencies: the
// top of the HDR bucket that holds each exact percentile.
func checkSums(t *testing.T, parts []*results.Document, merged *results.Document, raw []int64) {
	t.Helper()
	m := merged.Steps[0]
	var sum results.Totals
	threads := 0
	for _, p := range parts {
		s := p.Steps[0]
		sum.Transactions += s.Totals.Transactions
		sum.Reads += s.Totals.Reads
		sum.Other += s.Totals.Other
		threads += s.Threads
	}
	if m.Totals.Transactions != sum.Transactions || m.Totals.Reads != sum.Reads || m.Totals.Other != sum.Other || m.Threads != threads {
		t.Errorf("merged %d transactions, %d reads, %d other, %d threads; the parts add up to %d, %d, %d, %d",
			m.Totals.Transactions, m.Totals.Reads, m.Totals.Other, m.Threads, sum.Transactions, sum.Reads, sum.Other, threads)
	}
	if m.Latency.Count != int64(len(raw)) || uint64(len(raw)) != sum.Transactions {
		t.Fatalf("merged %d latencies, the clients measured %d, for %d transactions", m.Latency.Count, len(raw), sum.Transactions)
	}
	for _, p := range results.ReportedPercentiles {
		h := results.NewHistogram()
		results.Record(h, exactPercentile(raw, p))
		want := float64(h.ValueAtPercentile(100)) / 1e6
		if got := m.Latency.Percentiles[results.PercentileKey(p)]; got != want {
			t.Errorf("merged p%v = %v ms; from the raw latencies %v ms", p, got, want)
		}
	}
	if len(merged.Parts) != len(parts) || merged.Host.CPUs != len(parts)*parts[0].Host.CPUs {
		t.Errorf("%d parts listed, %d CPUs", len(merged.Parts), merged.Host.CPUs)
	}
	for i, p := range merged.Parts {
		if p.ClientID == nil || *p.ClientID != i || p.Transactions != parts[i].Steps[0].Totals.Transactions {
			t.Errorf("part %d: %+v", i, p)
		}
	}
}

// windowsOverlap is how much the parts' measured windows overlap.
func windowsOverlap(parts []*results.Document) float64 {
	var steps []*results.Step
	for _, p := range parts {
		steps = append(steps, &p.Steps[0])
	}
	return results.Overlap(steps)
}

// TestMergeKnownLatencies: three clients whose events sleep 2, 10 and 50
// ms (testdata/client_sleep.lua, by JOB_COMPLETION_INDEX) merge into the
// sums of their counts and the percentiles of all their latencies; no
// event is shorter than it slept, so the values at or above each sleep
// are at least the events of the clients that slept that long.
func TestMergeKnownLatencies(t *testing.T) {
	cr, parts := runClients(t, func(string) []clientCmd {
		return indexedClients(3, "client_sleep.lua", "--sleep_ms=2", "--threads=2", "--time=2", startAt(2*time.Second))
	}, results.MinOverlap)
	merged := cr.merge(t)
	raw := cr.rawLatencies(t)
	checkSums(t, parts, merged, raw)
	h, err := results.DecodeHistogram(merged.Steps[0].Latency.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	var atLeast int64
	for i := len(parts) - 1; i >= 0; i-- {
		sleep := int64(2_000_000 * []int{1, 5, 25}[i])
		atLeast += int64(parts[i].Steps[0].Totals.Transactions)
		if n := countAtOrAbove(raw, sleep); n < atLeast {
			t.Errorf("%d latencies of %d ms or more, but clients %d.. ran %d events", n, sleep/1e6, i, atLeast)
		}
		// The same in the merged histogram, within its precision.
		rank := 100 * float64(int64(len(raw))-atLeast+1) / float64(len(raw))
		if v := h.ValueAtPercentile(rank); v < sleep {
			t.Errorf("merged p%.3f is %d ns, below client %d's sleep", rank, v, i)
		}
	}
	if *merged.Parts[2].ClientID != 2 || merged.Steps[0].Threads != 6 {
		t.Errorf("parts %+v", merged.Parts)
	}
	t.Logf("windows overlap %.2f %%; merged p50 %.3f p90 %.3f p99 %.3f ms", windowsOverlap(parts)*100,
		merged.Steps[0].Latency.Percentiles["50"], merged.Steps[0].Latency.Percentiles["90"], merged.Steps[0].Latency.Percentiles["99"])
}

func countAtOrAbove(sorted []int64, v int64) int64 {
	i, _ := slices.BinarySearch(sorted, v)
	return int64(len(sorted) - i)
}

// TestMultiClientMySQL is the acceptance: the pods of sbgo kube's
// Job for 4 clients of 4 threads of oltp_read_only on MariaDB, with
// --start-at=+3, run here clientStagger apart; their windows overlap by
// 95 % or more, the merged transactions are the sum of the parts', its
// percentiles those of all the raw latencies, and sbgo report renders the
// merged run with its parts. Each client is paced (--rate) well below
// what the server can take, so that the test's own load does not stall
// the statements it times.
func TestMultiClientMySQL(t *testing.T) {
	needMySQL(t)
	prepareOLTP(t, mysqlArgs)
	cr, parts := runClients(t, func(dir string) []clientCmd {
		m, _ := kubeManifests(t, nil, withArgs([]string{"oltp_read_only", "--tables=1", "--table-size=1000", "--threads=4", "--time=5",
			"--rate=50", "--start-at=+3", "--clients=4"}, mysqlArgs...)...)
		return podClients(t, dir, m)
	}, 0.95)
	merged := cr.merge(t)
	checkSums(t, parts, merged, cr.rawLatencies(t))
	t.Logf("windows overlap %.2f %%, merged %.0f tps, p95 %.3f ms", windowsOverlap(parts)*100,
		float64(merged.Steps[0].Totals.Transactions)/merged.Steps[0].Totals.TotalTime, merged.Steps[0].Latency.Percentiles["95"])
	dir := filepath.Dir(cr.logs[0])
	page := filepath.Join(dir, "report.html")
	renderReport(t, dir, []string{filepath.Join(dir, "merged.json")})
	html, _ := os.ReadFile(page)
	for i, p := range parts {
		row := fmt.Sprintf(`<td class="num">%d</td><td>%s (`, i, p.Host.Name)
		if !strings.Contains(string(html), row) {
			t.Errorf("the report lacks the row of client %d (%q)", i, row)
		}
	}
	if !strings.Contains(string(html), "4 clients (") {
		t.Error("the report does not name the merged run's clients")
	}
}

// TestMultiClientPgSQL: the same on PostgreSQL with sysbench's own
// oltp_read_only.lua and its oltp_common.lua, which the ConfigMap takes
// along: 2 pods of 2 threads, set beside one process of 4 threads: per
// event the same statements, and (logged, since timing decides no test)
// percentiles of one distribution.
func TestMultiClientPgSQL(t *testing.T) {
	needPgSQL(t)
	prepareOLTP(t, pgsqlArgs)
	luaPath := []string{"LUA_PATH=" + wlOriginalDir + "/?.lua;;"}
	wl := withArgs([]string{wlOriginalDir + "/oltp_read_only.lua", "--tables=1", "--table-size=1000", "--time=2"}, pgsqlArgs...)
	cr, parts := runClients(t, func(dir string) []clientCmd {
		m, _ := kubeManifests(t, luaPath, withArgs(wl, "--threads=2", "--start-at=+2", "--clients=2")...)
		if m.ConfigMap == nil || m.ConfigMap.Data["oltp_common.lua"] == "" || m.ConfigMap.Data["oltp_read_only.lua"] == "" {
			t.Fatalf("the ConfigMap lacks sysbench's scripts: %v", m.ConfigMap)
		}
		return podClients(t, dir, m)
	}, results.MinOverlap)
	merged := cr.merge(t)
	checkSums(t, parts, merged, cr.rawLatencies(t))
	dir := filepath.Dir(cr.logs[0])
	one := filepath.Join(dir, "one.json")
	if r := runBinaryWith(t, sbgoBinary, luaPath, "", withArgs(wl, "--threads=4", "--results-file="+one, "run")...); r.code != 0 {
		t.Fatalf("one process: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	single := checkResultsFile(t, one).Steps[0]
	ms := merged.Steps[0]
	perEvent := func(s results.Step) [2]float64 {
		n := float64(s.Totals.Transactions)
		return [2]float64{float64(s.Totals.Reads) / n, float64(s.Totals.Other) / n}
	}
	if perEvent(ms) != perEvent(single) || ms.Threads != single.Threads {
		t.Errorf("per event: merged %v statements at %d threads, one process %v at %d", perEvent(ms), ms.Threads, perEvent(single), single.Threads)
	}
	t.Logf("p50/p95/p99 ms: merged %v/%v/%v, one process %v/%v/%v; windows overlap %.2f %%",
		ms.Latency.Percentiles["50"], ms.Latency.Percentiles["95"], ms.Latency.Percentiles["99"],
		single.Latency.Percentiles["50"], single.Latency.Percentiles["95"], single.Latency.Percentiles["99"], windowsOverlap(parts)*100)
}

// TestMergeCommandErrors: parts of different runs, unreadable parts and
// a log without results are one line each, exit 1.
func TestMergeCommandErrors(t *testing.T) {
	dir := t.TempDir()
	noResults := filepath.Join(dir, "pod.log")
	os.WriteFile(noResults, []byte("FATAL: --start-at=... passed 3.000 s ago\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"different runs", []string{"merge", compareFixtures[0], compareFixtures[2]},
			`sbgo merge: ../compare/testdata/fast-sleepy.json and ../compare/testdata/slow-sleepy.json ran with different options: --sleep-ms is "1" in one and "2" in the other`},
		{"a log without results", []string{"merge", compareFixtures[0], noResults}, "sbgo merge: " + noResults + ": not an sbgo results file"},
		{"no parts", []string{"merge", "-o", "x.json"}, "sbgo merge: no results files given"},
	} {
		r := runBinary(t, sbgoBinary, c.args...)
		if first, _, _ := strings.Cut(r.stderr, "\n"); r.code != 1 || r.stdout != "" || first != c.want {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 1 and %q", c.name, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// kubeManifests runs sbgo kube and reads its manifests back into the
// k8s.io/api types.
func kubeManifests(t *testing.T, env []string, args ...string) (kube.Manifests, string) {
	t.Helper()
	r := runBinaryWith(t, sbgoBinary, env, "", append([]string{"kube"}, args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	m, err := kube.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("the manifests do not parse into the k8s.io/api types: %v\n%s", err, r.stdout)
	}
	return m, r.stderr
}

// TestKubeCommand is the acceptance for the manifests: sbgo kube
// of oltp_read_write for 8 clients parses back into the k8s.io/api types,
// carries every option to the pods in order, and reads the password from
// a Secret, never from the Job.
func TestKubeCommand(t *testing.T) {
	before := time.Now()
	args := []string{"oltp_read_write", "--mysql-host=db.example", "--mysql-user=sbtest", "--mysql-password=s3cret",
		"--tables=4", "--table-size=100000", "--threads=32", "--time=300", "--report-interval=10", "--rand-seed=7",
		"--clients=8", "--namespace=bench", "--image=registry.example/sbgo:1", "--cpu=2", "--memory=1Gi"}
	m, stderr := kubeManifests(t, nil, args...)
	if m.Job == nil || m.Secret == nil || m.ConfigMap != nil {
		t.Fatalf("want a Job and a Secret only: %+v", m)
	}
	j := m.Job.Spec
	c := j.Template.Spec.Containers[0]
	if *j.Completions != 8 || *j.Parallelism != 8 || string(*j.CompletionMode) != "Indexed" || c.Image != "registry.example/sbgo:1" || m.Job.Namespace != "bench" {
		t.Errorf("job %+v, image %s", j, c.Image)
	}
	want := []string{"oltp_read_write", "--mysql-host=db.example", "--mysql-user=sbtest", "--tables=4", "--table-size=100000",
		"--threads=32", "--time=300", "--report-interval=10", "--rand-seed=7", "--mysql-password=$(SBGO_MYSQL_PASSWORD)"}
	if !slices.Equal(c.Args[:len(want)], want) || !slices.Equal(c.Args[len(want)+1:], []string{"--client-id=$(SBGO_CLIENT_ID)", "--results-file=-", "run"}) {
		t.Errorf("pod arguments %q\nwant %q, --start-at, the client id, the results and run", c.Args, want)
	}
	at, err := time.Parse(time.RFC3339, strings.TrimPrefix(c.Args[len(want)], "--start-at="))
	if err != nil || at.Before(before.Add(59*time.Second)) {
		t.Errorf("start %q: %v, want a minute from now", c.Args[len(want)], err)
	}
	if m.Secret.StringData["mysql-password"] != "s3cret" || c.Env[1].ValueFrom.SecretKeyRef.Name != m.Secret.Name {
		t.Errorf("the password is not read from the Secret: %+v, %+v", m.Secret, c.Env)
	}
	if strings.Contains(fmt.Sprintf("%+v", *m.Job), "s3cret") {
		t.Error("the Job holds the password")
	}
	if *j.ActiveDeadlineSeconds < 300+60 || !strings.Contains(stderr, "8 clients start at") {
		t.Errorf("deadline %d s, stderr %q", *j.ActiveDeadlineSeconds, stderr)
	}
}

// TestKubeScriptFiles: a local script goes into the ConfigMap with the
// modules it requires from the disk, at the paths require() finds them at
// in the pods' working directory; sysbench's own script takes the
// bundled oltp_common, as it does here.
func TestKubeScriptFiles(t *testing.T) {
	m, _ := kubeManifests(t, []string{"LUA_PATH=./lib/?.lua;;"}, "requires.lua", "--clients=2", "--start-at=+30")
	src, _ := os.ReadFile("../../testdata/requires.lua")
	mod, _ := os.ReadFile("../../testdata/lib/helper_mod.lua")
	if m.ConfigMap == nil || m.ConfigMap.Data["requires.lua"] != string(src) || m.ConfigMap.Data["helper_mod.lua"] != string(mod) || len(m.ConfigMap.Data) != 2 {
		t.Fatalf("ConfigMap %+v", m.ConfigMap)
	}
	c := m.Job.Spec.Template.Spec.Containers[0]
	if c.Args[0] != "requires.lua" || c.WorkingDir != kube.WorkDir || m.Secret != nil {
		t.Errorf("args %q, working directory %q", c.Args, c.WorkingDir)
	}
	m, _ = kubeManifests(t, nil, "/usr/share/sysbench/oltp_read_only.lua", "--clients=2", "--mysql-host=db")
	if m.ConfigMap == nil || len(m.ConfigMap.Data) != 1 || m.ConfigMap.Data["oltp_read_only.lua"] == "" {
		t.Errorf("sysbench's script: ConfigMap %v", m.ConfigMap)
	}
}

// TestKubeCommandErrors: what a run would refuse, and what the Job sets
// itself, are one line each and exit 1, before any manifest.
func TestKubeCommandErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no clients", []string{"oltp_read_only"}, "sbgo kube: --clients=N is required: how many clients (pods) run the script"},
		{"bad clients", []string{"oltp_read_only", "--clients=0"}, "sbgo kube: --clients=0: a number of clients, 1 or more"},
		{"results file", []string{"oltp_read_only", "--clients=2", "--results-file=x.json"}, "sbgo kube: --results-file is the Job's to set: each client gets its own id and writes its results to its log"},
		{"client id", []string{"oltp_read_only", "--clients=2", "--client-id=1"}, "sbgo kube: --client-id is the Job's to set: each client gets its own id and writes its results to its log"},
		{"prepare", []string{"oltp_read_only", "--clients=2", "prepare"}, `sbgo kube: the clients run the run command only; give "prepare" to sbgo itself, once`},
		{"unknown script", []string{"no_such_test", "--clients=2"}, "FATAL: Cannot find benchmark 'no_such_test': no such built-in test, file or module"},
		{"script option", []string{"oltp_read_only", "--clients=2", "--tables=x"}, "Invalid value for the 'tables' option: 'x'"},
		{"past start", []string{"oltp_read_only", "--clients=2", "--start-at=2020-01-01T00:00:00Z"}, "sbgo kube: --start-at=2020-01-01T00:00:00Z passed"},
		{"secret twice", []string{"oltp_read_only", "--clients=2", "--secret=db", "--mysql-password=x"}, "sbgo kube: --mysql-password: with --secret=db the password comes from that Secret; leave it off the command line"},
		{"bad name", []string{"oltp_read_only", "--clients=2", "--job-name=Run_1"}, "sbgo kube: --job-name=Run_1: a lowercase RFC 1123 label"},
	} {
		r := runBinary(t, sbgoBinary, append([]string{"kube"}, c.args...)...)
		if r.code != 1 || r.stdout != "" || !strings.HasPrefix(strings.TrimSpace(r.stderr), c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 1 and %q", c.name, r.code, r.stdout, r.stderr, c.want)
		}
	}
	r := runBinary(t, sbgoBinary, "kube", "oltp_read_only", "--clients=1")
	if r.code != 0 || !strings.Contains(r.stderr, "sbgo kube: warning: --mysql-host=localhost: in a pod that is the pod itself") {
		t.Errorf("no warning about localhost: exit %d\n%s", r.code, r.stderr)
	}
	if help := runBinary(t, sbgoBinary, "kube", "--help"); help.code != 0 || !strings.HasPrefix(help.stdout, "Usage: sbgo kube") {
		t.Errorf("--help: exit %d\n%s", help.code, help.stdout)
	}
}
