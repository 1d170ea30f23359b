package luabind

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// LuaJIT's string.format, rewritten because gopher-lua hands the format to
// Go's fmt: "%u" (oltp_common.lua's "sbtest%u") would print "%!u(...)",
// "%d" would not take strings or floats, and %q, %x of negatives, rounding
// and error messages would all differ. Every call of an OLTP event runs
// through here, so the common conversions append straight into one buffer
// with strconv and allocate only the result string.

// formatSpec is one parsed conversion: %[flags][width][.precision]conv.
type formatSpec struct {
	left, plus, space, zero, alt bool
	width                        int
	prec                         int // -1 when absent
	conv                         byte
	tiesToEven                   bool // C's printf rounding, not LuaJIT's
}

// luaFormat formats the values from stack position firstArg on with format
// as LuaJIT's string.format does. Bad formats and arguments raise Lua
// errors worded as LuaJIT's ("bad argument #3 to 'format' (value
// expected)", "invalid option '%y' to 'format'").
func luaFormat(L *lua.LState, format string, firstArg int) string {
	var scratch [256]byte
	return string(appendLuaFormat(L, scratch[:0], format, firstArg, "format", false))
}

// strFormat is string.format(fmt, ...); its results come from the
// state's arena.
func (c *compatState) strFormat(L *lua.LState) int {
	format := formatString(L, 1, "format")
	if strings.IndexByte(format, '%') < 0 {
		L.Push(lua.LString(format))
		return 1
	}
	var scratch [256]byte
	L.Push(c.formatted.newLString(appendLuaFormat(L, scratch[:0], format, 2, "format", false)))
	return 1
}

// formatString reads a string argument as LuaJIT's lua_checkstring does:
// numbers are converted, anything else is an error.
func formatString(L *lua.LState, n int, fname string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return luaNumberString(float64(v))
	}
	ljTypeError(L, n, fname, "string")
	return ""
}

// appendLuaFormat appends the formatted text to b. fname names the Lua
// function in error messages. cPrintf gives what ffi.C.printf needs: C's
// length modifiers (%llu, %ld, %zu...) are accepted and exact ties round
// to even as glibc's printf does.
func appendLuaFormat(L *lua.LState, b []byte, format string, firstArg int, fname string, cPrintf bool) []byte {
	arg := firstArg
	top := L.GetTop()
	for i := 0; i < len(format); {
		if format[i] != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				return append(b, format[i:]...)
			}
			b = append(b, format[i:i+j]...)
			i += j
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b = append(b, '%')
			i += 2
			continue
		}
		if i+1 < len(format) && arg <= top {
			// The conversions of SQL text, %d of a number and %s of a
			// string, skip the general parser.
			switch v := L.Get(arg).(type) {
			case lua.LNumber:
				if c := format[i+1]; c == 'd' || c == 'i' {
					b = strconv.AppendInt(b, truncInt64(float64(v)), 10)
					i += 2
					arg++
					continue
				}
			case lua.LString:
				if format[i+1] == 's' {
					b = append(b, v...)
					i += 2
					arg++
					continue
				}
			}
		}
		var spec formatSpec
		var ok bool
		specStart := i
		spec, i, ok = parseFormatSpec(format, i+1, cPrintf)
		spec.tiesToEven = cPrintf
		if !ok {
			L.RaiseError("invalid option '%s' to '%s'", format[specStart:i], fname)
		}
		if arg > top {
			ljArgError(L, arg, fname, "value expected")
		}
		b = appendFormatted(L, b, &spec, L.Get(arg), arg, fname)
		arg++
	}
	return b
}

// parseFormatSpec parses the conversion after a '%' at format[i:]. It
// returns the index after the conversion, or, when it is invalid, the
// index after the offending character, which LuaJIT quotes in the error.
// Like LuaJIT it takes any number of flags and at most two digits of width
// and of precision.
func parseFormatSpec(format string, i int, cLengths bool) (formatSpec, int, bool) {
	spec := formatSpec{prec: -1}
flags:
	for ; i < len(format); i++ {
		switch format[i] {
		case '-':
			spec.left = true
		case '+':
			spec.plus = true
		case ' ':
			spec.space = true
		case '#':
			spec.alt = true
		case '0':
			spec.zero = true
		default:
			break flags
		}
	}
	for n := 0; n < 2 && i < len(format) && isDigit(format[i]); n++ {
		spec.width = spec.width*10 + int(format[i]-'0')
		i++
	}
	if i < len(format) && format[i] == '.' {
		i++
		spec.prec = 0
		for n := 0; n < 2 && i < len(format) && isDigit(format[i]); n++ {
			spec.prec = spec.prec*10 + int(format[i]-'0')
			i++
		}
	}
	if cLengths {
		for i < len(format) && strings.IndexByte("hlLqjzt", format[i]) >= 0 {
			i++
		}
	}
	if i >= len(format) {
		return spec, i, false
	}
	spec.conv = format[i]
	i++
	switch spec.conv {
	case 'd', 'i', 'u', 'c', 'o', 'x', 'X', 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A', 's', 'q', 'p':
		return spec, i, true
	}
	return spec, i, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// appendFormatted appends one converted argument v (stack position n).
func appendFormatted(L *lua.LState, b []byte, spec *formatSpec, v lua.LValue, n int, fname string) []byte {
	switch spec.conv {
	case 'd', 'i':
		var i int64
		if u, ok := toUint64(v); ok {
			i = int64(u) // LuaJIT prints 64-bit cdata as signed for %d
		} else {
			i = truncInt64(formatNumberArg(L, v, n, fname))
		}
		if spec.plain() {
			return strconv.AppendInt(b, i, 10)
		}
		mag := uint64(i)
		if i < 0 {
			mag = -mag
		}
		return appendIntSpec(b, spec, i < 0, mag)
	case 'u', 'o', 'x', 'X':
		u, ok := toUint64(v)
		if !ok {
			u = formatUint64(formatNumberArg(L, v, n, fname))
		}
		if spec.plain() && spec.conv == 'u' {
			return strconv.AppendUint(b, u, 10)
		}
		return appendIntSpec(b, spec, false, u)
	case 'c':
		// The character code goes through a 32-bit conversion, so values
		// beyond the int32 range print a NUL.
		c := byte(truncInt32(formatNumberArg(L, v, n, fname)))
		start := len(b)
		b = append(b, c)
		return padField(b, start, 0, spec.width, spec.left, false)
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		return appendFloatSpec(b, spec, formatNumberArg(L, v, n, fname))
	case 's':
		start := len(b)
		if s, ok := v.(lua.LString); ok && spec.width == 0 && spec.prec < 0 {
			return append(b, s...)
		}
		b = appendToString(L, b, v)
		if spec.prec >= 0 && len(b)-start > spec.prec {
			b = b[:start+spec.prec]
		}
		return padField(b, start, 0, spec.width, spec.left, false)
	case 'q':
		if s, ok := v.(lua.LString); ok {
			return appendQuoted(b, string(s))
		}
		var tmp [64]byte
		return appendQuoted(b, string(appendToString(L, tmp[:0], v)))
	case 'p':
		return appendPointer(b, v)
	}
	return b
}

// plain reports a conversion without flags, width or precision, which the
// integer conversions print with a bare strconv call.
func (s *formatSpec) plain() bool {
	return s.width == 0 && s.prec < 0 && !s.left && !s.plus && !s.space && !s.zero && !s.alt
}

// formatNumberArg reads a numeric argument: a number, or a string that
// reads as one. LuaJIT reports anything else as "number expected".
func formatNumberArg(L *lua.LState, v lua.LValue, n int, fname string) float64 {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x)
	case lua.LString:
		if f, ok := parseLuaNumber(string(x)); ok {
			return f
		}
	}
	ljTypeError(L, n, fname, "number")
	return 0
}

// appendIntSpec appends an integer conversion (d i u o x X) of the
// magnitude mag with C's rules for flags, width and precision.
func appendIntSpec(b []byte, spec *formatSpec, neg bool, mag uint64) []byte {
	start := len(b)
	signed := spec.conv == 'd' || spec.conv == 'i'
	switch {
	case neg:
		b = append(b, '-')
	case signed && spec.plus:
		b = append(b, '+')
	case signed && spec.space:
		b = append(b, ' ')
	}
	base := 10
	switch spec.conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
		if spec.alt && mag != 0 {
			b = append(b, '0', spec.conv)
		}
	}
	prefix := len(b) - start
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], mag, base)
	if spec.conv == 'X' {
		upperASCII(digits)
	}
	if spec.prec == 0 && mag == 0 {
		digits = digits[:0]
	}
	zeros := spec.prec - len(digits)
	if spec.conv == 'o' && spec.alt && zeros <= 0 && (len(digits) == 0 || digits[0] != '0') {
		zeros = 1 // '#' makes octal start with a 0
	}
	for ; zeros > 0; zeros-- {
		b = append(b, '0')
	}
	b = append(b, digits...)
	return padField(b, start, prefix, spec.width, spec.left, spec.zero && spec.prec < 0)
}

// appendFloatSpec appends a floating-point conversion (e E f F g G a A).
func appendFloatSpec(b []byte, spec *formatSpec, f float64) []byte {
	start := len(b)
	nan := math.IsNaN(f)
	if math.Signbit(f) && !nan {
		b = append(b, '-')
		f = -f
	} else if spec.plus && !nan { // LuaJIT gives NaN no '+', yet a ' '
		b = append(b, '+')
	} else if spec.space {
		b = append(b, ' ')
	}
	prefix := len(b) - start
	upper := spec.conv == 'E' || spec.conv == 'F' || spec.conv == 'G' || spec.conv == 'A'
	if s, ok := nonFinite(f, upper); ok {
		b = append(b, s...)
		return padField(b, start, prefix, spec.width, spec.left, false)
	}
	prec := spec.prec
	if prec < 0 && spec.conv != 'a' && spec.conv != 'A' {
		prec = 6
	}
	switch spec.conv {
	case 'f', 'F':
		b = appendFloatF(b, f, prec, spec.alt, spec.tiesToEven)
	case 'e', 'E':
		b = appendFloatE(b, f, prec, spec.alt, upper, spec.tiesToEven)
	case 'g', 'G':
		b = appendFloatG(b, f, prec, spec.alt, upper, spec.tiesToEven)
	case 'a', 'A':
		b = appendFloatA(b, f, prec, spec.alt, upper, spec.tiesToEven)
		prefix += 2 // zeros go after the 0x
	}
	return padField(b, start, prefix, spec.width, spec.left, spec.zero)
}

// padField pads the field written at b[start:] to width: spaces after it
// when left-justified, zeros after its first prefix bytes (sign, 0x) when
// zero is set, spaces before it otherwise.
func padField(b []byte, start, prefix, width int, left, zero bool) []byte {
	pad := width - (len(b) - start)
	if pad <= 0 {
		return b
	}
	if left {
		for ; pad > 0; pad-- {
			b = append(b, ' ')
		}
		return b
	}
	end := len(b)
	for i := 0; i < pad; i++ {
		b = append(b, ' ')
	}
	at, fill := start, byte(' ')
	if zero {
		at, fill = start+prefix, '0'
	}
	copy(b[at+pad:], b[at:end])
	for i := at; i < at+pad; i++ {
		b[i] = fill
	}
	return b
}

// appendQuoted appends s in %q form as LuaJIT writes it: quotes and
// backslashes escaped, a newline as backslash-newline, other control
// characters as decimal escapes (\0, \13), zero-padded to three digits
// when a digit follows, and bytes from 128 up unchanged.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n':
			b = append(b, '\\', c)
		case c < ' ' || c == 127:
			b = append(b, '\\')
			if i+1 < len(s) && isDigit(s[i+1]) {
				b = append(b, '0'+c/100, '0'+c/10%10, '0'+c%10)
			} else {
				b = strconv.AppendInt(b, int64(c), 10)
			}
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendPointer is %p: LuaJIT prints the object's address, or NULL for
// values that are not objects (nil, booleans, numbers), and ignores width
// and precision. gopher-lua's tostring carries the address of tables,
// functions, userdata and coroutines; strings print NULL here.
func appendPointer(b []byte, v lua.LValue) []byte {
	switch v.(type) {
	case *lua.LTable, *lua.LFunction, *lua.LUserData, *lua.LState:
		s := v.String()
		if i := strings.Index(s, "0x"); i >= 0 {
			return append(b, s[i:]...)
		}
	}
	return append(b, "NULL"...)
}
