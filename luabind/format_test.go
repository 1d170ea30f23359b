package luabind

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestStringFormat compares string.format with LuaJIT's; see the top of
// luajit_test.go for how the expected values were produced.
func TestStringFormat(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`string.format("SELECT c FROM sbtest%u WHERE id=%d", 3, 4711)`, "SELECT c FROM sbtest3 WHERE id=4711"}, // the OLTP hot path
		{`string.format("no conversions")`, "no conversions"},                                                   // format without %
		{`string.format("100%%")`, "100%"},                                                                      // literal percent
		{`string.format(12)`, "12"},                                                                             // a number as the format
		{`string.format("%d", 3.7)`, "3"},                                                                       // %d truncates floats
		{`string.format("%d", -3.7)`, "-3"},                                                                     // toward zero
		{`string.format("%d", "12")`, "12"},                                                                     // numeric string
		{`string.format("%d", " 12 ")`, "12"},                                                                   // blanks around a numeric string
		{`string.format("%d", "0x10")`, "16"},                                                                   // hex string
		{`string.format("%d", "1e3")`, "1000"},                                                                  // exponent string
		{`string.format("%d", "-1.9")`, "-1"},                                                                   // fractional string truncates
		{`string.format("%d", 2^63)`, "-9223372036854775808"},                                                   // out of range is INT64_MIN
		{`string.format("%d", 1e20)`, "-9223372036854775808"},                                                   // far out of range
		{`string.format("%d", 0/0)`, "-9223372036854775808"},                                                    // NaN is INT64_MIN
		{`string.format("%d", -0.0)`, "0"},                                                                      // negative zero
		{`string.format("%5d|%-5d|%05d", 42, 42, 42)`, "   42|42   |00042"},                                     // width, left, zero
		{`string.format("%+d % d %+ d", 42, 42, 3)`, "+42  42 +3"},                                              // sign flags
		{`string.format("%.3d|%+.3d|%08.3d", 7, -7, 7)`, "007|-007|     007"},                                   // precision; zero flag ignored with precision
		{`string.format("%05.0d|%05.d|%05.0x|%05.1d", 1, 7, 255, 3)`, "    1|    7|   ff|    3"},                // a zero precision also turns the zero flag off
		{`string.format("%5.3d|%-+6d|%-05d|% 05d", -7, 7, -3, 3)`, " -007|+7    |-3   | 0003"},                  // flag combinations
		{`string.format("%.0d|%.d", 0, 0)`, "|"},                                                                // zero precision prints nothing for 0
		{`string.format("%------5d|", 1)`, "1    |"},                                                            // repeated flags are fine
		{`string.format("%99d|", 1)`, "                                                                                                  1|"}, // two-digit width
		{`string.format("%.99d", 1)`, "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"},  // two-digit precision
		{`string.format("%i", 5)`, "5"},                                                                                                     // %i
		{`string.format("%u", 5)`, "5"},                                                                                                     // %u
		{`string.format("%u", -1)`, "18446744073709551615"},                                                                                 // negative %u wraps
		{`string.format("%u", -1.5)`, "18446744073709551615"},                                                                               // truncate then wrap
		{`string.format("%u", 2^63)`, "9223372036854775808"},                                                                                // 2^63
		{`string.format("%u", 2^64)`, "0"},                                                                                                  // 2^64 wraps to 0
		{`string.format("%u", 1e20)`, "9223372036854775808"},                                                                                // far out of range
		{`string.format("%u", 1/0)`, "9223372036854775808"},                                                                                 // infinity
		{`string.format("%u|%x", 2^63+4096, 3*2^62)`, "9223372036854779904|c000000000000000"},                                               // between 2^63 and 2^64: wraps around 2^64
		{`string.format("%u|%x", 2^64-2048, 2^64-2048)`, "18446744073709549568|fffffffffffff800"},                                           // the largest doubles below 2^64
		{`string.format("%X|%o", 2^63+2^62+2^61, 2^63+4096)`, "E000000000000000|1000000000000000010000"},                                    // %X and %o wrap the same way
		{`string.format("%u|%x", 2^63-1024, 2^63-1024)`, "9223372036854774784|7ffffffffffffc00"},                                            // just below 2^63: no wrap
		{`string.format("%x|%u", 2^64+4096, -2^63-4096)`, "1000|9223372036854775808"},                                                       // above 2^64 wraps once; below -2^63 is out of range
		{`string.format("%#x|%20u|%-20x|", 3*2^62, 2^63+2048, 2^63+2048)`, "0xc000000000000000| 9223372036854777856|8000000000000800    |"}, // flags and width on wrapped values
		{`string.format("%+u", 5)`, "5"},                                                                                                    // plus flag ignored for unsigned
		{`string.format("%x|%X", 255, 255)`, "ff|FF"},                                                                                       // hex
		{`string.format("%x", -1)`, "ffffffffffffffff"},                                                                                     // 64-bit two's complement
		{`string.format("%x", -3.9)`, "fffffffffffffffd"},                                                                                   // truncate toward zero first
		{`string.format("%x", 2^63)`, "8000000000000000"},                                                                                   // 2^63
		{`string.format("%x", -2^63)`, "8000000000000000"},                                                                                  // -2^63
		{`string.format("%x", 0/0)`, "8000000000000000"},                                                                                    // NaN
		{`string.format("%#x|%#X|%#x", 255, 255, 0)`, "0xff|0XFF|0"},                                                                        // alternate form, not for 0
		{`string.format("%#010x", 255)`, "0x000000ff"},                                                                                      // zeros after the 0x
		{`string.format("%.0x|%5.2x", 0, 1)`, "|   01"},                                                                                     // hex precision
		{`string.format("%x", "ff")`, "error: bad argument #2 to 'format' (number expected, got string)"},                                   // %x does not read hex digits without 0x
		{`string.format("%o|%o", 8, -1)`, "10|1777777777777777777777"},                                                                      // octal
		{`string.format("%#o|%#o|%#.3o|%#5o|%.0o|%#.0o", 8, 0, 8, 8, 0, 0)`, "010|0|010|  010||0"},                                          // octal alternate form
		{`string.format("%o", 2^63)`, "1000000000000000000000"},                                                                             // octal 2^63
		{`string.format("%c", 65)`, "A"},                                                                                                    // character
		{`string.format("%c", 256 + 65)`, "A"},                                                                                              // low byte
		{`string.format("%c", 0)`, "\x00"},                                                                                                  // NUL byte
		{`string.format("%5c|%-3c|%05c", 65, 65, 65)`, "    A|A  |    A"},                                                                   // character width
		{`string.format("%c", 65.7)`, "A"},                                                                                                  // truncated
		{`string.format("%c", "66")`, "B"},                                                                                                  // numeric string
		{`string.format("%c", -1)`, "\xff"},                                                                                                 // byte 255
		{`string.format("%e|%E", 12345.678, 12345.678)`, "1.234568e+04|1.234568E+04"},                                                       // exponent form
		{`string.format("%.2e", 0)`, "0.00e+00"},                                                                                            // zero
		{`string.format("%e", -0.0)`, "-0.000000e+00"},                                                                                      // negative zero
		{`string.format("% e|%+.2e", 1, 1e-300)`, " 1.000000e+00|+1.00e-300"},                                                               // sign flags, three-digit exponent
		{`string.format("%.0e|%#.0e", 15, 15)`, "2e+01|2.e+01"},                                                                             // no fraction, alternate form
		{`string.format("%.0e|%.0e|%.0e", 25, 2.5, 9.5)`, "3e+01|3e+00|1e+01"},                                                              // ties round away from zero
		{`string.format("%.1e|%.3e", 0.125, 1.0005)`, "1.3e-01|1.000e+00"},                                                                  // tie, and a value just below one
		{`string.format("%010.3e", -1.5)`, "-1.500e+00"},                                                                                    // zero padding after the sign
		{`string.format("%f", 1/3)`, "0.333333"},                                                                                            // default precision
		{`string.format("%.0f|%.0f|%.0f|%.0f", 0.5, 2.5, 3.5, -2.5)`, "1|3|4|-3"},                                                           // ties round away from zero
		{`string.format("%.1f|%.2f|%.1f", 0.25, 0.125, 0.05)`, "0.3|0.13|0.1"},                                                              // fractional ties, and 0.05 which is above
		{`string.format("%.2f", 1.005)`, "1.00"},                                                                                            // 1.005 is below the tie
		{`string.format("%.0f", 0.49999999999999994)`, "0"},                                                                                 // just below one half
		{`string.format("%.0f", 1125899906842624.5)`, "1125899906842625"},                                                                   // tie where one unit in the last place is 0.25... and above
		{`string.format("%.1f", 1125899906842624.25)`, "1125899906842624.3"},                                                                // tie with a coarse last place
		{`string.format("%5.1f", "3.14")`, "  3.1"},                                                                                         // numeric string
		{`string.format("%05.1f", -2.5)`, "-02.5"},                                                                                          // zero padding with sign
		{`string.format("x%+08.2f|%08.1e|%010.1a", 1.5, -3, -1)`, "x+0001.50|-3.0e+00|-0x01.0p+0"},                                          // zero padding after the sign, after other text
		{`string.format("%#.0f", 15)`, "15."},                                                                                               // alternate form keeps the point
		{`string.format("%+.0f", 0)`, "+0"},                                                                                                 // plus flag
		{`string.format("%.20f", 0.1)`, "0.10000000000000000555"},                                                                           // exact digits
		{`string.format("%.0f", 1e22)`, "10000000000000000000000"},                                                                          // big integer
		{`string.format("%.0f", 1e23)`, "99999999999999991611392"},                                                                          // nearest double of 1e23
		{`string.format("%f", 1e300)`, "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000"}, // very long
		{`string.format("%F", 1)`, "1.000000"},                                                                             // %F
		{`string.format("%f|%f|%f", 1/0, -1/0, 0/0)`, "inf|-inf|nan"},                                                      // inf and nan
		{`string.format("%F|%E|%G", 1/0, 1/0, 0/0)`, "INF|INF|NAN"},                                                        // upper-case inf and nan
		{`string.format("%5.1f|%+f|%010f|%-6f|", 0/0, 1/0, 1/0, 1/0)`, "  nan|+inf|       inf|inf   |"},                    // inf and nan padding
		{`string.format("%g|%g|%g|%g", 1e20, 0.0001, 100000, 1000000)`, "1e+20|0.0001|100000|1e+06"},                       // %g switches to exponent form
		{`string.format("%G", 1e-20)`, "1E-20"},                                                                            // upper case
		{`string.format("%#g|%#g|%#.3g|%#.0g", 1, 0, 1, 1)`, "1.00000|0.00000|1.00|1."},                                    // alternate form keeps zeros
		{`string.format("%.3g|%g|%g", 1234567, 123456789, 2.5)`, "1.23e+06|1.23457e+08|2.5"},                               // rounding to significant digits
		{`string.format("%g|%.0g|%g", 0, 0, tonumber("-0"))`, "0|0|-0"},                                                    // zero, and negative zero made at run time (gopher-lua merges a -0.0 constant with 0)
		{`string.format("%g|%g|%g", 1e-4, 9.9999995e-5, 999999.5)`, "0.0001|0.0001|1e+06"},                                 // rounding across the switch
		{`string.format("%.3g|%.3g|%.1g|%.1g|%.0g", 999.5, 0.0009995, 0.25, 25, 2.5)`, "1e+03|0.000999|0.3|3e+01|3"},       // ties in %g
		{`string.format("%10.4g|%-10.4g|", math.pi, -math.pi)`, "     3.142|-3.142    |"},                                  // width
		{`string.format("%.14g|%.17g|%.15g", 2^63, 0.1, 0.1)`, "9.2233720368548e+18|0.10000000000000001|0.1"},              // precision
		{`string.format("%a|%A", 1, 0.5)`, "0x1p+0|0X1P-1"},                                                                // hex float
		{`string.format("%a|%a|%a", 0.1, 0, tonumber("-0"))`, "0x1.999999999999ap-4|0x0p+0|-0x0p+0"},                       // hex float digits, zero and negative zero
		{`string.format("%a|%A|%a", 1/0, 1/0, 0/0)`, "inf|INF|nan"},                                                        // hex float inf and nan
		{`string.format("%a|%a", 1e-310, 1e-320)`, "0x1.2688b70e62bp-1030|0x1.fap-1064"},                                   // subnormals are normalized
		{`string.format("%.3a|%.0a|%#a", 1, 1.5, 1)`, "0x1.000p+0|0x2p+0|0x1.p+0"},                                         // hex float precision
		{`string.format("%.2a|%.1a|%.1a|%.1a", 1.999, 1.96875, 1.03125, 1.09375)`, "0x2.00p+0|0x2.0p+0|0x1.1p+0|0x1.2p+0"}, // hex rounding carries into the leading digit
		{`string.format("%10a|%+a", 1, 1)`, "    0x1p+0|+0x1p+0"},                                                          // hex float width and sign
		{`string.format("%s", 1e15)`, "1e+15"},                                                                             // numbers as tostring
		{`string.format("%s|%s|%s|%s", 1/3, 12, 0/0, -0.0)`, "0.33333333333333|12|nan|-0"},                                 // numbers as tostring
		{`string.format("%s|%s|%s", true, nil, "x")`, "true|nil|x"},                                                        // other values
		{`string.format("%5s|%-5s|%.1s|%5.1s|%05s", "ab", "ab", "abc", "abc", "x")`, "   ab|ab   |a|    a|    x"},          // string width and precision
		{`string.format("%.0s|%.s|%.2s", "abc", "abc", 1234)`, "||12"},                                                     // precision cuts
		{`string.format("ab%.5s|%-4.2s|%.9s", "xyz", 12345, 1.5)`, "abxyz|12  |1.5"},                                       // precision beyond the text, after other text
		{`string.format("%s", "a\0b")`, "a\x00b"},                                                                          // embedded NUL
		{`string.format("%#s|%+s", "x", "x")`, "x|x"},                                                                      // flags ignored
		{`string.format("%s", setmetatable({}, {__tostring = function() return "TS" end}))`, "TS"},                         // __tostring
		{`string.format("%10.3s|", setmetatable({}, {__tostring = function() return "TSTSTS" end}))`, "       TST|"},       // __tostring with width
		{`string.format("%s", setmetatable({}, {__tostring = function() return 42 end}))`, "42"},                           // __tostring returning a number
		{`string.format("%q", 'a"b\n')`, "\"a\\\"b\\\n\""},                                                                 // quotes and newline
		{`string.format("%q", "a\0b")`, "\"a\\0b\""},                                                                       // NUL
		{`string.format("%q", "a\0001")`, "\"a\\0001\""},                                                                   // NUL before a digit
		{`string.format("%q", "\r\t\\\026")`, "\"\\13\\9\\\\\\26\""},                                                       // control characters
		{`string.format("%q", "\127x")`, "\"\\127x\""},                                                                     // DEL
		{`string.format("%q", "\1\0012")`, "\"\\1\\0012\""},                                                                // padded escape before a digit
		{`string.format("%q", "\0271\1272\0313")`, "\"\\0271\\1272\\0313\""},                                               // three-digit escapes of ESC, DEL and 31 before digits
		{`string.format("%q", "\200")`, "\"\xc8\""},                                                                        // high bytes unchanged
		{`string.format("%q|%q|%q|%q|%q", 12, nil, true, 1.5, 1/0)`, "\"12\"|\"nil\"|\"true\"|\"1.5\"|\"inf\""},            // non-strings are quoted tostring
		{`string.format("%5q|%.3q", "x", "x")`, "\"x\"|\"x\""},                                                             // width and precision ignored
		{`string.format("%p|%10p|", 1, nil)`, "NULL|NULL|"},                                                                // %p of non-objects
		{`string.format("%s %s", 1, 2, 3)`, "1 2"},                                                                         // extra arguments ignored
		{`string.format("%d %d", 1)`, "error: bad argument #3 to 'format' (value expected)"},                               // missing argument
		{`string.format("%d")`, "error: bad argument #2 to 'format' (value expected)"},                                     // no argument
		{`string.format("%s")`, "error: bad argument #2 to 'format' (value expected)"},                                     // no argument for %s
		{`string.format("%d", "abc")`, "error: bad argument #2 to 'format' (number expected, got string)"},                 // non-numeric string
		{`string.format("%d", true)`, "error: bad argument #2 to 'format' (number expected, got boolean)"},                 // boolean
		{`string.format("%d", nil)`, "error: bad argument #2 to 'format' (number expected, got nil)"},                      // explicit nil
		{`string.format("%f", "abc")`, "error: bad argument #2 to 'format' (number expected, got string)"},                 // non-numeric string for %f
		{`string.format("%y", 1)`, "error: invalid option '%y' to 'format'"},                                               // unknown conversion
		{`string.format("%lld", 1)`, "error: invalid option '%l' to 'format'"},                                             // length modifiers are invalid here
		{`string.format("%100d", 1)`, "error: invalid option '%100' to 'format'"},                                          // three-digit width
		{`string.format("%.100d", 1)`, "error: invalid option '%.100' to 'format'"},                                        // three-digit precision
		{`string.format("%.5")`, "error: invalid option '%.5' to 'format'"},                                                // format ends inside the precision
		{`string.format("%.12")`, "error: invalid option '%.12' to 'format'"},                                              // format ends after two digits of precision
		{`string.format("%5")`, "error: invalid option '%5' to 'format'"},                                                  // format ends inside the width
		{`string.format("%5%")`, "error: invalid option '%5%' to 'format'"},                                                // %% with a width
		{`string.format("%", 1)`, "error: invalid option '%' to 'format'"},                                                 // lone percent at the end
		{`string.format("abc%")`, "error: invalid option '%' to 'format'"},                                                 // lone percent after text
		{`string.format()`, "error: bad argument #1 to 'format' (string expected, got no value)"},                          // no format
		{`string.format(nil)`, "error: bad argument #1 to 'format' (string expected, got nil)"},                            // nil format
		{`string.format({})`, "error: bad argument #1 to 'format' (string expected, got table)"},                           // table format
		{`("x=%d"):format(5)`, "x=5"},                                                                                      // method call syntax
	})
}

// TestStringFormatAllocations pins the hot path's cost: formatting the
// OLTP statement allocates only the result string.
func TestStringFormatAllocations(t *testing.T) {
	L, _, _ := compatNewState(t)
	L.Push(lua.LString("unused format argument"))
	L.Push(lua.LNumber(3))
	L.Push(lua.LNumber(4711))
	allocs := testing.AllocsPerRun(100, func() {
		_ = luaFormat(L, "SELECT c FROM sbtest%u WHERE id=%d", 2)
	})
	if allocs > 1 {
		t.Errorf("luaFormat allocates %v times per call, want 1", allocs)
	}
}

// BenchmarkStringFormat measures the OLTP scripts' per-query call,
// string.format("SELECT c FROM sbtest%u WHERE id=%d", ...), through the
// Lua call path. Of its allocations, the result string and its boxing as
// a Lua value are the call's; the two number arguments are the
// benchmark's.
func BenchmarkStringFormat(b *testing.B) {
	L, _, _ := compatNewState(b)
	format := L.GetField(L.GetGlobal("string"), "format")
	tmpl := lua.LString("SELECT c FROM sbtest%u WHERE id=%d")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		L.Push(format)
		L.Push(tmpl)
		L.Push(lua.LNumber(i%32 + 1))
		L.Push(lua.LNumber(i))
		L.Call(3, 1)
		L.Pop(1)
	}
}

// BenchmarkStringFormatFloat measures a report-style float conversion.
func BenchmarkStringFormatFloat(b *testing.B) {
	L, _, _ := compatNewState(b)
	format := L.GetField(L.GetGlobal("string"), "format")
	tmpl := lua.LString("%8.2f ms")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		L.Push(format)
		L.Push(tmpl)
		L.Push(lua.LNumber(float64(i) / 7))
		L.Call(2, 1)
		L.Pop(1)
	}
}

// BenchmarkLuaNumberString measures tostring of integers and fractions.
func BenchmarkLuaNumberString(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = luaNumberString(float64(i))
		_ = luaNumberString(float64(i) / 7)
	}
}
