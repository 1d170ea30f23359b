package main

import (
	"flag"
	"fmt"
	"io"

	"sbgo/compare"
	"sbgo/results"
)

const mergeUsage = `Usage: sbgo merge [options] PART [PART ...] [-o RESULT.json]

Merges the results of the clients of one multi-client run (the same
script and options, started with one --start-at) into one results file:
counts and threads summed, latency histograms added (exact percentiles of
all the clients' events), per-second points aligned by wall-clock time,
the parts listed with their hosts. A PART is a results file or a log
holding one (what a client run with --results-file=- printed, such as
kubectl logs of a pod). sbgo compare and sbgo report read the result.

Options:
  -o, --output=FILE   the merged results file; - for stdout (-)
  --label=TEXT        its label (default: the parts' label when they share one)
`

// mergeCommand is `sbgo merge`: one results file from the parts of a
// multi-client run. Parts of different runs are refused (exit 1); windows
// that overlap too little are a warning.
func mergeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	var out, label string
	fs.StringVar(&out, "o", "-", "")
	fs.StringVar(&out, "output", "-", "")
	fs.StringVar(&label, "label", "", "")
	paths, code, stop := parseSubcommand(fs, args, mergeUsage, stdout, stderr)
	if stop {
		return code
	}
	fail := failer("merge", stderr)
	files, errs := compare.Read(paths)
	for _, err := range errs {
		fail(err)
	}
	if len(errs) > 0 {
		return 1
	}
	parts := make([]results.Source, len(files))
	for i, f := range files {
		parts[i] = results.Source{Name: f.Path, Doc: f.Doc}
	}
	m, err := results.MergeDocuments(parts)
	if err != nil {
		return fail(err)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(stderr, "sbgo merge: warning: %s\n", w)
	}
	if label != "" {
		m.Doc.Label = label
	}
	if err := writeMerged(out, m.Doc, stdout); err != nil {
		return fail(err)
	}
	fmt.Fprintln(stderr, "sbgo merge: "+mergeSummary(m))
	return 0
}

// writeMerged writes the document to a file, atomically, or as plain
// JSON to stdout.
func writeMerged(path string, doc *results.Document, stdout io.Writer) error {
	if path != "-" {
		return results.WriteFile(path, doc, nil)
	}
	data, err := results.Marshal(doc)
	if err == nil {
		_, err = stdout.Write(data)
	}
	return err
}

// mergeSummary is one line on what was merged: the parts, and the first
// step's threads, transactions, 95th percentile and window overlap.
func mergeSummary(m *results.Merged) string {
	d := m.Doc
	line := fmt.Sprintf("%d parts", len(d.Parts))
	if len(d.Steps) == 0 {
		return line + ", no step in common"
	}
	s := d.Steps[0]
	return fmt.Sprintf("%s, %s, %d transactions, p95 %.3f ms, windows overlap %.1f %%",
		line, compare.Threads(s.Threads), s.Totals.Transactions, s.Latency.Percentiles["95"], m.Overlap[0]*100)
}
