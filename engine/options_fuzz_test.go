package engine

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzOptionValue gives one option of any type, valid or not, an
// arbitrary value (or none), and reads --forced-shutdown and
// --report-checkpoints from the same text. Nothing panics, errors are
// ErrInvalidOption or a *UsageError, and what is accepted reads back as
// the reference parsers (strconv) read it: see checkAssigned.
func FuzzOptionValue(f *testing.F) {
	seeds := []struct {
		typ   uint8 // ArgType(typ%10 - 1); 128 and above names the option "threads"
		text  string
		isNil bool
		limit int
	}{
		{2, "on", false, 10},          // BOOL
		{2, "maybe", false, 10},       // BOOL, bad
		{2, "", true, 10},             // BOOL, bare --name
		{3, " -2147483648", false, 0}, // INT, C white space and the smallest
		{3, "2147483648", false, 0},   // INT, out of range
		{131, "1,2,,4", false, 0},     // the threads sweep, an empty item
		{131, "4,2,1", false, 0},      // the threads sweep
		{4, "10G", false, 0},          // SIZE
		{4, "99999999999999999999t", false, 0},
		{5, "1e400", false, 0},   // DOUBLE out of range
		{5, "-0x1p-2", false, 0}, // DOUBLE in hex
		{6, "any text", false, 0},
		{7, ",a,,b,", false, 0}, // LIST
		{8, "/some/file", false, 0},
		{0, "x", false, 0},   // type -1
		{9, "x", false, 0},   // ArgMax
		{1, "x", false, 0},   // NULL
		{6, "5%", false, 30}, // --forced-shutdown's percent
		{6, "off", false, 30},
		{6, "+3", false, 30},
	}
	for _, s := range seeds {
		f.Add(s.typ, s.text, s.isNil, s.limit)
	}
	f.Fuzz(func(t *testing.T, typ uint8, text string, isNil bool, limit int) {
		name := "x"
		if typ >= 128 {
			name = SweepOption
		}
		o := NewOptions()
		v := o.add(Option{Name: name, Type: ArgType(int(typ%10) - 1)})
		p := &text
		if isNil {
			p = nil
		}
		// assign, not Set: a FILE's Set would read the file text names.
		err := v.assign(p)
		if err != nil && !errors.Is(err, ErrInvalidOption) {
			requireUsageError(t, "assign", err)
		}
		checkAssigned(t, v, p, err)
		checkForcedShutdown(t, text, limit)
		checkCheckpoints(t, text)
	})
}

// checkAssigned compares what assign made of text with the reference
// parsers, type by type.
func checkAssigned(t *testing.T, v *Value, text *string, err error) {
	if v.Opt.Type == ArgBool {
		checkBool(t, v, text, err)
		return
	}
	if text == nil || *text == "" {
		if err != nil || !v.IsNull() {
			t.Fatalf("no value: err %v, null %v", err, v.IsNull())
		}
		return
	}
	s := *text
	switch v.Opt.Type {
	case ArgInt:
		checkInt(t, v, s, err)
	case ArgSize:
		checkSize(t, v, s)
	case ArgDouble:
		want, perr := strconv.ParseFloat(s, 64)
		if (perr == nil) != (err == nil) || err == nil && v.Double() != want && !math.IsNaN(want) {
			t.Fatalf("DOUBLE %q: %v, err %v; strconv: %v, %v", s, v.Double(), err, want, perr)
		}
	case ArgList:
		var want []string
		for _, item := range strings.Split(s, ",") {
			if item != "" {
				want = append(want, item)
			}
		}
		if err != nil || !slices.Equal(v.List(), want) {
			t.Fatalf("LIST %q: %q, err %v", s, v.List(), err)
		}
	case ArgString, ArgFile:
		if err != nil || v.String() != s {
			t.Fatalf("%q: %q, err %v", s, v.String(), err)
		}
	default: // NULL and types out of range take no value
		if err == nil {
			t.Fatalf("type %d took %q", v.Opt.Type, s)
		}
	}
}

func checkBool(t *testing.T, v *Value, text *string, err error) {
	on := text == nil || slices.Contains([]string{"on", "true", "1"}, *text)
	off := text != nil && slices.Contains([]string{"off", "false", "0"}, *text)
	if (err == nil) != (on || off) || v.Bool() != on || v.IsNull() == on {
		t.Fatalf("BOOL %v: on %v, null %v, err %v", text, v.Bool(), v.IsNull(), err)
	}
}

// checkInt compares an INT, or each step of a sweep, with strconv's
// reading of the text after C's leading white space.
func checkInt(t *testing.T, v *Value, s string, err error) {
	items := []string{s}
	if v.Name() == SweepOption && strings.Contains(s, ",") {
		items = strings.Split(s, ",")
	}
	var want []int
	valid := true
	for _, item := range items {
		n, perr := strconv.ParseInt(strings.TrimLeft(item, " \t\n\v\f\r"), 10, 32)
		valid = valid && perr == nil
		want = append(want, int(n))
	}
	if valid != (err == nil) {
		t.Fatalf("INT %q: err %v, strconv valid %v", s, err, valid)
	}
	if err != nil {
		return
	}
	if v.Int() != want[0] || len(items) > 1 && !slices.Equal(v.Steps(), want) {
		t.Fatalf("INT %q: %d %v, want %v", s, v.Int(), v.Steps(), want)
	}
}

// checkSize compares a SIZE of plain digits that fits with strconv.
func checkSize(t *testing.T, v *Value, s string) {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && s[0] != '+' && v.Size() != n {
		t.Fatalf("SIZE %q: %d, want %d", s, v.Size(), n)
	}
}

// checkForcedShutdown reads text as --forced-shutdown for a run of limit
// seconds: "off" is -1, anything else accepted is not negative.
func checkForcedShutdown(t *testing.T, text string, limit int) {
	limit = max(limit%100000, 0)
	n, err := forcedShutdown(&text, limit)
	if err != nil {
		requireUsageError(t, "forcedShutdown", err)
		return
	}
	if strings.EqualFold(text, "off") != (n == -1) || n < -1 || n > math.MaxInt32 {
		t.Fatalf("--forced-shutdown=%q for %d s: %d", text, limit, n)
	}
}

// checkCheckpoints reads text as --report-checkpoints: what is accepted
// is sorted and not negative.
func checkCheckpoints(t *testing.T, text string) {
	points, err := reportCheckpoints(strings.Split(text, ","))
	if err != nil {
		requireUsageError(t, "reportCheckpoints", err)
		return
	}
	if !slices.IsSorted(points) || len(points) > 0 && points[0] < 0 {
		t.Fatalf("--report-checkpoints=%q: %v", text, points)
	}
}
