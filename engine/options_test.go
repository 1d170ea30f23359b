package engine

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setOne registers one option of type typ with no default and sets it.
func setOne(t *testing.T, typ ArgType, value *string) (*Value, error) {
	t.Helper()
	o := NewOptions()
	if err := o.Register(Option{Name: "opt-name", Type: typ}); err != nil {
		t.Fatalf("register: %v", err)
	}
	err := o.Set("opt-name", value)
	v, _ := o.Lookup("opt_name")
	return v, err
}

func TestBoolValues(t *testing.T) {
	tests := []struct {
		value *string
		want  bool
		err   error
	}{
		{Default("on"), true, nil},               // the three spellings of on
		{Default("true"), true, nil},             //
		{Default("1"), true, nil},                //
		{nil, true, nil},                         // "--debug" with no '=' is on
		{Default("off"), false, nil},             // the three spellings of off
		{Default("false"), false, nil},           //
		{Default("0"), false, nil},               //
		{Default("ON"), false, ErrInvalidOption}, // case-sensitive
		{Default("yes"), false, ErrInvalidOption},
		{Default("5"), false, ErrInvalidOption},
		{Default(""), false, ErrInvalidOption}, // "--debug=" is not off
	}
	for _, tt := range tests {
		name := "nil"
		if tt.value != nil {
			name = strconv.Quote(*tt.value)
		}
		t.Run(name, func(t *testing.T) {
			v, err := setOne(t, ArgBool, tt.value)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil && v.Bool() != tt.want {
				t.Errorf("Bool() = %v, want %v", v.Bool(), tt.want)
			}
			if err == nil && v.IsNull() == tt.want {
				t.Errorf("IsNull() = %v for %v: on is a value, off is none", v.IsNull(), tt.want)
			}
		})
	}
}

func TestIntValues(t *testing.T) {
	tests := []struct {
		value string
		want  int
		ok    bool
	}{
		{"4", 4, true},
		{"", 0, true},                      // "no value" is 0
		{"-5", -5, true},                   // strtol takes a sign
		{"+5", 5, true},                    //
		{" \t5", 5, true},                  // and leading white space
		{"2147483647", 2147483647, true},   // INT_MAX
		{"-2147483648", -2147483648, true}, // INT_MIN
		{"2147483648", 0, false},           // does not fit 32 bits
		{"-2147483649", 0, false},          //
		{"99999999999999999999999", 0, false},
		{"abc", 0, false},  // no digits
		{"5 ", 0, false},   // the whole string must parse
		{"10k", 0, false},  // no suffixes for INT
		{"0x10", 0, false}, // base 10 only
		{"1.5", 0, false},  //
		{"-", 0, false},    // a sign alone
		{" ", 0, false},    // white space alone
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.value), func(t *testing.T) {
			v, err := setOne(t, ArgInt, &tt.value)
			if !tt.ok {
				want := "Invalid value for the 'opt_name' option: '" + tt.value + "'"
				var ue *UsageError
				if !errors.As(err, &ue) || ue.Error() != want || !ue.Stderr || ue.Code != 1 {
					t.Fatalf("err = %#v, want stderr %q", err, want)
				}
				return
			}
			if err != nil || v.Int() != tt.want {
				t.Errorf("Int() = %d, %v; want %d", v.Int(), err, tt.want)
			}
		})
	}
}

func TestSizeValues(t *testing.T) {
	tests := []struct {
		value string
		want  uint64
	}{
		{"64K", 65536},
		{"64k", 65536}, // the suffix is case-insensitive
		{"10", 10},
		{"1M", 1 << 20},
		{"2g", 2 << 30},
		{"3T", 3 << 40},
		{"10KB", 10240},       // what follows the suffix is ignored
		{"10X", 0},            // an unknown suffix gives 0, no error
		{"10 K", 0},           // so does a space before it
		{"abc", 0},            // no leading digits
		{"-1", 0},             // no sign
		{"", 0},               // no value
		{"K", 0},              // a suffix with no digits
		{"0x10", 0},           // 'x' is an unknown suffix
		{"1099511627776T", 0}, // 2^40 * 2^40 wraps to 0 as in C
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.value), func(t *testing.T) {
			v, err := setOne(t, ArgSize, &tt.value)
			if err != nil || v.Size() != tt.want {
				t.Errorf("Size() = %d, %v; want %d", v.Size(), err, tt.want)
			}
		})
	}
}

func TestDoubleValues(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		ok    bool
	}{
		{"0.2", 0.2, true},
		{"10", 10, true},
		{"1e+15", 1e15, true}, // how Lua prints large defaults
		{"-3.5", -3.5, true},
		{"", 0, true}, // "no value" is 0
		// Stricter than sysbench, whose strtod turns these into 0 or a prefix:
		{"abc", 0, false},
		{"10abc", 0, false},
		{" 1", 0, false},
		{"1e400", 0, false}, // out of range
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.value), func(t *testing.T) {
			v, err := setOne(t, ArgDouble, &tt.value)
			if !tt.ok {
				want := "Invalid value for the 'opt_name' option: '" + tt.value + "'"
				if err == nil || err.Error() != want {
					t.Fatalf("err = %v, want %q", err, want)
				}
				return
			}
			if err != nil || v.Double() != tt.want {
				t.Errorf("Double() = %v, %v; want %v", v.Double(), err, tt.want)
			}
		})
	}
}

func TestStringAndListValues(t *testing.T) {
	tests := []struct {
		name     string
		typ      ArgType
		value    *string
		wantStr  string
		wantList []string
		wantNull bool
	}{
		// a string is kept as is
		{"string", ArgString, Default("a,b c"), "a,b c", []string{"a,b c"}, false},
		// "--name=" and "--name" both mean no value, "" to Lua
		{"string empty", ArgString, Default(""), "", []string{}, true},
		{"string nil", ArgString, nil, "", []string{}, true},
		// a list splits on ',' and drops empty items, like strtok
		{"list", ArgList, Default("a,,b,"), "a,,b,", []string{"a", "b"}, false},
		{"list single", ArgList, Default("localhost"), "localhost", []string{"localhost"}, false},
		{"list only commas", ArgList, Default(",,"), "", []string{}, true},
		{"list empty", ArgList, Default(""), "", []string{}, true},
		{"list nil", ArgList, nil, "", []string{}, true},
		// a FILE with no value reads nothing
		{"file nil", ArgFile, nil, "", []string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := setOne(t, tt.typ, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tt.wantStr || !slices.Equal(v.List(), tt.wantList) || v.IsNull() != tt.wantNull {
				t.Errorf("got String %q List %q IsNull %v; want %q %q %v",
					v.String(), v.List(), v.IsNull(), tt.wantStr, tt.wantList, tt.wantNull)
			}
			if v.List() == nil {
				t.Error("List() is nil; want an empty slice")
			}
			if (v.Raw() == nil) != tt.wantNull {
				t.Errorf("Raw() = %v", v.Raw())
			}
		})
	}
}

// TestNullTypeRejectsValues checks that an option of unknown type (a name
// only a config file mentions) cannot be set from the command line.
func TestNullTypeRejectsValues(t *testing.T) {
	if _, err := setOne(t, ArgNull, Default("1")); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("err = %v, want ErrInvalidOption", err)
	}
}

func TestOptionNames(t *testing.T) {
	o := NewOptions()
	if err := o.Register(
		Option{Name: "mysql-ignore-errors", Type: ArgList, Default: Default("1213")},
		Option{Name: "table_size", Type: ArgDouble, Default: Default("10000")},
	); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		found bool
	}{
		{"mysql-ignore-errors", true}, // as registered
		{"mysql_ignore_errors", true}, // underscores
		{"mysql_ignore-errors", true}, // mixed, at every position
		{"mysql-ignore_errors", true}, //
		{"table-size", true},          // dashes for a name registered with '_'
		{"Table_size", false},         // case-sensitive
		{"table_siz", false},          // no prefix matching
		{"table_size_", false},        //
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := o.Lookup(tt.name)
			if ok != tt.found {
				t.Fatalf("Lookup found = %v, want %v", ok, tt.found)
			}
			err := o.Set(tt.name, Default("7"))
			if tt.found != (err == nil) {
				t.Errorf("Set err = %v", err)
			}
			if !tt.found && !errors.Is(err, ErrUnknownOption) {
				t.Errorf("Set err = %v, want ErrUnknownOption", err)
			}
			if ok && strings.Contains(v.Name(), "-") {
				t.Errorf("Name() = %q has dashes", v.Name())
			}
		})
	}
}

// TestRegisterAgain covers re-registration: the new default replaces any
// value set before (config file values and the "threads" quirk of spec
// §3.2), while the option keeps its place and its first name.
func TestRegisterAgain(t *testing.T) {
	o := NewOptions()
	mustOpt(t, o.Register(
		Option{Name: "threads", Type: ArgInt, Default: Default("1")},
		Option{Name: "my-opt", Type: ArgInt, Default: Default("5")},
	))
	mustOpt(t, o.Set("threads", Default("4")))
	mustOpt(t, o.Set("my_opt", Default("42")))
	mustOpt(t, o.Register(
		Option{Name: "my_opt", Desc: "redeclared", Type: ArgString, Default: Default("x")},
		Option{Name: "threads", Type: ArgDouble, Default: Default("1")},
	))
	all := o.All()
	if len(all) != 2 || all[0].Name() != "threads" || all[1].Name() != "my_opt" {
		t.Fatalf("All() = %v", all)
	}
	if all[0].Double() != 1 || all[0].Opt.Type != ArgDouble {
		t.Errorf("threads = %v (type %d), want the new default 1", all[0].Double(), all[0].Opt.Type)
	}
	if all[1].String() != "x" || all[1].Opt.Desc != "redeclared" || all[1].Opt.Name != "my_opt" {
		t.Errorf("my_opt = %q %+v", all[1].String(), all[1].Opt)
	}
}

func TestRegisterDefaults(t *testing.T) {
	tests := []struct {
		name    string
		opt     Option
		wantErr string
		check   func(v *Value) bool
	}{
		{
			// a BOOL declared with a nil default is on (spec §3.2)
			"bool nil default", Option{Name: "b", Type: ArgBool}, "",
			func(v *Value) bool { return v.Bool() },
		},
		{
			// an INT with a nil default has no value: 0
			"int nil default", Option{Name: "i", Type: ArgInt}, "",
			func(v *Value) bool { return v.Int() == 0 && v.IsNull() },
		},
		{
			// an explicit type over a string default that does not parse
			"bad int default", Option{Name: "i-x", Type: ArgInt, Default: Default("abc")},
			"Invalid value for the 'i_x' option: 'abc'", nil,
		},
		{
			"bad bool default", Option{Name: "b", Type: ArgBool, Default: Default("yes")},
			"Invalid value for the 'b' option: 'yes'", nil,
		},
		{
			// a NULL type accepts no value only
			"null type", Option{Name: "n", Type: ArgNull}, "",
			func(v *Value) bool { return v.IsNull() },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOptions()
			err := o.Register(tt.opt)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			mustOpt(t, err)
			v, _ := o.Lookup(tt.opt.Name)
			if !tt.check(v) {
				t.Errorf("unexpected value %+v", v)
			}
		})
	}
}

// TestGeneralDefaults checks the registered general options against the
// values sysbench 1.0.20 exports (spec §3.3).
func TestGeneralDefaults(t *testing.T) {
	o := NewGeneralOptions()
	get := func(name string) *Value {
		v, ok := o.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		return v
	}
	if get("threads").Int() != 1 || get("time").Int() != 10 || get("events").Int() != 0 ||
		get("debug").Bool() || get("verbosity").Int() != 3 || get("rand_type").String() != "special" ||
		get("thread_stack_size").Size() != 65536 || len(get("report_checkpoints").List()) != 0 ||
		get("forced_shutdown").String() != "off" || !get("config_file").IsNull() ||
		get("db_driver").String() != "mysql" || get("percentile").Int() != 95 ||
		get("rand_pareto_h").Double() != 0.2 || get("help").Bool() ||
		get("warmup_time").Int() != 0 || get("thread_init_timeout").Int() != 30 ||
		get("rand_zipfian_exp").Double() != 0.8 {
		t.Error("a general option has the wrong default")
	}
	// Registration order is --help order.
	var names []string
	for _, v := range o.All() {
		names = append(names, v.Name())
	}
	var want []string
	for _, g := range GeneralGroups() {
		for _, opt := range g.Options {
			want = append(want, optionKey(opt.Name))
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("All() order = %v\nwant %v", names, want)
	}
}

func mustOpt(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// parseGeneral parses args with the general options registered and validates
// them.
func parseGeneral(args ...string) (*General, []string, error) {
	o := NewGeneralOptions()
	if _, err := ParseCommandLine(args, o); err != nil {
		return nil, nil, err
	}
	return o.General()
}

func TestGeneral(t *testing.T) {
	const (
		stdout = iota
		stderr
	)
	tests := []struct {
		name     string
		args     []string
		warnings []string
		err      string // UsageError.Text()
		stream   int
		check    func(g *General) bool
	}{
		{
			// defaults: 1 thread, 10 s, forced shutdown off
			name: "defaults",
			check: func(g *General) bool {
				return g.Threads == 1 && g.Time == 10 && g.Events == 0 && g.ForcedShutdown == -1 &&
					g.ThreadStackSize == 65536 && g.ThreadInitTimeout == 30 && g.Verbosity == 3 &&
					g.Percentile == 95 && !g.Histogram && g.RandType == "special" && g.RandSpecIter == 12 &&
					g.RandSpecPct == 1 && g.RandSpecRes == 75 && g.RandParetoH == 0.2 &&
					g.RandZipfianExp == 0.8 && g.DBDriver == "mysql" && g.DBPSMode == "auto" &&
					len(g.ReportCheckpoints) == 0 && !g.Debug && !g.Validate
			},
		},
		// --threads (spec §1.16): the message, then a blank line, on stdout
		{name: "threads 0", args: []string{"--threads=0"}, err: "FATAL: Invalid value for --threads: 0.\n\n"},
		{name: "threads no value", args: []string{"--threads="}, err: "FATAL: Invalid value for --threads: 0.\n\n"},
		{name: "threads bare", args: []string{"--threads"}, err: "FATAL: Invalid value for --threads: 0.\n\n"},
		{name: "threads negative", args: []string{"--threads=-3"}, err: "FATAL: Invalid value for --threads: -3.\n\n"},
		// an INT that does not parse fails while parsing, on stderr
		{name: "threads abc", args: []string{"--threads=abc"}, err: "Invalid value for the 'threads' option: 'abc'\n", stream: stderr},
		// a DOUBLE too, which sysbench would read as 0
		{name: "pareto abc", args: []string{"--rand-pareto-h=abc"}, err: "Invalid value for the 'rand_pareto_h' option: 'abc'\n", stream: stderr},
		{
			// deprecated aliases above their defaults are copied, with a warning each
			name: "aliases",
			args: []string{"--num-threads=4", "--max-requests=5", "--max-time=6", "--tx-rate=7"},
			warnings: []string{
				"WARNING: --num-threads is deprecated, use --threads instead",
				"WARNING: --max-requests is deprecated, use --events instead",
				"WARNING: --max-time is deprecated, use --time instead",
				"WARNING: --tx-rate is deprecated, use --rate instead",
			},
			check: func(g *General) bool { return g.Threads == 4 && g.Events == 5 && g.Time == 6 && g.Rate == 7 },
		},
		{
			// an alias at its default changes nothing
			name:  "aliases at default",
			args:  []string{"--num-threads=1", "--threads=3", "--max-time=0", "--time=2"},
			check: func(g *General) bool { return g.Threads == 3 && g.Time == 2 },
		},
		{
			// warnings already made come with a later error
			name:     "warning then error",
			args:     []string{"--num-threads=2", "--percentile=101"},
			warnings: []string{"WARNING: --num-threads is deprecated, use --threads instead"},
			err:      "FATAL: Invalid value for --percentile: 101\n",
		},
		{
			// no limit at all: a warning, and the run goes on
			name:     "endless",
			args:     []string{"--time=0", "--events=0"},
			warnings: []string{"WARNING: Both event and time limits are disabled, running an endless test"},
			check:    func(g *General) bool { return g.Time == 0 && g.ForcedShutdown == -1 },
		},
		// --forced-shutdown (spec §1.5)
		{name: "forced off any case", args: []string{"--forced-shutdown=OFF"}, check: func(g *General) bool { return g.ForcedShutdown == -1 }},
		{name: "forced seconds", args: []string{"--forced-shutdown=7"}, check: func(g *General) bool { return g.ForcedShutdown == 7 }},
		{name: "forced percent", args: []string{"--time=30", "--forced-shutdown=50%"}, check: func(g *General) bool { return g.ForcedShutdown == 15 }},
		{name: "forced percent rounds down", args: []string{"--time=10", "--forced-shutdown=15%"}, check: func(g *General) bool { return g.ForcedShutdown == 1 }},
		{name: "forced bare is 5%", args: []string{"--time=100", "--forced-shutdown"}, check: func(g *General) bool { return g.ForcedShutdown == 5 }},
		{name: "forced empty is 5%", args: []string{"--time=100", "--forced-shutdown="}, check: func(g *General) bool { return g.ForcedShutdown == 5 }},
		{name: "forced 5% of 10 s is 0", args: []string{"--forced-shutdown"}, check: func(g *General) bool { return g.ForcedShutdown == 0 }},
		{name: "forced percent counts warm-up", args: []string{"--time=10", "--warmup-time=10", "--forced-shutdown=50%"}, check: func(g *General) bool { return g.ForcedShutdown == 10 }},
		{name: "forced bad", args: []string{"--forced-shutdown=abc"}, err: "FATAL: Invalid value for --forced-shutdown: 'abc'\n"},
		{name: "forced bad ignored without time", args: []string{"--time=0", "--events=1", "--forced-shutdown=abc"}, check: func(g *General) bool { return g.ForcedShutdown == -1 }},
		// stricter than sysbench, which wraps or ignores the rest
		{name: "forced negative", args: []string{"--forced-shutdown=-5"}, err: "FATAL: Invalid value for --forced-shutdown: '-5'\n"},
		{name: "forced text after percent", args: []string{"--forced-shutdown=5%x"}, err: "FATAL: Invalid value for --forced-shutdown: '5%x'\n"},
		{name: "forced percent alone", args: []string{"--forced-shutdown=%"}, err: "FATAL: Invalid value for --forced-shutdown: '%'\n"},
		// sbgo's own: more than 2^31-1 seconds would overflow the run's durations
		{name: "forced largest", args: []string{"--forced-shutdown=2147483647"}, check: func(g *General) bool { return g.ForcedShutdown == math.MaxInt32 }},
		{name: "forced too large", args: []string{"--forced-shutdown=2147483648"}, err: "FATAL: Invalid value for --forced-shutdown: '2147483648'\n"},
		{name: "forced percent too large", args: []string{"--time=1000", "--forced-shutdown=9000000000000000000%"}, err: "FATAL: Invalid value for --forced-shutdown: '9000000000000000000%'\n"},
		// --thread-stack-size: sysbench keeps it in a 32-bit int
		{name: "stack 1M", args: []string{"--thread-stack-size=1M"}, check: func(g *General) bool { return g.ThreadStackSize == 1<<20 }},
		{name: "stack 0", args: []string{"--thread-stack-size=0"}, err: "FATAL: Invalid value for thread-stack-size: 0.\n\n"},
		{name: "stack bad suffix", args: []string{"--thread-stack-size=10X"}, err: "FATAL: Invalid value for thread-stack-size: 0.\n\n"},
		{name: "stack 4G truncates", args: []string{"--thread-stack-size=4G"}, err: "FATAL: Invalid value for thread-stack-size: 0.\n\n"},
		// --debug forces verbosity 5, even over a bad --verbosity
		{name: "debug", args: []string{"--debug"}, check: func(g *General) bool { return g.Debug && g.Verbosity == 5 }},
		{name: "debug over verbosity", args: []string{"--verbosity=6", "--debug=on"}, check: func(g *General) bool { return g.Verbosity == 5 }},
		{name: "validate", args: []string{"--validate=true"}, check: func(g *General) bool { return g.Validate }},
		// --verbosity: a plain message on stdout (spec §1.16)
		{name: "verbosity 6", args: []string{"--verbosity=6"}, err: "Invalid value for verbosity: 6\n"},
		{name: "verbosity 0", args: []string{"--verbosity=0"}, check: func(g *General) bool { return g.Verbosity == 0 }},
		// --percentile and --histogram (spec §1.7)
		{name: "percentile 0", args: []string{"--percentile=0"}, check: func(g *General) bool { return g.Percentile == 0 }},
		{name: "percentile 100", args: []string{"--percentile=100"}, check: func(g *General) bool { return g.Percentile == 100 }},
		{name: "percentile -1", args: []string{"--percentile=-1"}, err: "FATAL: Invalid value for --percentile: -1\n"},
		{name: "histogram", args: []string{"--histogram"}, check: func(g *General) bool { return g.Histogram }},
		{name: "histogram without percentile", args: []string{"--histogram", "--percentile=0"}, err: "FATAL: --histogram cannot be used with --percentile=0\n"},
		// --report-checkpoints: checked, then sorted
		{name: "checkpoints sorted", args: []string{"--report-checkpoints=30,10,,20"}, check: func(g *General) bool { return slices.Equal(g.ReportCheckpoints, []int{10, 20, 30}) }},
		{name: "checkpoints bad", args: []string{"--report-checkpoints=10,abc"}, err: "FATAL: Invalid value for --report-checkpoints: 'abc'\n"},
		{name: "checkpoints negative", args: []string{"--report-checkpoints=-1"}, err: "FATAL: Invalid value for --report-checkpoints: '-1'\n"},
		{name: "checkpoints too big", args: []string{"--report-checkpoints=2147483648"}, err: "FATAL: Invalid value for --report-checkpoints: '2147483648'\n"},
		{name: "checkpoints 256", args: []string{"--report-checkpoints=" + countingList(256)}, check: func(g *General) bool { return len(g.ReportCheckpoints) == 256 }},
		{name: "checkpoints 257", args: []string{"--report-checkpoints=" + countingList(257)}, err: "FATAL: Too many checkpoints in --report-checkpoints (up to 256 can be defined)\n"},
		// --rand-type and --rand-zipfian-exp
		{name: "rand zipfian", args: []string{"--rand-type=zipfian", "--rand-zipfian-exp=1.5"}, check: func(g *General) bool { return g.RandType == "zipfian" && g.RandZipfianExp == 1.5 }},
		{name: "rand bad", args: []string{"--rand-type=bogus"}, err: "FATAL: Invalid random numbers distribution: bogus.\n"},
		{name: "rand empty", args: []string{"--rand-type="}, err: "FATAL: Invalid random numbers distribution: .\n"},
		{name: "zipfian negative", args: []string{"--rand-zipfian-exp=-1"}, err: "FATAL: --rand-zipfian-exp must be >= 0\n"},
		// sbgo's own: Zipfian would never return
		{name: "zipfian NaN", args: []string{"--rand-zipfian-exp=nan"}, err: "FATAL: --rand-zipfian-exp must be a finite number\n"},
		{name: "zipfian infinite", args: []string{"--rand-zipfian-exp=inf"}, err: "FATAL: --rand-zipfian-exp must be a finite number\n"},
		// --warmup-time, as sysbench's successor reports it
		{name: "warmup", args: []string{"--warmup-time=5"}, check: func(g *General) bool { return g.WarmupTime == 5 }},
		{name: "warmup negative", args: []string{"--warmup-time=-1"}, err: "FATAL: Invalid value for --warmup-time: -1.\n\n"},
		// stricter than sysbench: negative limits and intervals
		{name: "time negative", args: []string{"--time=-1"}, err: "FATAL: Invalid value for --time: -1.\n"},
		{name: "events negative", args: []string{"--events=-1"}, err: "FATAL: Invalid value for --events: -1.\n"},
		{name: "rate negative", args: []string{"--rate=-1"}, err: "FATAL: Invalid value for --rate: -1.\n"},
		{name: "report interval negative", args: []string{"--report-interval=-1"}, err: "FATAL: Invalid value for --report-interval: -1.\n"},
		{name: "init timeout negative", args: []string{"--thread-init-timeout=-1"}, err: "FATAL: Invalid value for --thread-init-timeout: -1.\n"},
		{name: "init timeout 0", args: []string{"--thread-init-timeout=0"}, check: func(g *General) bool { return g.ThreadInitTimeout == 0 }},
		{
			// the database options pass through
			name:  "db",
			args:  []string{"--db-driver=pgsql", "--db-ps-mode=disable", "--db-debug"},
			check: func(g *General) bool { return g.DBDriver == "pgsql" && g.DBPSMode == "disable" && g.DBDebug },
		},
		// --db-timeout, sbgo's own: seconds, fractions allowed
		{name: "db timeout default", args: nil, check: func(g *General) bool { return g.DBTimeout == 0 }},
		{name: "db timeout fraction", args: []string{"--db-timeout=0.25"}, check: func(g *General) bool { return g.DBTimeout == 250*time.Millisecond }},
		{name: "db timeout a year", args: []string{"--db-timeout=31536000"}, check: func(g *General) bool { return g.DBTimeout == 365*24*time.Hour }},
		{name: "db timeout negative", args: []string{"--db-timeout=-1"}, err: "FATAL: Invalid value for --db-timeout: '-1' (seconds, from 0 for no limit to 31536000)\n"},
		{name: "db timeout NaN", args: []string{"--db-timeout=nan"}, err: "FATAL: Invalid value for --db-timeout: 'nan' (seconds, from 0 for no limit to 31536000)\n"},
		{name: "db timeout too large", args: []string{"--db-timeout=1e10"}, err: "FATAL: Invalid value for --db-timeout: '1e10' (seconds, from 0 for no limit to 31536000)\n"},
		{name: "db timeout not a number", args: []string{"--db-timeout=soon"}, err: "Invalid value for the 'db_timeout' option: 'soon'\n", stream: stderr},
		{
			// --help and --version are reported (the CLI checks them first)
			name:  "help version",
			args:  []string{"--help", "--version"},
			check: func(g *General) bool { return g.Help && g.Version },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, warnings, err := parseGeneral(tt.args...)
			if !slices.Equal(warnings, tt.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tt.warnings)
			}
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if ue.Text() != tt.err || ue.Stderr != (tt.stream == stderr) || ue.ExitCode() != 1 {
					t.Errorf("got %q stderr=%v code=%d; want %q on stream %d", ue.Text(), ue.Stderr, ue.Code, tt.err, tt.stream)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil && !tt.check(g) {
				t.Errorf("unexpected %+v", g)
			}
		})
	}
}

// countingList is "1,2,...,n".
func countingList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(items, ",")
}

// TestGeneralWritesBack checks that General leaves the option values
// alone and that ApplyGeneral writes back what it derived, which
// sysbench.opt is built from.
func TestGeneralWritesBack(t *testing.T) {
	o := NewGeneralOptions()
	if _, err := ParseCommandLine([]string{"--num-threads=8", "--max-time=0", "--tx-rate=3", "--debug"}, o); err != nil {
		t.Fatal(err)
	}
	g, _, err := o.General()
	if err != nil {
		t.Fatal(err)
	}
	values := func() (threads, time, rate, verbosity int) {
		get := func(name string) int { v, _ := o.Lookup(name); return v.Int() }
		return get("threads"), get("time"), get("rate"), get("verbosity")
	}
	// General only reads: the successors and --verbosity keep their values.
	if th, tm, rt, vb := values(); th != 1 || tm != 10 || rt != 0 || vb != 3 {
		t.Errorf("after General: threads, time, rate, verbosity = %d, %d, %d, %d; want 1, 10, 0, 3", th, tm, rt, vb)
	}
	o.ApplyGeneral(g)
	// An alias at its default (--max-time=0) is not copied.
	if th, tm, rt, vb := values(); th != 8 || tm != 10 || rt != 3 || vb != 5 {
		t.Errorf("after ApplyGeneral: threads, time, rate, verbosity = %d, %d, %d, %d; want 8, 10, 3, 5", th, tm, rt, vb)
	}
}

// TestResolved: every option is listed with its value, defaults included.
func TestResolved(t *testing.T) {
	o := NewGeneralOptions()
	if err := o.Set("threads", Default("4")); err != nil {
		t.Fatal(err)
	}
	m := o.Resolved()
	for name, want := range map[string]string{
		"threads":     "4",   // set
		"time":        "10",  // default
		"debug":       "off", // a BOOL that is off
		"percentile":  "95",
		"config-file": "", // no value
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s: %q (listed: %v), want %q", name, got, ok, want)
		}
	}
}

// TestThreadSteps: --threads takes a list, one sweep step per item; the
// first is the value a single run would have, SetStep changes what
// scripts see while the text keeps the list; other INT options take no
// list.
func TestThreadSteps(t *testing.T) {
	g, _, err := parseGeneral("--threads=4,1,16")
	if err != nil || g.Threads != 4 || !slices.Equal(g.ThreadSteps, []int{4, 1, 16}) {
		t.Fatalf("threads %v, steps %v, err %v", g, g.ThreadSteps, err)
	}
	if g, _, _ := parseGeneral("--threads=8"); g.Threads != 8 || g.ThreadSteps != nil {
		t.Errorf("one value: threads %d, steps %v", g.Threads, g.ThreadSteps)
	}
	o := NewGeneralOptions()
	if err := o.Set("threads", Default("2,3")); err != nil {
		t.Fatal(err)
	}
	v, _ := o.Lookup("threads")
	v.SetStep(3)
	if v.Int() != 3 || v.String() != "2,3" || o.Resolved()["threads"] != "2,3" {
		t.Errorf("after SetStep(3): Int %d, text %q", v.Int(), v.String())
	}
	if err := o.Set("threads", Default("5")); err != nil || v.Steps() != nil || v.Int() != 5 {
		t.Errorf("a single value after a list: steps %v, %d, %v", v.Steps(), v.Int(), err)
	}
	for _, bad := range []string{"--threads=1,x", "--threads=1,,2", "--threads=,1", "--events=1,2"} {
		if _, _, err := parseGeneral(bad); err == nil || !strings.Contains(err.Error(), "Invalid value for the") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, bad := range []string{"--threads=2,0", "--threads=1,-3"} {
		if _, _, err := parseGeneral(bad); err == nil || !strings.Contains(err.Error(), "Invalid value for --threads") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
