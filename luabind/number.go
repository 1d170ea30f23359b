package luabind

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// This file holds LuaJIT's number conversions: how a number prints
// (tostring, print, %s, %g), how a string reads as a number (tonumber and
// every numeric argument), and how a double becomes a 64-bit integer on
// x86-64. The behaviour was taken from /usr/bin/luajit (2.1.0-beta3, the one
// sysbench 1.0.20 links); the tests list the expressions used.

// luaNumberString returns LuaJIT's tostring of a number: "%.14g", with
// "inf", "-inf" and "nan" (never "-nan"), "-0" for negative zero, and exact
// ties rounded away from zero as LuaJIT's own formatter does.
func luaNumberString(f float64) string {
	if i := int64(f); float64(i) == f && i > -1e14 && i < 1e14 && (i != 0 || !math.Signbit(f)) {
		return strconv.FormatInt(i, 10)
	}
	var buf [32]byte
	return string(appendLuaNumber(buf[:0], f))
}

// appendLuaNumber appends luaNumberString(f) to b.
func appendLuaNumber(b []byte, f float64) []byte {
	if i := int64(f); float64(i) == f && i > -1e14 && i < 1e14 && (i != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, i, 10)
	}
	return appendNumberG(b, f, 14, false, false)
}

// appendNumberG appends f in C's %g style with prec significant digits
// (0 means 1), including sign, inf and nan. alt keeps trailing zeros and
// the decimal point as the '#' flag does.
func appendNumberG(b []byte, f float64, prec int, alt, upper bool) []byte {
	if math.Signbit(f) && !math.IsNaN(f) {
		b = append(b, '-')
		f = -f
	}
	if s, ok := nonFinite(f, upper); ok {
		return append(b, s...)
	}
	return appendFloatG(b, f, prec, alt, upper, false)
}

// nonFinite spells inf and nan as LuaJIT does; ok is false for finite f.
func nonFinite(f float64, upper bool) (string, bool) {
	switch {
	case math.IsNaN(f):
		if upper {
			return "NAN", true
		}
		return "nan", true
	case math.IsInf(f, 0):
		if upper {
			return "INF", true
		}
		return "inf", true
	}
	return "", false
}

// The float formatters below take a finite f >= 0 and write the digits
// only; the caller handles sign, padding and inf/nan. They use strconv,
// which rounds exact ties to even as C's printf does, and unless even is
// set fix the ties afterwards: LuaJIT's own formatter rounds them away
// from zero (string.format("%.0f", 2.5) is "3", printf gives "2").

// appendFloatF appends f with prec digits after the decimal point (%f).
func appendFloatF(b []byte, f float64, prec int, alt, even bool) []byte {
	if out, ok := appendFixedSmall(b, f, prec); ok {
		b = out
	} else {
		b = appendFixedExact(b, f, prec, even)
	}
	if alt && prec == 0 {
		b = append(b, '.')
	}
	return b
}

// appendFixedExact is appendFloatF's digits for any f, from strconv.
func appendFixedExact(b []byte, f float64, prec int, even bool) []byte {
	start := len(b)
	if !even && decimalTie(f, prec) {
		// The value has exactly prec+1 decimals, the last one a 5: print
		// them all, drop the 5 and round the rest up.
		b = strconv.AppendFloat(b, f, 'f', prec+1, 64)
		b = b[:len(b)-1]
		if prec == 0 {
			b = b[:len(b)-1] // the '.'
		}
		return roundDigitsUp(b, start)
	}
	return strconv.AppendFloat(b, f, 'f', prec, 64)
}

// fixedScale holds 10^prec for the precisions appendFixedSmall takes, each
// exact in a float64.
var fixedScale = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// fixedLimit bounds f*10^prec in appendFixedSmall: below 2^52 every
// integer and every half between two is a float64.
const fixedLimit = 1 << 52

// appendFixedSmall is appendFloatF's quick way for the amounts SQL text
// carries (%.2f of a price), where strconv's exact conversion costs more
// than the rest of a string.format: the product f*10^prec, rounded to the
// nearest integer, has the digits to print. The product's own rounding
// is monotonic and every half below fixedLimit is a float64, so it can
// reach a half but never cross one: a product at a half, where the exact
// value may lie on either side or be a tie that LuaJIT and printf round
// differently, is left to appendFixedExact (ok false), as is a large one.
func appendFixedSmall(b []byte, f float64, prec int) ([]byte, bool) {
	if uint(prec) >= uint(len(fixedScale)) {
		return b, false
	}
	r := f * fixedScale[prec]
	if !(r < fixedLimit) {
		return b, false
	}
	whole := math.Floor(r)
	frac := r - whole
	if frac == 0.5 {
		return b, false
	}
	n := uint64(whole)
	if frac > 0.5 {
		n++
	}
	var buf [24]byte
	digits := strconv.AppendUint(buf[:0], n, 10)
	units := len(digits) - prec // digits before the point
	if units <= 0 {
		b = append(b, '0', '.')
		for ; units < 0; units++ {
			b = append(b, '0')
		}
		return append(b, digits...), true
	}
	b = append(b, digits[:units]...)
	if prec > 0 {
		b = append(b, '.')
		b = append(b, digits[units:]...)
	}
	return b, true
}

// appendFloatE appends f as d.ddde+XX with prec digits after the point (%e).
func appendFloatE(b []byte, f float64, prec int, alt, upper, even bool) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, f, 'e', prec, 64)
	if !even && f != 0 {
		exp := exponentOf(b[start:])
		// A tie sits at the position prec-exp after the point, where exp
		// is the exponent before rounding: the printed one or one less.
		if tq := tiePosition(f); tq == prec-exp || tq == prec-exp+1 {
			b = b[:start]
			b = strconv.AppendFloat(b, f, 'e', prec+1, 64)
			if decimalTie(f, prec-exponentOf(b[start:])) {
				b = roundMantissaUp(b, start)
			} else {
				b = strconv.AppendFloat(b[:start], f, 'e', prec, 64)
			}
		}
	}
	if alt && prec == 0 {
		i := start + 1 // after the single leading digit
		b = append(b, 0)
		copy(b[i+1:], b[i:])
		b[i] = '.'
	}
	if upper {
		upperASCII(b[start:])
	}
	return b
}

// appendFloatG appends f in %g style: prec significant digits, %e style
// when the exponent is below -4 or at least prec, trailing zeros removed
// unless alt.
func appendFloatG(b []byte, f float64, prec int, alt, upper, even bool) []byte {
	if prec == 0 {
		prec = 1
	}
	start := len(b)
	b = appendFloatE(b, f, prec-1, alt, false, even)
	exp := exponentOf(b[start:])
	if exp >= -4 && exp < prec {
		b = appendFloatF(b[:start], f, prec-1-exp, alt, even)
		if !alt {
			b = trimFractionZeros(b, start, len(b))
		}
	} else if !alt {
		e := start
		for b[e] != 'e' {
			e++
		}
		end := trimFractionZeros(b, start, e)
		b = append(end, b[e:]...)
	}
	if upper {
		upperASCII(b[start:])
	}
	return b
}

// trimFractionZeros removes trailing zeros of the fraction in b[start:end]
// (and the point if nothing is left after it); it returns b cut at the new
// end, so callers re-append whatever followed end.
func trimFractionZeros(b []byte, start, end int) []byte {
	dot := -1
	for i := start; i < end; i++ {
		if b[i] == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return b[:end]
	}
	for end > dot+1 && b[end-1] == '0' {
		end--
	}
	if end == dot+1 {
		end = dot
	}
	return b[:end]
}

// exponentOf reads the decimal exponent of a strconv 'e' formatted number.
func exponentOf(s []byte) int {
	i := len(s) - 1
	for s[i] != 'e' && s[i] != 'E' {
		i--
	}
	n := 0
	for _, c := range s[i+2:] {
		n = n*10 + int(c-'0')
	}
	if s[i+1] == '-' {
		return -n
	}
	return n
}

// oddMantissa returns m odd and e with f = m*2^e, for finite f > 0.
func oddMantissa(f float64) (uint64, int) {
	frac, exp := math.Frexp(f)
	m := uint64(frac * (1 << 53))
	tz := bits.TrailingZeros64(m)
	return m >> tz, exp - 53 + tz
}

// tiePosition returns the only decimal position q (digits after the point;
// negative for tens, hundreds...) at which f > 0 can lie exactly halfway
// between two multiples of 10^-q: f*10^q = m*5^q*2^(e+q) with m odd has a
// fractional part of 1/2 only when e+q = -1.
func tiePosition(f float64) int {
	_, e := oddMantissa(f)
	return -e - 1
}

// decimalTie reports whether f*10^q has a fractional part of exactly 1/2.
func decimalTie(f float64, q int) bool {
	if f == 0 {
		return false
	}
	m, e := oddMantissa(f)
	if -e-1 != q {
		return false
	}
	// Above the units (q < 0) m must also be a multiple of 5^-q.
	for i := 0; i < -q; i++ {
		if m%5 != 0 {
			return false
		}
		m /= 5
	}
	return true
}

// roundDigitsUp adds one unit in the last place to the decimal number in
// b[start:], growing it by a leading 1 when the carry runs out.
func roundDigitsUp(b []byte, start int) []byte {
	for i := len(b) - 1; i >= start; i-- {
		switch c := b[i]; {
		case c == '.':
			continue
		case c == '9':
			b[i] = '0'
		default:
			b[i]++
			return b
		}
	}
	b = append(b, 0)
	copy(b[start+1:], b[start:])
	b[start] = '1'
	return b
}

// roundMantissaUp takes a strconv 'e' number in b[start:] whose mantissa
// ends in the tie digit 5, drops that digit and rounds the mantissa up,
// moving to the next exponent when it carries (9.5e+00 becomes 1e+01).
func roundMantissaUp(b []byte, start int) []byte {
	e := start
	for b[e] != 'e' {
		e++
	}
	exp := exponentOf(b[start:])
	end := e - 1 // drop the 5
	if b[end-1] == '.' {
		end-- // and a point left without digits
	}
	b = b[:end]
	b = roundDigitsUp(b, start)
	if len(b) > end {
		// All nines: "9.99" became "10.00"; make it "1.00" and bump the
		// exponent.
		b = b[:len(b)-1]
		if len(b) > start+2 {
			b[start+1], b[start+2] = '.', '0'
		}
		exp++
	}
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	if exp < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}

// appendFloatA appends f in C's %a style as LuaJIT prints it: a normalized
// leading 1 (2 after a carry), prec hex digits (all significant ones when
// prec < 0), ties rounded up (to even if even is set), and a decimal
// binary exponent.
func appendFloatA(b []byte, f float64, prec int, alt, upper, even bool) []byte {
	start := len(b)
	b = append(b, '0', 'x')
	var mant uint64 // 52 fraction bits below the leading digit
	lead, exp := uint64(0), 0
	if f != 0 {
		frac, e := math.Frexp(f)
		m := uint64(frac * (1 << 53))
		lead, mant, exp = 1, m&(1<<52-1), e-1
	}
	digits := 13
	if prec >= 0 && prec < 13 {
		shift := uint(13-prec) * 4
		half := uint64(1) << (shift - 1)
		rest := mant & (1<<shift - 1)
		mant >>= shift
		if rest > half || rest == half && (!even || mant&1 == 1) {
			mant++
			if mant>>(uint(prec)*4) != 0 {
				lead++
				mant &= 1<<(uint(prec)*4) - 1
			}
		}
		digits = prec
	} else if prec < 0 {
		for digits > 0 && mant&0xf == 0 {
			mant >>= 4
			digits--
		}
	}
	b = append(b, byte('0'+lead))
	if digits > 0 || prec > 0 || alt {
		b = append(b, '.')
	}
	for i := digits - 1; i >= 0; i-- {
		b = append(b, "0123456789abcdef"[mant>>(uint(i)*4)&0xf])
	}
	for i := digits; i < prec; i++ {
		b = append(b, '0')
	}
	b = append(b, 'p')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	b = strconv.AppendInt(b, int64(exp), 10)
	if upper {
		upperASCII(b[start:])
	}
	return b
}

func upperASCII(b []byte) {
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
}

// truncInt64 converts f to int64 as x86-64's cvttsd2si does, which is what
// LuaJIT's %d and bit conversions run: truncation toward zero, and the
// "integer indefinite" value math.MinInt64 for NaN and out-of-range input.
// (Go's own conversion of such values is implementation-specific.)
func truncInt64(f float64) int64 {
	if f != f || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// truncInt32 is truncInt64 for a 32-bit destination, whose "integer
// indefinite" value is math.MinInt32.
func truncInt32(f float64) int32 {
	if f != f || f >= 1<<31 || f <= -(1<<31)-1 {
		return math.MinInt32
	}
	return int32(f)
}

// formatUint64 converts f for string.format's %u, %x, %X and %o: values
// from 2^63 up wrap around 2^64, the rest truncate as for %d, so -1
// formats as ffffffffffffffff and 2^64 as 0.
func formatUint64(f float64) uint64 {
	if f >= 1<<63 {
		return uint64(truncInt64(f - (1 << 64)))
	}
	return uint64(truncInt64(f))
}

// arithUint64 converts a number operand of uint64_t cdata arithmetic the
// way LuaJIT's x86-64 build does: a value that truncates to a negative
// int64 (a negative number, NaN, or 2^63 and up) is retried as f-2^64, so
// 2^64 becomes 0 and -1 becomes 2^63 (5ULL + -1 is 9223372036854775813ULL).
func arithUint64(f float64) uint64 {
	if i := truncInt64(f); i >= 0 {
		return uint64(i)
	}
	return uint64(truncInt64(f - (1 << 64)))
}

// isCSpace is C's isspace in the "C" locale, which LuaJIT's number scanner
// uses to skip blanks around a number.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// parseLuaNumber reads s the way LuaJIT's tonumber does: blanks around
// the number, an optional sign, decimal with optional fraction and
// exponent, hexadecimal (0x, with optional fraction and binary p
// exponent), binary (0b), and inf, infinity and nan in any case.
func parseLuaNumber(s string) (float64, bool) {
	i, j := 0, len(s)
	for i < j && isCSpace(s[i]) {
		i++
	}
	for j > i && isCSpace(s[j-1]) {
		j--
	}
	s = s[i:j]
	if s == "" {
		return 0, false
	}
	neg := false
	body := s
	if body[0] == '-' || body[0] == '+' {
		neg = body[0] == '-'
		body = body[1:]
	}
	var f float64
	switch {
	case len(body) >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'):
		v, ok := parseHexNumber(body[2:])
		if !ok {
			return 0, false
		}
		f = v
	case len(body) >= 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B'):
		v, ok := parseBinaryNumber(body[2:])
		if !ok {
			return 0, false
		}
		f = v
	case len(body) > 0 && (body[0] >= '0' && body[0] <= '9' || body[0] == '.'):
		if !isDecimalNumber(body) {
			return 0, false
		}
		v, err := strconv.ParseFloat(body, 64)
		if err != nil && !isRangeError(err) {
			return 0, false
		}
		f = v
	case strings.EqualFold(body, "inf") || strings.EqualFold(body, "infinity"):
		f = math.Inf(1)
	case strings.EqualFold(body, "nan"):
		f = math.NaN()
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// isRangeError reports strconv's overflow/underflow error, for which
// ParseFloat still returns the right value (±Inf or 0) as LuaJIT does.
func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isDecimalNumber checks digits [. digits] [e [sign] digits] with at least
// one mantissa digit; strconv would also take underscores and such.
func isDecimalNumber(s string) bool {
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseHexNumber reads the part after 0x: hex digits [. hex digits]
// [p [sign] decimal digits].
func parseHexNumber(s string) (float64, bool) {
	i, digits := 0, 0
	for i < len(s) && isHexDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isHexDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	mantissa := s[:i]
	exp := "p0"
	if i < len(s) && (s[i] == 'p' || s[i] == 'P') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			n++
		}
		if n == 0 {
			return 0, false
		}
		exp, i = s[i:j], j
	}
	if i != len(s) {
		return 0, false
	}
	// strconv rounds hex floats correctly but insists on the p exponent.
	v, err := strconv.ParseFloat("0x"+mantissa+exp, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return v, true
}

func parseBinaryNumber(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	var f float64
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != '1' {
			return 0, false
		}
		f = f*2 + float64(s[i]-'0')
	}
	return f, true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseIntBase reads s in base 2..36 as LuaJIT's tonumber(s, base) does:
// blanks, an optional sign, then a letter or digit, then what C's strtoul
// accepts (a 0x prefix in base 16, saturation at 2^64-1), then blanks.
func parseIntBase(s string, base int) (float64, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) || digitValue(s[i]) >= 36 {
		return 0, false
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16 {
		i += 2
	}
	start := i
	var u uint64
	overflow := false
	for i < len(s) {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(u, uint64(base))
		lo, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		u = lo
		i++
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	if overflow {
		u = math.MaxUint64
	}
	f := float64(u)
	if neg {
		f = -f
	}
	return f, true
}

// digitValue is the value of c as a digit in bases up to 36, or 36 when c
// is no digit.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}
