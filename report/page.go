package report

import (
	"embed"
	"errors"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"sbgo/compare"
	"sbgo/results"
)

//go:embed page.html.tmpl
var templates embed.FS

var pageTemplate = template.Must(template.ParseFS(templates, "page.html.tmpl"))

// page is what the template shows, every figure already drawn and every
// text already made.
type page struct {
	Title    string
	FontFace template.CSS
	Legend   compare.Grid
	Blocks   []compare.Grid
	Notes    []string
	Key      []keyEntry
	Sections []sectionView
	Runs     []runView
}

type keyEntry struct {
	Name  string
	Color template.CSS
}

type sectionView struct {
	Workload string
	Sweep    []chartView
	Steps    []stepView
}

type stepView struct {
	Threads string // "1 thread", "4 threads"
	Charts  []chartView
}

type chartView struct {
	Name, Title, Caption string
	SVG                  template.HTML // empty when no run has data for it
}

type runView struct {
	Name  string
	Color template.CSS
	Files []fileView
}

type fileView struct {
	Path, Label, Script, Tool, Server, Host, Start, End, Status, CommandLine string
	Steps                                                                    string
	Options                                                                  [][2]string
	Parts                                                                    []partView
}

// partView is one client of a merged run (sbgo merge).
type partView struct {
	Source, Client, Host, Window, Threads, Transactions, Status string
}

func newPage(t *compare.Table, o Options) (*page, error) {
	pg := &page{FontFace: fontFace(), Legend: t.Legend(), Notes: t.Notes(o.Metrics)}
	var names []string
	for i, r := range t.Runs {
		names = append(names, r.Header)
		pg.Key = append(pg.Key, keyEntry{Name: runName(t, i), Color: template.CSS(cssColor(runColor(i)))})
		pg.Runs = append(pg.Runs, newRunView(t, i))
	}
	pg.Title = "sbgo report: " + strings.Join(names, ", ")
	for _, m := range o.Metrics {
		pg.Blocks = append(pg.Blocks, t.Block(m, o.Ratio))
	}
	for _, s := range Sections(t) {
		sv, err := newSectionView(s)
		if err != nil {
			return nil, err
		}
		pg.Sections = append(pg.Sections, sv)
	}
	return pg, nil
}

func newSectionView(s Section) (sectionView, error) {
	sv := sectionView{Workload: s.Workload}
	var err error
	if sv.Sweep, err = chartViews(s.Sweep); err != nil {
		return sv, err
	}
	for _, st := range s.Steps {
		cv, err := chartViews(st.Charts)
		if err != nil {
			return sv, err
		}
		sv.Steps = append(sv.Steps, stepView{Threads: compare.Threads(st.Threads), Charts: cv})
	}
	return sv, nil
}

// chartViews draws the charts; one without data stays in the page, said
// to be empty.
func chartViews(charts []Chart) ([]chartView, error) {
	var out []chartView
	for _, c := range charts {
		cv := chartView{Name: c.Name, Title: c.Title, Caption: c.Caption}
		p, err := c.draw(false)
		switch {
		case errors.Is(err, errNoData):
		case err != nil:
			return nil, err
		default:
			svg, err := svgOf(p, false)
			if err != nil {
				return nil, err
			}
			cv.SVG = template.HTML(svg)
		}
		out = append(out, cv)
	}
	return out, nil
}

func newRunView(t *compare.Table, i int) runView {
	rv := runView{Name: runName(t, i), Color: template.CSS(cssColor(runColor(i)))}
	for _, f := range t.Runs[i].Files {
		rv.Files = append(rv.Files, newFileView(f))
	}
	return rv
}

// newFileView is a file's metadata. Secrets are masked again, in case a
// file was written by hand or by another tool.
func newFileView(f compare.File) fileView {
	d := f.Doc
	fv := fileView{
		Path: f.Path, Label: d.Label, Script: d.Script.Name,
		Tool:        d.Tool.Name + " " + d.Tool.Version,
		Server:      serverDetail(d.Server),
		Host:        hostDetail(d.Host),
		Start:       d.Start.Format(time.RFC3339),
		End:         d.End.Format(time.RFC3339),
		Status:      "complete",
		CommandLine: shellJoin(results.MaskArgs(d.CommandLine)),
	}
	if d.Script.SHA256 != "" {
		fv.Script += " (SHA-256 " + d.Script.SHA256 + ")"
	}
	if !d.Complete {
		fv.Status = "incomplete: " + d.Reason
	}
	var steps []string
	for _, s := range d.Steps {
		steps = append(steps, strconv.Itoa(s.Threads))
	}
	fv.Steps = strings.Join(steps, ", ")
	for _, p := range d.Parts {
		fv.Parts = append(fv.Parts, newPartView(p))
	}
	opts := results.MaskOptions(d.Options)
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		fv.Options = append(fv.Options, [2]string{k, opts[k]})
	}
	return fv
}

func newPartView(p results.Part) partView {
	pv := partView{
		Source: p.Source, Client: "-", Host: hostDetail(p.Host),
		Window:       p.Start.Format("15:04:05.000") + " to " + p.End.Format("15:04:05.000"),
		Transactions: strconv.FormatUint(p.Transactions, 10),
		Status:       "complete",
	}
	if p.ClientID != nil {
		pv.Client = strconv.Itoa(*p.ClientID)
	}
	var threads []string
	for _, n := range p.Threads {
		threads = append(threads, strconv.Itoa(n))
	}
	pv.Threads = strings.Join(threads, ", ")
	if !p.Complete {
		pv.Status = "incomplete: " + p.Reason
	}
	return pv
}

func hostDetail(h results.Host) string {
	return h.Name + " (" + h.OS + "/" + h.Arch + ", " + strconv.Itoa(h.CPUs) + " CPUs)"
}

func serverDetail(s *results.Server) string {
	if s == nil {
		return "none"
	}
	out := s.Driver
	if s.Host != "" {
		out += " on " + s.Host
		if s.Port != 0 {
			out += ":" + strconv.Itoa(s.Port)
		}
	}
	if s.Version != "" {
		out += ", version " + s.Version
	}
	return out
}

// shellJoin writes a command line as one would type it: arguments with
// blanks or quotes in single quotes.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?;&|<>(){}") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
