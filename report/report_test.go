package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sbgo/compare"
	"sbgo/internal/headless"
	"sbgo/results"
)

// fixtures are compare's recorded runs: two labelled runs of sleepy.lua
// and jitter.lua sweeps, and an unlabelled run interrupted in its second
// step.
var fixtures = []string{
	"../compare/testdata/fast-sleepy.json", "../compare/testdata/fast-jitter.json",
	"../compare/testdata/slow-sleepy.json", "../compare/testdata/slow-jitter.json",
	"../compare/testdata/interrupted.json",
}

func readFiles(t *testing.T, paths ...string) []compare.File {
	t.Helper()
	files, errs := compare.Read(paths)
	for _, err := range errs {
		t.Fatal(err)
	}
	return files
}

func newTable(t *testing.T, files []compare.File) *compare.Table {
	t.Helper()
	tab, err := compare.New(files, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func html(t *testing.T, tab *compare.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, tab, Options{Metrics: compare.Metrics}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withFailures is the fixtures with errors and reconnects in a few
// seconds of run 2's sleepy step at 2 threads.
func withFailures(t *testing.T) []compare.File {
	files := readFiles(t, fixtures...)
	doc := *files[2].Doc
	doc.Steps = slices.Clone(doc.Steps)
	step := &doc.Steps[1]
	step.Seconds = slices.Clone(step.Seconds)
	step.Seconds[0].Errors, step.Seconds[1].Reconnects = 7, 2
	files[2].Doc = &doc
	return files
}

// TestChartNames: each workload has its sweep charts, each step its tps,
// p95 and percentile charts, and an errors chart only where a run
// counted errors or reconnects.
func TestChartNames(t *testing.T) {
	var want []string
	for _, w := range []struct {
		name    string
		threads []string
	}{{"sleepy", []string{"1", "2", "4"}}, {"jitter", []string{"1", "2", "4"}}} {
		want = append(want, w.name+"-tps-threads", w.name+"-latency-threads")
		for _, n := range w.threads {
			want = append(want, w.name+"-"+n+"t-tps", w.name+"-"+n+"t-p95", w.name+"-"+n+"t-percentiles")
		}
	}
	if got := names(Charts(newTable(t, readFiles(t, fixtures...)))); !slices.Equal(got, want) {
		t.Errorf("charts\n%q\nwant\n%q", got, want)
	}
	got := names(Charts(newTable(t, withFailures(t))))
	i := slices.Index(want, "sleepy-2t-percentiles")
	want = slices.Insert(want, i+1, "sleepy-2t-errors")
	if !slices.Equal(got, want) {
		t.Errorf("charts with failures\n%q\nwant\n%q", got, want)
	}
	if single := names(Charts(newTable(t, readFiles(t, fixtures[0])))); !slices.Contains(single, "sleepy-tps-threads") {
		t.Errorf("a sweep of one run has no tps-by-threads chart: %q", single)
	}
}

func names(charts []Chart) []string {
	var out []string
	for _, c := range charts {
		out = append(out, c.Name)
	}
	return out
}

// remoteRef matches anything that would make a browser fetch from the
// network: an attribute or a CSS url() to http(s) or a scheme-relative
// address, an @import, a script.
var remoteRef = regexp.MustCompile(`(?i)(src|href|xlink:href|action|poster)\s*=\s*["']?\s*(https?:|//)|url\(\s*["']?\s*(https?:|//)|@import|<script|<link|<iframe`)

// TestHTMLSelfContained: the page refers to nothing on the network, has
// every chart in place as an SVG that parses, its tables and each run's
// metadata, and shows no secret.
func TestHTMLSelfContained(t *testing.T) {
	for _, c := range []struct {
		text   string
		remote bool
	}{
		{`<img src="https://example.com/a.png">`, true},                   // an image
		{`<use xlink:href='//example.com/s.svg#a'/>`, true},               // a scheme-relative reference
		{`src: url( "http://example.com/f.woff")`, true},                  // a remote font
		{`<link rel="stylesheet" href="s.css">`, true},                    // any stylesheet link
		{`xmlns="http://www.w3.org/2000/svg"`, false},                     // a namespace is no fetch
		{`src: url(data:font/ttf;base64,AAAA) format("truetype")`, false}, // the embedded font
	} {
		if got := remoteRef.MatchString(c.text); got != c.remote {
			t.Errorf("remoteRef on %s: %v, want %v", c.text, got, c.remote)
		}
	}
	files := withFailures(t)
	files[0].Doc.CommandLine = append(files[0].Doc.CommandLine, "--mysql-password=hunter2")
	files[0].Doc.Options["pgsql-password"] = "hunter3"
	tab := newTable(t, files)
	page := html(t, tab)
	if m := remoteRef.FindString(page); m != "" {
		t.Errorf("the page refers to the network: %q", m)
	}
	for _, secret := range []string{"hunter2", "hunter3"} {
		if strings.Contains(page, secret) {
			t.Errorf("the page shows the password %s", secret)
		}
	}
	svgs := chartSVGs(t, page)
	for _, c := range Charts(tab) {
		svg, ok := svgs[c.Name]
		if !ok {
			t.Errorf("chart %s is not in the page", c.Name)
			continue
		}
		checkSVG(t, c.Name, svg)
	}
	if len(svgs) != len(Charts(tab)) {
		t.Errorf("%d figures, %d charts", len(svgs), len(Charts(tab)))
	}
	for _, want := range []string{
		"<h3>tps: transactions per second, ratio to [1]</h3>", "<h3>errors: ignored errors, ratio to [1]</h3>",
		"1673.92*", "incomplete: interrupted", "@font-face", "testdata/slow-jitter.json",
		"--mysql-password=***", "sleepy at 2 threads: errors and reconnects",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// figure matches a chart's figure and its content.
var figure = regexp.MustCompile(`(?s)<figure id="chart-([^"]+)">(.*?)</figure>`)

// chartSVGs maps each figure's chart name to its SVG.
func chartSVGs(t *testing.T, page string) map[string]string {
	out := map[string]string{}
	for _, m := range figure.FindAllStringSubmatch(page, -1) {
		start, end := strings.Index(m[2], "<svg"), strings.LastIndex(m[2], "</svg>")
		if start < 0 || end < 0 {
			t.Errorf("chart %s has no SVG", m[1])
			continue
		}
		out[m[1]] = m[2][start : end+len("</svg>")]
	}
	return out
}

// checkSVG parses svg as XML: one svg root element in the SVG namespace
// with lines in it.
func checkSVG(t *testing.T, name, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var root string
	paths := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("chart %s: the SVG does not parse: %v", name, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Space + " " + se.Name.Local
			}
			if se.Name.Local == "path" {
				paths++
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" || paths < 10 {
		t.Errorf("chart %s: root %q and %d paths", name, root, paths)
	}
}

// TestPercentileCurve: the curve starts at the smallest latency, never
// goes down, stops where the count runs out and ends at the maximum.
func TestPercentileCurve(t *testing.T) {
	doc, err := results.ReadFile(fixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	s := &doc.Steps[0]
	xys, err := percentileCurve(s)
	if err != nil {
		t.Fatal(err)
	}
	first, last := xys[0], xys[len(xys)-1]
	if first.X != 1 || first.Y < s.Latency.Min*0.999 || first.Y > s.Latency.Min*1.001 {
		t.Errorf("first point %v, want x 1 and the minimum %v ms", first, s.Latency.Min)
	}
	if last.X != float64(s.Latency.Count) || last.Y != s.Latency.Max {
		t.Errorf("last point %v, want x %d (the count) and the maximum %v ms", last, s.Latency.Count, s.Latency.Max)
	}
	for i := 1; i < len(xys); i++ {
		if xys[i].X <= xys[i-1].X || xys[i].Y < xys[i-1].Y {
			t.Fatalf("points %v then %v", xys[i-1], xys[i])
		}
	}
	if xys, err := percentileCurve(&results.Step{}); xys != nil || err != nil {
		t.Errorf("a step without a histogram: %v, %v; want no curve", xys, err)
	}
	p99 := s.Latency.Percentiles["99"]
	for _, p := range xys {
		if p.X == 100 && (p.Y < p99*0.999 || p.Y > p99*1.001) {
			t.Errorf("at 99 %% the curve reads %v ms, the file %v ms", p.Y, p99)
		}
	}
}

// TestWriteSVG: one chart stands alone, its font embedded and a legend
// of its own; an unknown name lists the charts there are.
func TestWriteSVG(t *testing.T) {
	tab := newTable(t, readFiles(t, fixtures...))
	var b bytes.Buffer
	if err := WriteSVG(&b, tab, "jitter-latency-threads"); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	checkSVG(t, "jitter-latency-threads", svg[strings.Index(svg, "<svg"):])
	for _, want := range []string{"@font-face", "url(data:font/ttf;", "[2] 2 ms sleeps p99"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if m := remoteRef.FindString(svg); m != "" {
		t.Errorf("the SVG refers to the network: %q", m)
	}
	b.Reset()
	if err := WriteSVG(&b, tab, ""); err != nil || !strings.Contains(b.String(), "sleepy: tps by threads") {
		t.Errorf("no name: %v, want the first chart", err)
	}
	err := WriteSVG(&b, tab, "sleepy-8t-tps")
	if err == nil || !strings.Contains(err.Error(), `no chart "sleepy-8t-tps"`) || !strings.Contains(err.Error(), "jitter-4t-percentiles") {
		t.Errorf("unknown chart: %v", err)
	}
}

// TestBrowserRenders: chromium opens the page without a console message
// and draws it: many colors, and more than a sliver of the page not
// white. Under CI=true a missing chromium fails the test.
func TestBrowserRenders(t *testing.T) {
	browser := headless.Browser(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(html(t, newTable(t, withFailures(t)))), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "report.png")
	console, err := headless.Screenshot(browser, page, png, 1400, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	distinct, nonWhite, err := headless.Colors(png)
	if err != nil {
		t.Fatal(err)
	}
	if distinct < 50 || nonWhite < 0.02 {
		t.Errorf("the screenshot looks blank: %d colors, %.3f of it not white", distinct, nonWhite)
	}
}
