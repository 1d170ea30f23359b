// Package compare lines up the results files of several runs: one column
// per run, one row per workload and thread count, one block per metric,
// written as aligned text, markdown, CSV or JSON (`sbgo compare`).
//
// A run is a label: the files that share a label form one column, so that
// one label may hold several workloads and thread sweeps; a file without
// a label is a column of its own, headed by its file name. A cell pairs
// only steps of the same workload and thread count: anything else is "-".
// It reads files through package results and never imports the engine.
package compare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"sbgo/results"
)

// File is one results file as read.
type File struct {
	Path string
	Doc  *results.Document
}

// Read reads every path. Each file that cannot be used gives one error,
// a single line that names it; the files that could be read come back
// all the same, so that every problem is told at once.
func Read(paths []string) ([]File, []error) {
	var files []File
	var errs []error
	for _, p := range paths {
		doc, err := results.ReadFile(p)
		if err != nil {
			errs = append(errs, oneLine(err))
			continue
		}
		files = append(files, File{Path: p, Doc: doc})
	}
	return files, errs
}

// oneLine keeps an error to its first line: a decoder's message may span
// several, and each bad file is one line of output.
func oneLine(err error) error {
	msg, _, cut := strings.Cut(err.Error(), "\n")
	if !cut {
		return err
	}
	return fmt.Errorf("%s", msg)
}

// Run is one column: the files of one label, or one unlabelled file.
type Run struct {
	// Header heads the column: the label, else the file's name.
	Header string
	Label  string
	Files  []File
}

// Complete tells whether every file of the run is of a complete run.
func (r Run) Complete() bool {
	for _, f := range r.Files {
		if !f.Doc.Complete {
			return false
		}
	}
	return true
}

// Start is the earliest start of the run's files.
func (r Run) Start() time.Time {
	var first time.Time
	for _, f := range r.Files {
		if first.IsZero() || f.Doc.Start.Before(first) {
			first = f.Doc.Start
		}
	}
	return first
}

// Key is a row: a workload at one thread count.
type Key struct {
	Workload string
	Threads  int
}

// Workload is the name rows pair runs by: a script's file name without
// its directory and ".lua", so that "oltp_read_only", a path to
// sysbench's oltp_read_only.lua and a copy of it meet in one row.
func Workload(script string) string {
	return strings.TrimSuffix(filepath.Base(script), ".lua")
}

// Threads writes a thread count with its noun: "1 thread", "4 threads".
func Threads(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return strconv.Itoa(n) + " threads"
}

// Step is what one cell shows: a step of one file of a run.
type Step struct {
	File File
	Step *results.Step
}

// Table is the comparison: runs (columns) by keys (rows).
type Table struct {
	Runs []Run
	Keys []Key
	// Baseline is the index of the run the others are compared with.
	Baseline int
	cells    map[cellKey]Step
	// differ lists the workloads whose script sources (SHA-256) are not
	// the same in every run that has them.
	differ map[string]bool
}

type cellKey struct {
	run int
	key Key
}

// New builds the table of files, in the order given: runs in the order
// their first file comes, workloads likewise, thread counts ascending.
// baseline is the index of the run the others are compared with. Two
// files of one run that both hold a workload at one thread count are an
// error: their cell would have two values.
func New(files []File, baseline int) (*Table, error) {
	t := &Table{cells: map[cellKey]Step{}, differ: map[string]bool{}}
	t.Runs = groupRuns(files)
	if baseline < 0 || baseline >= len(t.Runs) {
		return nil, fmt.Errorf("--baseline=%d: there are %d runs (columns), numbered from 1", baseline+1, len(t.Runs))
	}
	t.Baseline = baseline
	for i, r := range t.Runs {
		if err := t.addRun(i, r); err != nil {
			return nil, err
		}
	}
	t.sortKeys()
	t.findDifferentSources()
	return t, nil
}

// groupRuns makes the columns: one per label, one per unlabelled file.
// An unlabelled file is headed by its name, or by its path when that name
// is already another column's header.
func groupRuns(files []File) []Run {
	var runs []Run
	byLabel := map[string]int{}
	for _, f := range files {
		if f.Doc.Label == "" {
			runs = append(runs, Run{Header: filepath.Base(f.Path), Files: []File{f}})
			continue
		}
		i, ok := byLabel[f.Doc.Label]
		if !ok {
			i = len(runs)
			byLabel[f.Doc.Label] = i
			runs = append(runs, Run{Header: f.Doc.Label, Label: f.Doc.Label})
		}
		runs[i].Files = append(runs[i].Files, f)
	}
	seen := map[string]int{}
	for _, r := range runs {
		seen[r.Header]++
	}
	for i, r := range runs {
		if r.Label == "" && seen[r.Header] > 1 {
			runs[i].Header = r.Files[0].Path
		}
	}
	return runs
}

// addRun files the steps of run i under their keys.
func (t *Table) addRun(i int, r Run) error {
	for _, f := range r.Files {
		for s := range f.Doc.Steps {
			k := Key{Workload: Workload(f.Doc.Script.Name), Threads: f.Doc.Steps[s].Threads}
			ck := cellKey{i, k}
			if prev, dup := t.cells[ck]; dup {
				return fmt.Errorf("%s and %s both hold %s at %s for run %q: give them different --results-label values",
					prev.File.Path, f.Path, k.Workload, Threads(k.Threads), r.Header)
			}
			t.cells[ck] = Step{File: f, Step: &f.Doc.Steps[s]}
			if !slices.Contains(t.Keys, k) {
				t.Keys = append(t.Keys, k)
			}
		}
	}
	return nil
}

// sortKeys keeps workloads in the order they first came and sorts each
// one's thread counts.
func (t *Table) sortKeys() {
	order := map[string]int{}
	for _, k := range t.Keys {
		if _, ok := order[k.Workload]; !ok {
			order[k.Workload] = len(order)
		}
	}
	slices.SortStableFunc(t.Keys, func(a, b Key) int {
		if d := order[a.Workload] - order[b.Workload]; d != 0 {
			return d
		}
		return a.Threads - b.Threads
	})
}

func (t *Table) findDifferentSources() {
	sums := map[string]string{}
	for _, c := range t.cells {
		w, sum := Workload(c.File.Doc.Script.Name), c.File.Doc.Script.SHA256
		if prev, ok := sums[w]; ok && prev != sum {
			t.differ[w] = true
		}
		sums[w] = sum
	}
}

// Step is the step of run at key, if the run has one.
func (t *Table) Step(run int, k Key) (Step, bool) {
	s, ok := t.cells[cellKey{run, k}]
	return s, ok
}

// Workloads lists the table's workloads in row order.
func (t *Table) Workloads() []string {
	var out []string
	for _, k := range t.Keys {
		if !slices.Contains(out, k.Workload) {
			out = append(out, k.Workload)
		}
	}
	return out
}

// SourcesDiffer tells whether the runs ran different sources of the
// workload (edited copies, or sysbench's script against the bundled one).
func (t *Table) SourcesDiffer(workload string) bool { return t.differ[workload] }
