package mysql

import (
	"math"
	"testing"
	"time"
)

// The expected texts are what MariaDB 10.11 sends for these values.
func TestAppendFloatDouble(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"},                  // zero
		{0.1, "0.1"},              // shortest digits
		{12.5, "12.5"},            // fraction
		{-12.5, "-12.5"},          // sign
		{1234567, "1234567"},      // whole number
		{1e14, "100000000000000"}, // 15 digits before the point: positional
		{1e15, "1e15"},            // 16: scientific
		{1.5e15, "1.5e15"},        // scientific with a fraction
		{123456789012345.67, "123456789012345.67"},       // positional with 17 digits
		{1.2345678901234568e17, "1.2345678901234568e17"}, // scientific, 17 digits
		{1e20, "1e20"},               // no '+' in the exponent
		{1.5e-7, "0.00000015"},       // small: positional
		{0.00001, "0.00001"},         // small: positional
		{1e-15, "0.000000000000001"}, // smallest positional
		{1.5e-16, "1.5e-16"},         // scientific, negative exponent
		{1.23456789012345e-15, "0.00000000000000123456789012345"}, // positional, many digits
		{1.0 / 3, "0.3333333333333333"},                           // 16 digits
		{-1e300, "-1e300"},                                        // huge
		{2e-300, "2e-300"},                                        // tiny
		{1.7976931348623157e308, "1.7976931348623157e308"},        // max
		{math.NaN(), "nan"},                                       // only from a damaged row
		{math.Inf(-1), "-inf"},                                    // likewise
	}
	for _, tt := range tests {
		if got := string(appendFloat(nil, tt.f, 64)); got != tt.want {
			t.Errorf("appendFloat(%v, 64) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// FLOAT columns show 6 significant digits.
func TestAppendFloatFloat(t *testing.T) {
	tests := []struct {
		f    float32
		want string
	}{
		{0.2, "0.2"},                  // shortest
		{1234567, "1234570"},          // rounded to 6 digits, positional
		{12345678, "12345700"},        // rounded, zeros added
		{16777216, "16777200"},        // rounded
		{1e6, "1000000"},              // whole
		{0.1234567, "0.123457"},       // rounded fraction
		{1.23456e-5, "0.0000123456"},  // small
		{3e-10, "0.0000000003"},       // small, positional
		{1.5e14, "150000000000000"},   // 15 digits before the point
		{-1.5e15, "-1.5e15"},          // scientific
		{1e20, "1e20"},                // scientific
		{3.4e38, "3.4e38"},            // near the maximum
		{float32(math.Inf(1)), "inf"}, // only from a damaged row
	}
	for _, tt := range tests {
		if got := string(appendFloat(nil, float64(tt.f), 32)); got != tt.want {
			t.Errorf("appendFloat(%v, 32) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestAppendValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{int64(-42), "-42"}, // signed integer
		{uint64(18446744073709551615), "18446744073709551615"}, // unsigned BIGINT
		{float64(0.5), "0.5"}, // DOUBLE
		{float32(0.2), "0.2"}, // FLOAT
		{"abc", "abc"},        // string
		{true, "1"},           // boolean
		{time.Date(2024, 2, 29, 13, 4, 5, 0, time.UTC), "2024-02-29 13:04:05"},                // DATETIME
		{time.Date(2024, 2, 29, 13, 4, 5, 500000000, time.UTC), "2024-02-29 13:04:05.500000"}, // fractional seconds
	}
	for _, tt := range tests {
		if got := string(appendValue(nil, tt.v)); got != tt.want {
			t.Errorf("appendValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestAppendQuoted(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "''"},                   // empty
		{"abc", "'abc'"},             // plain
		{"it's", `'it\'s'`},          // single quote
		{`say "hi"`, `'say \"hi\"'`}, // double quote
		{`a\b`, `'a\\b'`},            // backslash
		{"a\nb\rc", `'a\nb\rc'`},     // line breaks
		{"a\x00b\x1ac", `'a\0b\Zc'`}, // NUL and Ctrl-Z
		{"x'); DROP TABLE t; --", `'x\'); DROP TABLE t; --'`}, // injection attempt stays in the literal
	}
	for _, tt := range tests {
		if got := string(appendQuoted([]byte("<"), []byte(tt.in))); got != "<"+tt.want {
			t.Errorf("appendQuoted(%q) = %q, want %q", tt.in, got, "<"+tt.want)
		}
	}
}

func TestAppendFloatAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = appendFloat(buf[:0], 1.2345678901234568e17, 64) }); n != 0 {
		t.Errorf("appendFloat allocates %v times", n)
	}
}
