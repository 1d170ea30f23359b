package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sbgo/compare"
	"sbgo/report"
)

// subcommands are sbgo's own commands, taken by their names as the first
// argument: a script called compare.lua or report.lua runs by a path
// (./compare.lua) instead. They read results files and run nothing.
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"compare": compareCommand,
	"report":  reportCommand,
	"merge":   mergeCommand,
	"kube":    kubeCommand,
}

const compareUsage = `Usage: sbgo compare [options] FILE.json [FILE.json ...]

Compares the results files of runs (--results-file): one column per run
(the files of one --results-label, or one unlabelled file), one row per
workload and thread count, one block per metric.

Options:
  --metric=NAME[,NAME...]  tps, qps, p95, p99, max or errors; may be repeated (tps)
  --baseline=N             the run (column) the others are compared with (1)
  --ratio=x|percent        ratios as 1.23x or as +23 % (x)
  --format=FORMAT          text, markdown, csv or json (text)
`

const reportUsage = `Usage: sbgo report [options] FILE.json [FILE.json ...] -o report.html

Writes one self-contained HTML page comparing the runs of the results
files: the comparison tables, charts over time, over thread counts and by
percentile, and each run's metadata. With -o FILE.svg, one chart only.

Options:
  -o, --output=FILE        report.html, or FILE.svg for one chart; - for HTML on stdout
  --chart=NAME             the chart of an SVG (the first); a wrong name lists them
  --metric=NAME[,NAME...]  the tables of the page (all: tps, qps, p95, p99, max, errors)
  --baseline=N             the run (column) the others are compared with (1)
  --ratio=x|percent        ratios as 1.23x or as +23 % (x)
`

// tableFlags are the options compare and report share.
type tableFlags struct {
	metrics  listFlag
	baseline int
	ratio    string
}

func (f *tableFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.metrics, "metric", "")
	fs.IntVar(&f.baseline, "baseline", 1, "")
	fs.StringVar(&f.ratio, "ratio", "x", "")
}

// listFlag collects every value of a repeatable option.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// compareCommand is `sbgo compare`: the comparison table on stdout.
func compareCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var tf tableFlags
	tf.register(fs)
	format := fs.String("format", "text", "")
	files, code, stop := parseSubcommand(fs, args, compareUsage, stdout, stderr)
	if stop {
		return code
	}
	fail := failer("compare", stderr)
	f, err := compare.ParseFormat(*format)
	if err != nil {
		return fail(err)
	}
	metrics, ratio, err := tf.parse(compare.Metrics[:1])
	if err != nil {
		return fail(err)
	}
	t, code := readTable(files, tf.baseline, fail)
	if t == nil {
		return code
	}
	if err := compare.Write(stdout, t, compare.Options{Format: f, Metrics: metrics, Ratio: ratio}); err != nil {
		return fail(err)
	}
	return 0
}

// reportCommand is `sbgo report`: the HTML page, or one chart as SVG.
func reportCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var tf tableFlags
	tf.register(fs)
	var out string
	fs.StringVar(&out, "o", "", "")
	fs.StringVar(&out, "output", "", "")
	chart := fs.String("chart", "", "")
	files, code, stop := parseSubcommand(fs, args, reportUsage, stdout, stderr)
	if stop {
		return code
	}
	fail := failer("report", stderr)
	svg := strings.EqualFold(filepath.Ext(out), ".svg")
	switch {
	case out == "":
		return fail(errors.New("-o FILE is required: report.html, or FILE.svg for one chart"))
	case *chart != "" && !svg:
		return fail(errors.New("--chart picks the chart of -o FILE.svg"))
	}
	metrics, ratio, err := tf.parse(compare.Metrics)
	if err != nil {
		return fail(err)
	}
	t, code := readTable(files, tf.baseline, fail)
	if t == nil {
		return code
	}
	var b bytes.Buffer
	if svg {
		err = report.WriteSVG(&b, t, *chart)
	} else {
		err = report.WriteHTML(&b, t, report.Options{Metrics: metrics, Ratio: ratio})
	}
	if err == nil {
		err = writeOutput(out, b.Bytes(), stdout)
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// parse reads --metric (defaults when not given) and --ratio.
func (f *tableFlags) parse(defaults []compare.Metric) ([]compare.Metric, compare.RatioStyle, error) {
	metrics := defaults
	if len(f.metrics) > 0 {
		var err error
		if metrics, err = compare.ParseMetrics(f.metrics); err != nil {
			return nil, 0, err
		}
	}
	ratio, err := compare.ParseRatioStyle(f.ratio)
	return metrics, ratio, err
}

// readTable reads the files and builds their table. Each file that cannot
// be used is one line on stderr; any of them ends the command (exit 1),
// as does a table that cannot be built.
func readTable(paths []string, baseline int, fail func(error) int) (*compare.Table, int) {
	files, errs := compare.Read(paths)
	for _, err := range errs {
		fail(err)
	}
	if len(errs) > 0 {
		return nil, 1
	}
	t, err := compare.New(files, baseline-1)
	if err != nil {
		return nil, fail(err)
	}
	return t, 0
}

// failer prints an error as one line, "sbgo NAME: ...", and gives exit 1.
func failer(name string, stderr io.Writer) func(error) int {
	return func(err error) int {
		fmt.Fprintf(stderr, "sbgo %s: %s\n", name, err)
		return 1
	}
}

// writeOutput writes the whole output at once, so that a failure leaves
// no half page behind; "-" is stdout.
func writeOutput(path string, data []byte, stdout io.Writer) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// parseSubcommand parses a subcommand's options, which may come before,
// between or after its files (as sysbench's options may), and answers
// --help. stop tells that the command ends here, with code.
func parseSubcommand(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (files []string, code int, stop bool) {
	fs.SetOutput(io.Discard)
	opts, files := splitOptions(fs, args)
	err := fs.Parse(opts)
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(stdout, usage)
		return nil, 0, true
	case err != nil:
		fmt.Fprintf(stderr, "sbgo %s: %s (sbgo %s --help lists the options)\n", fs.Name(), optionError(err, opts), fs.Name())
		return nil, 1, true
	case len(files) == 0:
		fmt.Fprintf(stderr, "sbgo %s: no results files given\n%s", fs.Name(), usage)
		return nil, 1, true
	}
	return files, 0, false
}

// splitOptions tells options (with their values) from files.
func splitOptions(fs *flag.FlagSet, args []string) (opts, files []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			opts = append(opts, a)
			if !strings.Contains(a, "=") && takesValue(fs, a) && i+1 < len(args) {
				i++
				opts = append(opts, args[i])
			}
		default:
			files = append(files, a)
		}
	}
	return opts, files
}

// optionError words the flag package's "flag provided but not defined:
// -x" with the option as it was typed.
func optionError(err error, opts []string) string {
	const undefined = "flag provided but not defined: -"
	name, ok := strings.CutPrefix(err.Error(), undefined)
	if !ok {
		return err.Error()
	}
	for _, o := range opts {
		if typed, _, _ := strings.Cut(o, "="); strings.TrimLeft(typed, "-") == name {
			return "unknown option " + typed
		}
	}
	return "unknown option -" + name
}

// takesValue tells whether option a ("--name" or "-name") is one that
// takes a value, which may then be the next argument.
func takesValue(fs *flag.FlagSet, a string) bool {
	f := fs.Lookup(strings.TrimLeft(a, "-"))
	if f == nil {
		return false
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	return !isBool || !b.IsBoolFlag()
}
