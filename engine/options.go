package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ArgType is the type of an option's value. The numbers are sysbench's:
// scripts see them as sysbench.cmdline.ARG_NULL .. ARG_MAX and may pass
// them back when they declare options, so they must not change.
type ArgType int

const (
	ArgNull   ArgType = iota // no known type: a name only a config file mentions
	ArgBool                  // on|true|1, off|false|0; a bare --name means on
	ArgInt                   // a 32-bit decimal integer
	ArgSize                  // digits with an optional K, M, G or T suffix
	ArgDouble                // a floating-point number
	ArgString                // any text
	ArgList                  // comma-separated items
	ArgFile                  // a config file, read when the option is met
	ArgMax                   // one past the last type
)

// Option declares one option: how help shows it and how its value is read.
type Option struct {
	// Name as registered. It may contain '-' (help prints it as is);
	// lookups treat '-' and '_' alike, and Value.Name has underscores.
	Name string
	Desc string
	Type ArgType
	// Default is the value the option starts with, as text. nil is
	// sysbench's NULL: help shows no "[...]" and the option has no value,
	// which for a BOOL means on.
	Default *string
}

// Default returns a pointer to s, for Option.Default in declarative tables.
func Default(s string) *string { return &s }

// ErrInvalidOption is returned by Options.Set for what sysbench reports as
// "invalid option: <argument>": a boolean value other than on, true, 1,
// off, false or 0, or an option whose type is unknown.
var ErrInvalidOption = errors.New("invalid option")

// ErrUnknownOption is returned by Options.Set for a name no option has.
var ErrUnknownOption = errors.New("unknown option")

// Value is a registered option and its current value. The value is parsed
// when it is set, so reading it never fails.
type Value struct {
	Opt Option

	name string  // Opt.Name of the first registration, with underscores
	raw  *string // the text set; nil when the option has no value
	on   bool
	i    int
	size uint64
	f    float64
	list []string
	// steps is the list of a sweep (--threads=1,2,4), nil for one value;
	// i is then the step being run (SetStep), the first one at first.
	steps []int
}

// Name is the option's name with underscores, the key it has in
// sysbench.opt.
func (v *Value) Name() string { return v.name }

// IsNull reports whether the option has no value: it was never given one,
// or was given an empty one, or it is a BOOL that is off.
func (v *Value) IsNull() bool { return v.raw == nil }

// Bool is the value of a BOOL option.
func (v *Value) Bool() bool { return v.on }

// Int is the value of an INT option; 0 when it has no value.
func (v *Value) Int() int { return v.i }

// Size is the value of a SIZE option in bytes; 0 when it has no value.
func (v *Value) Size() uint64 { return v.size }

// Double is the value of a DOUBLE option; 0 when it has no value.
func (v *Value) Double() float64 { return v.f }

// String is the text of the value, "" when it has no value. For a BOOL it
// is "on" or "".
func (v *Value) String() string {
	if v.raw == nil {
		return ""
	}
	return *v.raw
}

// List is the items of a LIST option (never nil items, possibly none).
// For other types it is the single value, or nothing when there is none,
// as sysbench keeps every value as a list. The slice is the caller's.
func (v *Value) List() []string {
	if v.Opt.Type != ArgList {
		if v.raw == nil {
			return []string{}
		}
		return []string{*v.raw}
	}
	return append([]string{}, v.list...)
}

// Steps is the values of a sweep (--threads=1,2,4) in their order, nil
// when the option was given one value. The slice is the caller's.
func (v *Value) Steps() []int {
	if v.steps == nil {
		return nil
	}
	return append([]int{}, v.steps...)
}

// SetStep makes n the INT value scripts and drivers see while one step of
// a sweep runs; the text (what --help and results files show) keeps the
// whole list.
func (v *Value) SetStep(n int) { v.i = n }

// Raw is the text of the value, nil when it has no value ("on" or nil for
// a BOOL).
func (v *Value) Raw() *string {
	if v.raw == nil {
		return nil
	}
	s := *v.raw
	return &s
}

// clear drops the value, as sysbench empties an option's value list
// before it sets a new one.
func (v *Value) clear() {
	v.raw, v.on, v.i, v.size, v.f, v.list, v.steps = nil, false, 0, 0, 0, nil, nil
}

// assign sets the value from text with the rules of its type (spec §1.2,
// §1.3). nil is "--name" with no '='. For types other than BOOL an empty
// text is the same as nil: no value, which any type accepts. Numbers are checked here, more
// strictly than sysbench does: an INT must be a whole 32-bit decimal and a
// DOUBLE a whole number within range. A FILE's text is only recorded; the
// caller reads the file.
func (v *Value) assign(text *string) error {
	v.clear()
	if v.Opt.Type == ArgBool {
		switch {
		case text == nil, *text == "on", *text == "true", *text == "1":
			v.on = true
			v.raw = Default("on")
		case *text == "off", *text == "false", *text == "0":
		default:
			return ErrInvalidOption
		}
		return nil
	}
	if text == nil || *text == "" {
		return nil
	}
	if v.Opt.Type <= ArgNull || v.Opt.Type >= ArgMax {
		return ErrInvalidOption
	}
	s := *text
	switch v.Opt.Type {
	case ArgInt:
		if v.name == SweepOption && strings.Contains(s, ",") {
			steps, ok := parseSteps(s)
			if !ok {
				return invalidValue(v.name, s)
			}
			v.steps, v.i = steps, steps[0]
			break
		}
		n, ok := parseCInt(s)
		if !ok {
			return invalidValue(v.name, s)
		}
		v.i = n
	case ArgSize:
		v.size = parseSize(s)
	case ArgDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return invalidValue(v.name, s)
		}
		v.f = f
	case ArgList:
		for _, item := range strings.Split(s, ",") {
			if item != "" {
				v.list = append(v.list, item)
			}
		}
		if len(v.list) == 0 {
			return nil
		}
	}
	v.raw = &s
	return nil
}

// invalidValue is sysbench's message for a number that does not parse.
func invalidValue(name, value string) error {
	return &UsageError{
		Msg:    fmt.Sprintf("Invalid value for the '%s' option: '%s'", name, value),
		Stderr: true,
		Code:   1,
	}
}

// parseCInt reads s the way sysbench reads an INT option: strtol in base
// 10 (leading C white space, an optional sign, at least one digit) that
// must consume the whole string and fit in a 32-bit int.
func parseCInt(s string) (int, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var n int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > math.MaxInt32+1 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		return 0, false
	}
	return int(n), true
}

// parseSteps reads a sweep's comma-separated INTs; every item must be one.
func parseSteps(s string) ([]int, bool) {
	items := strings.Split(s, ",")
	steps := make([]int, len(items))
	for i, item := range items {
		n, ok := parseCInt(item)
		if !ok {
			return nil, false
		}
		steps[i] = n
	}
	return steps, true
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// parseSize reads a SIZE the way sysbench does, which never fails: the
// leading decimal digits, then, if a letter follows them, K, M, G or T in
// either case multiplies by 1024, 1024², 1024³ or 1024⁴ and any other
// letter makes the whole value 0. Whatever follows the letter is ignored.
// No leading digit gives 0; overflow wraps as in C.
func parseSize(s string) uint64 {
	var n uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	if i == 0 || i == len(s) {
		return n
	}
	shift := strings.IndexByte("KMGT", upperASCII(s[i]))
	if shift < 0 {
		return 0
	}
	return n << (10 * (shift + 1))
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// Options is the table of registered options and their values, in
// registration order. Names compare with '-' and '_' alike at every
// position and are case-sensitive.
//
// Options is filled from one goroutine while the command line is parsed;
// afterwards any number of goroutines may read it as long as nobody
// writes.
type Options struct {
	values []*Value
	byName map[string]*Value // key: the name with '-' turned into '_'
	// threadPolicy is the run's (see SetThreadPolicy); nil until decided.
	threadPolicy *ThreadPolicy
}

// NewOptions returns an empty table.
func NewOptions() *Options {
	return &Options{byName: make(map[string]*Value)}
}

// NewGeneralOptions returns a table holding every option of
// GeneralGroups with its default: what sysbench has registered before it
// parses the command line, except the database drivers' options, which
// drivers add.
func NewGeneralOptions() *Options {
	o := NewOptions()
	for _, g := range GeneralGroups() {
		if err := o.Register(g.Options...); err != nil {
			panic("engine: bad general option default: " + err.Error())
		}
	}
	return o
}

func optionKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// Register adds options with their defaults as values. Registering a name
// that exists already replaces its declaration and resets its value to
// the new default, whatever was set before: this is how sysbench lets a
// script's defaults override a config file (spec §1.4) and how a script
// option named "threads" hides the command-line value from sysbench.opt
// (spec §3.2). The option keeps its place and its first name.
//
// The error is about a default that does not parse (a script may declare
// one); the options before it are registered.
func (o *Options) Register(opts ...Option) error {
	for _, opt := range opts {
		v := o.add(opt)
		if err := v.assign(opt.Default); err != nil {
			if errors.Is(err, ErrInvalidOption) {
				return invalidValue(v.name, *opt.Default)
			}
			return err
		}
	}
	return nil
}

// add returns the value registered under opt's name, creating it at the
// end of the table if it is new, with opt as its declaration.
func (o *Options) add(opt Option) *Value {
	key := optionKey(opt.Name)
	v, ok := o.byName[key]
	if !ok {
		v = &Value{name: key}
		o.byName[key] = v
		o.values = append(o.values, v)
	}
	v.Opt = opt
	return v
}

// Set gives a registered option a value from the command line: value nil
// is "--name" with no '='. Setting a FILE option reads that config file at
// once (spec §1.4). Errors: ErrUnknownOption, ErrInvalidOption (a bad
// boolean or an option of unknown type), or a *UsageError for a number
// that does not parse or a config file that cannot be read.
func (o *Options) Set(name string, value *string) error {
	v, ok := o.byName[optionKey(name)]
	if !ok {
		return ErrUnknownOption
	}
	if err := v.assign(value); err != nil {
		return err
	}
	if v.Opt.Type == ArgFile && v.raw != nil {
		return o.readConfigFile(*v.raw)
	}
	return nil
}

// Lookup returns the option registered under name.
func (o *Options) Lookup(name string) (*Value, bool) {
	v, ok := o.byName[optionKey(name)]
	return v, ok
}

// Flag is the value of the BOOL option name, false if there is none. The
// CLI reads "help" and "version" with it before General validates
// anything, as sysbench does.
func (o *Options) Flag(name string) bool {
	v, ok := o.Lookup(name)
	return ok && v.Opt.Type == ArgBool && v.on
}

// All returns every registered option in registration order, the order
// sysbench exports them in. The slice is the caller's; the values are
// shared.
func (o *Options) All() []*Value {
	return append([]*Value{}, o.values...)
}

// Resolved is every registered option's value as text, defaults included,
// keyed by its name with dashes ("mysql-host"): what a results file
// records of a run's settings. A BOOL reads "on" or "off"; an option with
// no value reads "".
func (o *Options) Resolved() map[string]string {
	m := make(map[string]string, len(o.values))
	for _, v := range o.values {
		text := v.String()
		if v.Opt.Type == ArgBool {
			text = "off"
			if v.on {
				text = "on"
			}
		}
		m[strings.ReplaceAll(v.name, "_", "-")] = text
	}
	return m
}
