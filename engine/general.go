package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Group is one block of --help: a title line and its options, aligned
// together.
type Group struct {
	Title   string // printed as "Title:"; empty for a block with no title line
	Options []Option
	// BlankAfterTitle puts an empty line between the title and the
	// options, as sysbench prints for the database group.
	BlankAfterTitle bool
}

// GeneralGroups returns the options sysbench registers before it parses
// the command line, in --help order: those of sysbench 1.0.20 plus three
// from its development branch that sbgo implements: --warmup-time,
// --thread-init-timeout and --rand-zipfian-exp, with zipfian in the
// --rand-type list, and sbgo's own --db-timeout. Database drivers add
// their own groups. Each call returns a fresh copy.
func GeneralGroups() []Group {
	return []Group{
		{Title: "General options", Options: []Option{
			{"threads", "number of threads to use", ArgInt, Default("1")},
			{"events", "limit for total number of events", ArgInt, Default("0")},
			{"time", "limit for total execution time in seconds", ArgInt, Default("10")},
			{"warmup-time", "execute events for this many seconds with statistics disabled before the actual benchmark run with statistics enabled", ArgInt, Default("0")},
			{"forced-shutdown", "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable", ArgString, Default("off")},
			{"thread-stack-size", "size of stack per thread", ArgSize, Default("64K")},
			{"thread-init-timeout", "wait time in seconds for worker threads to initialize", ArgInt, Default("30")},
			{"rate", "average transactions rate. 0 for unlimited rate", ArgInt, Default("0")},
			{"report-interval", "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports", ArgInt, Default("0")},
			{"report-checkpoints", "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default.", ArgList, Default("")},
			{"debug", "print more debugging info", ArgBool, Default("off")},
			{"validate", "perform validation checks where possible", ArgBool, Default("off")},
			{"help", "print help and exit", ArgBool, Default("off")},
			{"version", "print version and exit", ArgBool, Default("off")},
			{"config-file", "File containing command line options", ArgFile, nil},
			{"tx-rate", "deprecated alias for --rate", ArgInt, Default("0")},
			{"max-requests", "deprecated alias for --events", ArgInt, Default("0")},
			{"max-time", "deprecated alias for --time", ArgInt, Default("0")},
			{"num-threads", "deprecated alias for --threads", ArgInt, Default("1")},
		}},
		{Title: "Pseudo-Random Numbers Generator options", Options: []Option{
			{"rand-type", "random numbers distribution {uniform,gaussian,special,pareto,zipfian}", ArgString, Default("special")},
			{"rand-spec-iter", "number of iterations used for numbers generation", ArgInt, Default("12")},
			{"rand-spec-pct", "percentage of values to be treated as 'special' (for special distribution)", ArgInt, Default("1")},
			{"rand-spec-res", "percentage of 'special' values to use (for special distribution)", ArgInt, Default("75")},
			{"rand-seed", "seed for random number generator. When 0, the current time is used as a RNG seed.", ArgInt, Default("0")},
			{"rand-pareto-h", "parameter h for pareto distribution", ArgDouble, Default("0.2")},
			{"rand-zipfian-exp", "shape parameter (exponent, theta) for the Zipfian distribution", ArgDouble, Default("0.8")},
		}},
		// sysbench prints the logger's two option blocks under one title.
		{Title: "Log options", Options: []Option{
			{"verbosity", "verbosity level {5 - debug, 0 - only critical messages}", ArgInt, Default("3")},
		}},
		{Options: []Option{
			{"percentile", "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations", ArgInt, Default("95")},
			{"histogram", "print latency histogram in report", ArgBool, Default("off")},
		}},
		{Title: "General database options", BlankAfterTitle: true, Options: []Option{
			{"db-driver", "specifies database driver to use ('help' to get list of available drivers)", ArgString, Default("mysql")},
			{"db-ps-mode", "prepared statements usage mode {auto, disable}", ArgString, Default("auto")},
			{"db-debug", "print database-specific debug information", ArgBool, Default("off")},
			{"db-timeout", "seconds a statement or a connection attempt may wait for the server before it fails as a lost connection; 0 for no limit", ArgDouble, Default("0")},
		}},
	}
}

// SweepOption is the one option that takes a list of values, each the
// setting of one step of a sweep run in a single invocation
// (--threads=1,2,4; sbgo's own, sysbench takes one value).
const SweepOption = "threads"

// maxCheckpoints is how many --report-checkpoints sysbench accepts.
const maxCheckpoints = 256

// General holds the validated general options, RNG, log and database
// options included.
type General struct {
	Threads int
	// ThreadSteps is a sweep's thread counts (--threads=1,2,4), nil for a
	// single run; Threads is then the first.
	ThreadSteps []int
	Events      int // 0: no limit
	Time        int // seconds; 0: no limit
	WarmupTime  int // seconds run before Time starts, statistics off
	// ForcedShutdown is how many whole seconds after the time limit
	// (Time + WarmupTime) the run is cut short; -1 when off, and always
	// when Time is 0.
	ForcedShutdown    int
	ThreadStackSize   int // bytes; informative only, goroutines grow their stacks
	ThreadInitTimeout int // seconds; 0: wait for ever
	Rate              int // events per second; 0: unlimited
	ReportInterval    int // seconds; 0: off
	ReportCheckpoints []int
	Debug             bool
	Validate          bool
	// Help and Version are here for completeness; the CLI checks them
	// with Options.Flag before calling General, because in sysbench they
	// win over invalid values.
	Help    bool
	Version bool

	RandType       string // uniform, gaussian, special, pareto or zipfian
	RandSpecIter   int
	RandSpecPct    int
	RandSpecRes    int
	RandSeed       int // 0: seed from the clock
	RandParetoH    float64
	RandZipfianExp float64

	Verbosity  int
	Percentile int // 0: no percentile
	Histogram  bool

	DBDriver string
	DBPSMode string // checked when the first driver is created, not here
	DBDebug  bool
	// DBTimeout bounds each statement's round trip and each connection
	// attempt; 0 for no bound.
	DBTimeout time.Duration
}

// General validates the general options in sysbench's order and returns
// them (spec §1.5-1.8, §1.16). It only reads o: what sysbench writes back
// into its options (a deprecated alias copied onto its successor, --debug
// raising --verbosity) is ApplyGeneral's, so that a caller can validate
// without changing what sysbench.opt shows. Call it before the script's
// options are registered, as sysbench does, on a table made by
// NewGeneralOptions.
//
// warnings are complete lines for stdout, printed before anything else
// whatever the verbosity; they come before the error if there is one. The
// error is a *UsageError.
//
// Stricter than sysbench, which accepts them and misbehaves: a negative
// --events, --time, --rate, --report-interval or --thread-init-timeout,
// and a --forced-shutdown other than "off", digits, or digits and '%'.
func (o *Options) General() (*General, []string, error) {
	r := &generalReader{o: o}
	g := &General{ForcedShutdown: -1}
	// The steps run in sysbench's order, which decides which error (and
	// which warnings before it) a command line with several faults gets.
	steps := []func(*General) error{r.limits, r.stack, r.flags, r.random, r.pacing, r.logging}
	for _, step := range steps {
		if err := step(g); err != nil {
			return nil, r.warnings, err
		}
	}
	if err := r.database(g); err != nil {
		return nil, r.warnings, err
	}
	return g, r.warnings, nil
}

// ApplyGeneral writes back into o what General derived from it, as
// sysbench does, so that sysbench.opt shows it: each deprecated alias above
// its default is copied onto its successor, and --debug sets --verbosity
// to 5. g is what General returned for o.
func (o *Options) ApplyGeneral(g *General) {
	for _, a := range deprecatedAliases {
		if v, _ := o.Lookup(a.old); v.Int() > a.def {
			s := strconv.Itoa(*a.field(g))
			o.Set(a.successor, &s)
		}
	}
	if g.Debug {
		o.Set("verbosity", Default("5"))
	}
}

// deprecatedAlias is one of sysbench 1.0.20's renamed options: old
// replaces successor when it is above def, which is what sysbench checks.
type deprecatedAlias struct {
	old, successor string
	def            int
	field          func(*General) *int // successor's field in General
}

var (
	aliasThreads = deprecatedAlias{"num-threads", "threads", 1, func(g *General) *int { return &g.Threads }}
	aliasEvents  = deprecatedAlias{"max-requests", "events", 0, func(g *General) *int { return &g.Events }}
	aliasTime    = deprecatedAlias{"max-time", "time", 0, func(g *General) *int { return &g.Time }}
	aliasRate    = deprecatedAlias{"tx-rate", "rate", 0, func(g *General) *int { return &g.Rate }}

	deprecatedAliases = []deprecatedAlias{aliasThreads, aliasEvents, aliasTime, aliasRate}
)

// generalReader reads the general options for General and collects its
// warnings; it never writes to the table.
type generalReader struct {
	o        *Options
	warnings []string
}

func (r *generalReader) int(name string) int { v, _ := r.o.Lookup(name); return v.Int() }

func (r *generalReader) value(name string) *Value { v, _ := r.o.Lookup(name); return v }

// alias is the value of a's successor, or of a.old with a warning when
// that is above its default.
func (r *generalReader) alias(a deprecatedAlias) int {
	if v := r.int(a.old); v > a.def {
		r.warnings = append(r.warnings, fmt.Sprintf("WARNING: --%s is deprecated, use --%s instead", a.old, a.successor))
		return v
	}
	return r.int(a.successor)
}

// notNegative is the error for a negative value of a count or interval.
func notNegative(name string, n int) error {
	if n < 0 {
		return fatalError("Invalid value for --%s: %d.", name, n)
	}
	return nil
}

// fatalBlank is a fatal error followed by a blank line, as sysbench
// prints a few of them.
func fatalBlank(format string, args ...any) *UsageError {
	e := fatalError(format, args...)
	e.BlankLine = true
	return e
}

// limits reads the thread count and the limits of the run.
func (r *generalReader) limits(g *General) error {
	if g.Threads = r.alias(aliasThreads); g.Threads <= 0 {
		return fatalBlank("Invalid value for --threads: %d.", g.Threads)
	}
	g.ThreadSteps = r.value(SweepOption).Steps()
	for _, n := range g.ThreadSteps {
		if n <= 0 {
			return fatalBlank("Invalid value for --threads: %d.", n)
		}
	}
	g.ThreadInitTimeout = r.int("thread-init-timeout")
	if err := notNegative("thread-init-timeout", g.ThreadInitTimeout); err != nil {
		return err
	}
	if g.WarmupTime = r.int("warmup-time"); g.WarmupTime < 0 {
		return fatalBlank("Invalid value for --warmup-time: %d.", g.WarmupTime)
	}
	g.Events = r.alias(aliasEvents)
	if err := notNegative("events", g.Events); err != nil {
		return err
	}
	g.Time = r.alias(aliasTime)
	if err := notNegative("time", g.Time); err != nil {
		return err
	}
	if g.Events == 0 && g.Time == 0 {
		r.warnings = append(r.warnings, "WARNING: Both event and time limits are disabled, running an endless test")
	}
	if g.Time == 0 {
		return nil
	}
	var err error
	g.ForcedShutdown, err = forcedShutdown(r.value("forced-shutdown").Raw(), g.Time+g.WarmupTime)
	return err
}

// stack reads --thread-stack-size, which sysbench keeps in an int.
func (r *generalReader) stack(g *General) error {
	if g.ThreadStackSize = int(int32(r.value("thread-stack-size").Size())); g.ThreadStackSize <= 0 {
		return fatalBlank("Invalid value for thread-stack-size: %d.", g.ThreadStackSize)
	}
	return nil
}

// flags reads the booleans that need no check.
func (r *generalReader) flags(g *General) error {
	g.Debug = r.o.Flag("debug")
	g.Validate = r.o.Flag("validate")
	g.Help = r.o.Flag("help")
	g.Version = r.o.Flag("version")
	return nil
}

// random reads the random number generator's options.
func (r *generalReader) random(g *General) error {
	g.RandSeed = r.int("rand-seed")
	g.RandType = r.value("rand-type").String()
	switch g.RandType {
	case "uniform", "gaussian", "special", "pareto", "zipfian":
	default:
		return fatalError("Invalid random numbers distribution: %s.", g.RandType)
	}
	g.RandSpecIter = r.int("rand-spec-iter")
	g.RandSpecPct = r.int("rand-spec-pct")
	g.RandSpecRes = r.int("rand-spec-res")
	g.RandParetoH = r.value("rand-pareto-h").Double()
	if g.RandZipfianExp = r.value("rand-zipfian-exp").Double(); g.RandZipfianExp < 0 {
		return fatalError("--rand-zipfian-exp must be >= 0")
	}
	if math.IsNaN(g.RandZipfianExp) || math.IsInf(g.RandZipfianExp, 1) {
		// sbgo's own check: the Zipfian sampler never returns for these.
		return fatalError("--rand-zipfian-exp must be a finite number")
	}
	return nil
}

// pacing reads --rate and the report times.
func (r *generalReader) pacing(g *General) error {
	g.Rate = r.alias(aliasRate)
	if err := notNegative("rate", g.Rate); err != nil {
		return err
	}
	g.ReportInterval = r.int("report-interval")
	if err := notNegative("report-interval", g.ReportInterval); err != nil {
		return err
	}
	var err error
	g.ReportCheckpoints, err = reportCheckpoints(r.value("report-checkpoints").List())
	return err
}

// logging reads the verbosity and the latency statistics' options.
// --debug wins over --verbosity, even over a bad one.
func (r *generalReader) logging(g *General) error {
	g.Verbosity = r.int("verbosity")
	if g.Debug {
		g.Verbosity = int(LevelDebug)
	}
	if g.Verbosity > int(LevelDebug) {
		return &UsageError{Msg: fmt.Sprintf("Invalid value for verbosity: %d", g.Verbosity), Code: 1}
	}
	g.Percentile = r.int("percentile")
	if g.Percentile < 0 || g.Percentile > 100 {
		return fatalError("Invalid value for --percentile: %d", g.Percentile)
	}
	if g.Histogram = r.o.Flag("histogram"); g.Histogram && g.Percentile == 0 {
		return fatalError("--histogram cannot be used with --percentile=0")
	}
	return nil
}

// database reads the general database options.
func (r *generalReader) database(g *General) error {
	g.DBDriver = r.value("db-driver").String()
	g.DBPSMode = r.value("db-ps-mode").String()
	g.DBDebug = r.o.Flag("db-debug")
	var err error
	g.DBTimeout, err = DBTimeout(r.o)
	return err
}

// maxDBTimeout is the largest --db-timeout: a year, far below what a
// time.Duration holds.
const maxDBTimeout = 365 * 24 * time.Hour

// DBTimeout reads --db-timeout from o: 0 when it is not registered or
// not set. A negative, infinite or NaN value, or one above a year, is a
// usage error.
func DBTimeout(o *Options) (time.Duration, error) {
	v, ok := o.Lookup("db-timeout")
	if !ok {
		return 0, nil
	}
	sec := v.Double()
	if !(sec >= 0 && sec <= maxDBTimeout.Seconds()) {
		return 0, fatalError("Invalid value for --db-timeout: '%s' (seconds, from 0 for no limit to %d)", v.String(), int(maxDBTimeout.Seconds()))
	}
	return time.Duration(sec * float64(time.Second)), nil
}

// forcedShutdown reads --forced-shutdown for a run of limit seconds:
// "off" in any case is -1; no value is 5% of the limit; "N" is N seconds
// and "N%" N percent of the limit, rounded down as sysbench does. More
// than 2^31-1 seconds is refused: the run's time.Duration would overflow
// (sysbench cuts the value to 32 bits).
func forcedShutdown(value *string, limit int) (int, error) {
	if value == nil {
		return int(float64(limit) / 20), nil
	}
	s := *value
	if strings.EqualFold(s, "off") {
		return -1, nil
	}
	digits, percent := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(digits)
	if err != nil || digits[0] < '0' || digits[0] > '9' {
		return 0, fatalError("Invalid value for --forced-shutdown: '%s'", s)
	}
	if percent {
		f := float64(n) * float64(limit) / 100
		n = int(min(f, math.MaxInt32+1))
	}
	if n > math.MaxInt32 {
		return 0, fatalError("Invalid value for --forced-shutdown: '%s'", s)
	}
	return n, nil
}

// reportCheckpoints checks and sorts the --report-checkpoints items: each
// a whole decimal in 0..2147483647, at most maxCheckpoints of them.
func reportCheckpoints(items []string) ([]int, error) {
	var points []int
	for _, item := range items {
		n, ok := parseCInt(item)
		if !ok || n < 0 {
			return nil, fatalError("Invalid value for --report-checkpoints: '%s'", item)
		}
		if len(points) == maxCheckpoints {
			return nil, fatalError("Too many checkpoints in --report-checkpoints (up to %d can be defined)", maxCheckpoints)
		}
		points = append(points, n)
	}
	slices.Sort(points)
	return points, nil
}
