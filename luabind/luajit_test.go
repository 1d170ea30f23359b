package luabind

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The expected values in the table tests of this file, format_test.go,
// bit_test.go and ffi_test.go come from /usr/bin/luajit (LuaJIT
// 2.1.0-beta3, the one sysbench 1.0.20 uses). Each row's expression was run
// as
//
//	luajit - <<< "$compatShowDriver io.write(show(pcall(function() return pass(EXPR
//	) end)))"
//
// and its output pasted as the row's want. compatEval runs the same chunk
// here, so a row passes when sbgo prints what LuaJIT printed.

// compatShowDriver turns pcall's results into one line: values joined by
// "|" (strings as they are, others as type:tostring), or "error: " and the
// message without its position prefix. pass keeps the call under test out
// of tail position, so LuaJIT names the function in error messages.
const compatShowDriver = `
local function pass(...) return ... end
local function show(ok, ...)
  if not ok then
    local msg = tostring((...))
    return "error: " .. (msg:gsub("^[^\n]-:%d+: ", ""))
  end
  local t = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if type(v) == "string" then t[i] = v else t[i] = type(v) .. ":" .. tostring(v) end
  end
  return table.concat(t, "|")
end
`

// compatRow is one expression and what LuaJIT printed for it.
type compatRow struct{ expr, want string }

// compatNewState returns a state with the LuaJIT stand-ins whose output
// goes to the returned buffer; sb_counter_inc appends to counts. The
// global U64(hi, lo) makes the uint64_t value hi*2^32+lo.
func compatNewState(t testing.TB) (*lua.LState, *bytes.Buffer, *[]int) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	out := &bytes.Buffer{}
	counts := &[]int{}
	openLuaJITCompat(L, CompatEnv{Out: out, CounterInc: func(kind int) { *counts = append(*counts, kind) }})
	L.SetGlobal("U64", L.NewFunction(func(L *lua.LState) int {
		pushUint64(L, uint64(L.CheckInt64(1))<<32|uint64(L.CheckInt64(2)))
		return 1
	}))
	return L, out, counts
}

// compatEval runs expr through compatShowDriver in L and returns what it
// wrote, as the luajit command above does.
func compatEval(t *testing.T, L *lua.LState, out *bytes.Buffer, expr string) string {
	t.Helper()
	out.Reset()
	chunk := compatShowDriver + "io.write(show(pcall(function() return pass(" + expr + "\n) end)))"
	if err := L.DoString(chunk); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out.String()
}

// compatCheckRows evaluates every row in a fresh state, as each luajit
// run started afresh (math.random's sequence depends on it).
func compatCheckRows(t *testing.T, rows []compatRow) {
	t.Helper()
	for _, r := range rows {
		L, out, _ := compatNewState(t)
		if got := compatEval(t, L, out, r.expr); got != r.want {
			t.Errorf("%s\n got: %q\nwant: %q", r.expr, got, r.want)
		}
	}
}

// compatRun runs a chunk and returns its output, failing on an error.
func compatRun(t *testing.T, code string) string {
	t.Helper()
	L, out, _ := compatNewState(t)
	if err := L.DoString(code); err != nil {
		t.Fatalf("%v", err)
	}
	return out.String()
}

// TestBaseLibrary compares the replaced base and library functions with
// LuaJIT's; see the top of this file for how the expected values were
// produced.
func TestBaseLibrary(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`tostring(1e15), tostring(1e14), tostring(123456789012345)`, "1e+15|1e+14|1.2345678901235e+14"},                                                                                       // %.14g: exponent from 15 digits, ties away from zero
		{`tostring(1/3), tostring(2^63), tostring(2^53)`, "0.33333333333333|9.2233720368548e+18|9.007199254741e+15"},                                                                           // 14 significant digits
		{`tostring(123456789012325), tostring(0.000123456789012345)`, "1.2345678901233e+14|0.00012345678901234"},                                                                               // tie rounds up; small numbers
		{`tostring(0/0), tostring(-(0/0)), tostring(math.huge), tostring(-math.huge)`, "nan|nan|inf|-inf"},                                                                                     // nan never prints -nan
		{`tostring(tonumber("-0")), tostring(100), tostring(-100), tostring(3.0), tostring(1e-5), tostring(0.1)`, "-0|100|-100|3|1e-05|0.1"},                                                   // negative zero, integers, small values
		{`tostring(5e-324), tostring(1e300), tostring(-1.5)`, "4.9406564584125e-324|1e+300|-1.5"},                                                                                              // extremes
		{`tostring(nil), tostring(true), tostring("s")`, "nil|true|s"},                                                                                                                         // non-numbers
		{`tostring(setmetatable({}, {__tostring = function() return "custom" end}))`, "custom"},                                                                                                // __tostring
		{`tostring()`, "error: bad argument #1 to 'tostring' (value expected)"},                                                                                                                // no argument
		{`tonumber("1e3"), tonumber("0x10"), tonumber(" 12 "), tonumber("\t12\n")`, "number:1000|number:16|number:12|number:12"},                                                               // decimal, hex, blanks
		{`tonumber(""), tonumber(" "), tonumber("0x"), tonumber("1e"), tonumber("1e+"), tonumber("."), tonumber("1 2")`, "nil:nil|nil:nil|nil:nil|nil:nil|nil:nil|nil:nil|nil:nil"},            // not numbers
		{`tonumber("  0x1p4  "), tonumber("0x1P-1"), tonumber("0x.8"), tonumber("0x1."), tonumber("0x1.8"), tonumber("0x.p1")`, "number:16|number:0.5|number:0.5|number:1|number:1.5|nil:nil"}, // hex fractions and exponents
		{`tonumber("inf"), tonumber("-inf"), tonumber("+inf"), tonumber("infinity"), tonumber("INF"), tonumber("NaN"), tonumber("-nan"), tonumber("infin"), tonumber("nan(1)")`, "number:inf|number:-inf|number:inf|number:inf|number:inf|number:nan|number:nan|nil:nil|nil:nil"}, // inf and nan spellings
		{`tonumber(".5"), tonumber("5."), tonumber("1.e2"), tonumber("+5"), tonumber("- 5"), tonumber("+-1"), tonumber("-0x10"), tonumber("00012")`, "number:0.5|number:5|number:100|number:5|nil:nil|nil:nil|number:-16|number:12"},                                              // decimal forms and signs
		{`tonumber("1e400"), tonumber("-1e400"), tonumber("1e-400"), tonumber("0x1p99999")`, "number:inf|number:-inf|number:0|number:inf"},                                                                                                                                        // overflow and underflow
		{`tonumber("0x7fffffffffffffff"), tonumber("9007199254740993")`, "number:9.2233720368548e+18|number:9.007199254741e+15"},                                                                                                                                                  // rounded to a double
		{`(function() local s = "" for i, v in ipairs({"a", "b", nil, "d"}) do s = s .. i .. v end return s, select("#", ipairs({})) end)()`, "1a2b|number:3"},                                                                                                                    // ipairs stops at the first nil
		{`tonumber("0b101"), tonumber("1_000"), tonumber("1ULL"), tonumber("1\0"), tonumber("00x1")`, "number:5|nil:nil|nil:nil|nil:nil|nil:nil"},                                                                                                                                 // binary prefix; rejected forms
		{`tonumber("ff", 16), tonumber("FF", 16), tonumber("0x10", 16), tonumber("+7", 8), tonumber("-7", 8), tonumber("8", 8)`, "number:255|number:255|number:16|number:7|number:-7|nil:nil"},                                                                                    // explicit base
		{`tonumber("7fffffffffffffffff", 16), tonumber(" 1 ", 2), tonumber("", 10), tonumber("z", 36), tonumber("Z", 36), tonumber("-", 10)`, "number:1.844674407371e+19|number:1|nil:nil|number:35|number:35|nil:nil"},                                                           // base edge cases
		{`tonumber("1.0", 10), tonumber("1e1", 10), tonumber("0x10", 10), tonumber("inf", 10), tonumber("1.5", 16)`, "number:1|number:10|number:16|number:inf|nil:nil"},                                                                                                           // base 10 reads like no base
		{`tonumber(12, 10), tonumber(12, 16), tonumber(true), tonumber({}), tonumber("10", 10.7), tonumber("z", 36.9), tonumber("10", "16")`, "number:12|number:18|nil:nil|nil:nil|number:10|number:35|number:16"},                                                                // numbers, other types, fractional base
		{`tonumber("10", 1)`, "error: bad argument #2 to 'tonumber' (base out of range)"},                                                                                                                                                                                         // base too small
		{`tonumber("10", 37)`, "error: bad argument #2 to 'tonumber' (base out of range)"},                                                                                                                                                                                        // base too large
		{`tonumber("1", 1.9)`, "error: bad argument #2 to 'tonumber' (base out of range)"},                                                                                                                                                                                        // base truncates to 1
		{`tonumber("10", "x")`, "error: bad argument #2 to 'tonumber' (number expected, got string)"},                                                                                                                                                                             // base not a number
		{`tonumber(true, 16)`, "error: bad argument #1 to 'tonumber' (string expected, got boolean)"},                                                                                                                                                                             // a base needs a string
		{`tonumber()`, "error: bad argument #1 to 'tonumber' (value expected)"},                                                                                                                                                                                                   // no argument
		{`tonumber(nil)`, "nil:nil"}, // nil
		{`math.random(0), math.random(-3), math.random(5, 1), math.random(1.5), math.random(0.5, 0.7), math.random("5")`, "number:1|number:-2|number:3|number:2|number:0.5|number:4"},        // LuaJIT computes floor(r*(n-m+1))+m in doubles
		{`math.random(0, 2^63 - 1), math.random(2^53, 2^63)`, "number:7.3252601091044e+18|number:6.4484887852919e+18"},                                                                       // huge ranges
		{`math.random("x")`, "error: bad argument #1 to 'random' (number expected, got string)"},                                                                                             // not a number
		{`string.format("%.17g %.17g", math.random(), math.random())`, "0.79420629243124097 0.69885246563716397"},                                                                            // the unseeded sequence continues
		{`(function() math.randomseed(42) return string.format("%.17g %.17g %d", math.random(), math.random(), math.random(1, 100)) end)()`, "0.95607928791821051 0.0089557217859255189 54"}, // seeded
		{`(function() math.randomseed(0/0) return string.format("%.17g", math.random()) end)()`, "0.99401821283724456"},                                                                      // NaN seed
		{`(function() math.randomseed("7") return string.format("%.17g", math.random()) end)()`, "0.26387193276332677"},                                                                      // numeric string seed
		{`math.randomseed()`, "error: bad argument #1 to 'randomseed' (number expected, got no value)"},                                                                                      // seed required
		{`table.unpack, type(unpack), type(table.getn), math.mod, string.gfind`, "nil:nil|function|function|nil:nil|nil:nil"},                                                                // Lua 5.1 names as LuaJIT has them
		{`select('#', 1, nil, 3), select(2, "a", "b", "c")`, "number:3|b|c"},                                                                                                                 // select
		{`loadstring("return 5")(), load("return 7")(), type(load(function() return nil end))`, "number:5|number:7|function"},                                                                // load takes strings; an empty reader gives an empty chunk
		{`(select(2, load("x="))):match('^%[string "[^"]*"%]')`, "[string \"x=\"]"},                                                                                                          // a string chunk is named after its text (the rest of the message is gopher-lua's)
		{`select(2, pcall(load("error('e')")))`, "[string \"error('e')\"]:1: e"},                                                                                                             // chunk name of a string chunk
		{`select(2, pcall(loadstring("error('e') --" .. string.rep("x", 36))))`, "[string \"error('e') --xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"]:1: e"},                                       // long chunk names are shortened
		{`select(2, pcall(loadstring("error('e')\n--abc")))`, "[string \"error('e')...\"]:1: e"},                                                                                             // only the first line
		{`select(2, pcall(loadstring("error('e')", "=" .. string.rep("y", 80))))`, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy:1: e"},                                       // =name
		{`select(2, pcall(loadstring("error('e')", "@" .. string.rep("z", 80))))`, "...zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz:1: e"},                                       // @file keeps the tail
		{`(function() local i = 0 return load(function() i = i + 1 if i == 1 then return "return 3" end end)() end)()`, "number:3"},                                                          // reader function
		{`(function() local done return select(2, pcall(load(function() if not done then done = true return "error('r')" end end, "=reader"))) end)()`, "reader:1: r"},                       // reader with a chunk name
		{`(select(2, load(5))):match('^%[string "[^"]*"%]')`, "[string \"5\"]"},                                                                                                              // a number is a string chunk too
		{`load(nil)`, "error: bad argument #1 to 'load' (function expected, got nil)"},                                                                                                       // neither string nor function
		{`load({})`, "error: bad argument #1 to 'load' (function expected, got table)"},                                                                                                      // a table is no chunk
		{`type(newproxy(true)), type(getmetatable(newproxy(true))), getmetatable(newproxy(false)), getmetatable(newproxy())`, "userdata|table|nil:nil|nil:nil"},                              // newproxy
		{`(function() local p = newproxy(true) return getmetatable(newproxy(p)) == getmetatable(p) end)()`, "boolean:true"},                                                                  // sharing a proxy's metatable
		{`newproxy(1)`, "error: bad argument #1 to 'newproxy' (boolean or proxy expected)"},                                                                                                  // bad argument
		{`newproxy({})`, "error: bad argument #1 to 'newproxy' (boolean or proxy expected)"},                                                                                                 // tables are not proxies
		{`newproxy(io.stdout)`, "error: bad argument #1 to 'newproxy' (boolean or proxy expected)"},                                                                                          // a userdata whose metatable is no proxy's
		{`string.rep("ab", 3, ","), string.rep("ab", 0, ","), string.rep("ab", -1), string.rep(5, 2), string.rep("x", 2.7), string.rep("", 5, "-")`, "ab,ab,ab|||55|xx|----"},                // string.rep with separator
		{`string.rep("x", 2^40)`, ""}, // out-of-range counts become negative
		{`string.rep("x")`, "error: bad argument #2 to 'rep' (number expected, got no value)"}, // count required
		{`type(os.clock())`, "number"}, // os.clock is a number
		{`jit.version, jit.version_num, jit.os, jit.arch`, "LuaJIT 2.1.0-beta3|number:20100|Linux|x64"},                                                                                            // jit fields
		{`math.huge, -math.huge, math.huge == 1/0`, "number:inf|number:-inf|boolean:true"},                                                                                                         // math.huge is infinity (gopher-lua has the largest double)
		{`type(jit.on), type(jit.off), type(jit.flush), require("jit") == jit, require("bit") == bit, type(require("ffi").cdef)`, "function|function|function|boolean:true|boolean:true|function"}, // modules
	})
}

// TestLua51Leftovers compares the Lua 5.0/5.3 functions LuaJIT has and
// gopher-lua lacks; see the top of this file for the expected values.
func TestLua51Leftovers(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`table.foreach({10, 20}, function(k, v) if v == 20 then return "found " .. k end end)`, "found 2"},                                                       // table.foreach stops at the first non-nil result
		{`(function() local s = 0 table.foreach({a = 1, b = 2}, function(k, v) s = s + v end) return s end)()`, "number:3"},                                       // over all pairs
		{`(function() local t = {} table.foreachi({"x", "y", "z", a = 1}, function(i, v) t[#t + 1] = i .. v end) return table.concat(t, ",") end)()`, "1x,2y,3z"}, // table.foreachi visits 1..#t in order
		{`table.foreach({}, 1)`, "error: bad argument #2 to 'foreach' (function expected, got number)"},                                                           // needs a function
		{`table.concat(table.move({1, 2, 3, 4, 5}, 2, 4, 1), ",")`, "2,3,4,4,5"},                                                                                  // table.move within a table
		{`table.concat(table.move({1, 2, 3}, 1, 3, 3), ",")`, "1,2,1,2,3"},                                                                                        // overlapping forward move
		{`(function() local b = table.move({1, 2, 3}, 1, 3, 2, {"a"}) return table.concat(b, ",") end)()`, "a,1,2,3"},                                             // into another table
		{`#table.move({1, 2}, 3, 2, 1)`, "number:2"},                                                                                                              // empty range
		{`type(gcinfo())`, "number"},                           // gcinfo
		{`_GOPHER_LUA_VERSION, _printregs`, "nil:nil|nil:nil"}, // gopher-lua's own globals are gone
	})
}

// TestUint64 compares uint64_t values with LuaJIT's uint64_t cdata; U64
// and the cdata/userdata edit are as in TestBit.
func TestUint64(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`tostring(U64(0, 5)), tostring(U64(0xffffffff, 0xffffffff))`, "5ULL|18446744073709551615ULL"},                                                                                                                                                    // tostring ends in ULL
		{`U64(0xffffffff, 0xffffffff) + 1, 1 + U64(0, 5), U64(0, 5) + 1.5`, "userdata:0ULL|userdata:6ULL|userdata:6ULL"},                                                                                                                                  // addition wraps; numbers truncate
		{`U64(0, 5) + (-1), U64(0, 5) + (-1.5), U64(0, 5) + 0/0, U64(0, 5) + 2^64, U64(0, 0) + (-2^63)`, "userdata:9223372036854775813ULL|userdata:9223372036854775813ULL|userdata:9223372036854775813ULL|userdata:5ULL|userdata:9223372036854775808ULL"}, // negative numbers and NaN convert to 2^63, 2^64 to 0
		{`U64(0, 0) - 1, 10 - U64(0, 3), U64(0xffffffff, 0xffffffff) * 2`, "userdata:18446744073709551615ULL|userdata:7ULL|userdata:18446744073709551614ULL"},                                                                                             // subtraction and multiplication wrap
		{`U64(0, 7) / 2, 7 / U64(0, 2), U64(0, 7) / 0, U64(0, 7) / -3`, "userdata:3ULL|userdata:3ULL|userdata:9223372036854775808ULL|userdata:0ULL"},                                                                                                      // unsigned division; by zero gives 2^63
		{`U64(0, 7) % 4, U64(0, 7) % 0, U64(0, 7) % -3, U64(0xffffffff, 0xffffffff) % 4294967296`, "userdata:3ULL|userdata:9223372036854775808ULL|userdata:7ULL|userdata:4294967295ULL"},                                                                  // modulo
		{`tonumber(U64(0xffffffff, 0xffffffff) % 4294967296), type(tonumber(U64(0, 5)))`, "number:4294967295|number"},                                                                                                                                     // legacy sb_rnd: tonumber(x % 4294967296)
		{`tonumber(U64(0xffffffff, 0xffffffff)), tonumber(U64(0, 5))`, "number:1.844674407371e+19|number:5"},                                                                                                                                              // tonumber of large and small values
		{`-U64(0, 5), U64(0, 3) ^ 3, U64(0, 2) ^ 64, U64(0, 2) ^ -1`, "userdata:18446744073709551611ULL|userdata:27ULL|userdata:0ULL|userdata:0ULL"},                                                                                                      // negation and integer powers wrap
		{`U64(0, 5) == U64(0, 5), U64(0, 5) == U64(0, 6), U64(0, 5) < U64(0, 6), U64(0, 6) <= U64(0, 5), U64(0xffffffff, 0xffffffff) > U64(0, 1)`, "boolean:true|boolean:false|boolean:true|boolean:false|boolean:true"},                                  // comparisons of two uint64_t values
		{`U64(0, 5) + "1"`, "error: attempt to perform arithmetic on 'uint64_t' and 'string'"},                                                                                                                                                            // arithmetic with a string
		{`U64(0, 5) + true`, "error: attempt to perform arithmetic on 'uint64_t' and 'boolean'"},                                                                                                                                                          // arithmetic with a boolean
		{`U64(0, 5) .. "x"`, "error: attempt to concatenate 'uint64_t' and 'string'"},                                                                                                                                                                     // concatenation
		{`#U64(0, 5)`, "error: attempt to get length of 'uint64_t'"},                                                                                                                                                                                      // length
		{`string.format("%d|%u|%x|%s", U64(0xffffffff, 0xffffffff), U64(0xffffffff, 0xffffffff), U64(0xffffffff, 0xffffffff), U64(0, 5))`, "-1|18446744073709551615|ffffffffffffffff|5ULL"},                                                               // string.format of uint64_t values
		{`string.format("%5d|%-5u|%#x|%o", U64(0, 1), U64(0, 2), U64(0, 255), U64(0, 8))`, "    1|2    |0xff|10"},                                                                                                                                         // with flags
		{`string.format("%f", U64(0, 5))`, "error: bad argument #2 to 'format' (number expected, got userdata)"},                                                                                                                                          // no floating-point conversion of a uint64_t
		{`string.format("%c", U64(0, 65))`, "error: bad argument #2 to 'format' (number expected, got userdata)"},                                                                                                                                         // nor %c
	})
}

// TestOutput checks print, io.write and io.stdout:write against LuaJIT's
// output (each code run as luajit -e CODE) and that they all reach
// CompatEnv.Out.
func TestOutput(t *testing.T) {
	tests := []compatRow{
		{`print(1, "a", nil, true, 1e15, 0/0, 1/3, setmetatable({}, {__tostring = function() return "X" end}))`, "1\ta\tnil\ttrue\t1e+15\tnan\t0.33333333333333\tX\n"}, // print formats numbers as LuaJIT and calls __tostring
		{`print()`, "\n"}, // an empty line
		{`print(setmetatable({}, {__tostring = function() return 5 end}))`, "5\n"},                                                                                               // a number from __tostring
		{`print((select(2, pcall(print, setmetatable({}, {__tostring = function() return {} end}))):gsub("^[^:]*:%d+: ", "")))`, "'tostring' must return a string to 'print'\n"}, // anything else is an error
		{`tostring = function(v) return "<" .. type(v) .. ">" end print(1, "a", nil, true)`, "<number>\t<string>\t<nil>\t<boolean>\n"},                                           // a replaced tostring applies to every argument
		{`io.write(1.5, " ", 1e15, " ", 0/0, " ", "x", "\n")`, "1.5 1e+15 nan x\n"},                                                                                              // io.write formats numbers as LuaJIT
		{`print(io.write(""))`, "true\n"},         // io.write returns true in LuaJIT 2.1.0-beta3
		{`print(select("#", io.write()))`, "1\n"}, // even with no arguments
		{`print((select(2, pcall(function() local r = io.write("a", {}) return r end)):gsub("^[^:]*:%d+: ", "")))`, "abad argument #2 to 'write' (string expected, got table)\n"}, // arguments before a bad one are written
		{`io.stdout:write(1e15, "|", 2, "\n")`, "1e+15|2\n"}, // io.stdout:write goes to the same output
		{`print((select(2, pcall(function() local r = io.stdout:write({}) return r end)):gsub("^[^:]*:%d+: ", "")))`, "bad argument #1 to 'write' (string expected, got table)\n"}, // method arguments do not count self
		{`print(io.stdout:write(""), io.flush(), io.stdout:flush())`, "true\ttrue\ttrue\n"},                                                                                        // flushes succeed
	}
	for _, tt := range tests {
		if got := compatRun(t, tt.expr); got != tt.want {
			t.Errorf("%s\n got: %q\nwant: %q", tt.expr, got, tt.want)
		}
	}
}

// TestOutputFlushAndRedirect checks that io.flush and io.stdout:flush
// flush a buffering CompatEnv.Out, and that io.write follows io.output to
// a file, with LuaJIT's number formatting.
func TestOutputFlushAndRedirect(t *testing.T) {
	var sink bytes.Buffer
	buffered := bufio.NewWriter(&sink)
	L := lua.NewState()
	defer L.Close()
	openLuaJITCompat(L, CompatEnv{Out: buffered})
	steps := []struct {
		code string
		want string // sink after the step
	}{
		{`io.write("a")`, ""},              // buffered, not flushed
		{`io.flush()`, "a"},                // io.flush flushes Out
		{`io.stdout:write("b")`, "a"},      // buffered again
		{`io.stdout:flush()`, "ab"},        // file:flush flushes Out
		{`print("c") io.flush()`, "abc\n"}, // print goes through the same writer
	}
	for _, s := range steps {
		if err := L.DoString(s.code); err != nil {
			t.Fatalf("%s: %v", s.code, err)
		}
		if got := sink.String(); got != s.want {
			t.Errorf("after %s: output %q, want %q", s.code, got, s.want)
		}
	}

	path := filepath.Join(t.TempDir(), "out.txt")
	code := `local f = io.output(` + strconv.Quote(path) + `)
		assert(io.write(1e15, " ", 0.1, "\n"))
		assert(f:write(2^63, "\n"))
		f:close()`
	if err := L.DoString(code); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1e+15 0.1\n9.2233720368548e+18\n"; string(data) != want {
		t.Errorf("file holds %q, want %q", data, want)
	}
	if got := sink.String(); got != "abc\n" {
		t.Errorf("file output leaked to Out: %q", got)
	}
}

// compatScript uses every stand-in the way scripts do. It runs unchanged
// under luajit (U64 is defined there with the FFI), and
// compatScriptOutput is what `luajit script.lua` printed.
const compatScript = `U64 = U64 or function(hi, lo) return require("ffi").new("uint64_t", hi) * 4294967296 + lo end
local ffi = require("ffi")
ffi.cdef[[
int usleep(unsigned int);
int printf(const char *fmt, ...);
/* an enum of the script's own */
typedef enum { SB_X_A, SB_X_B = 10, SB_X_C } sb_x;
]]
local bit = require("bit")
print(jit.version, type(jit.status), type(ffi.C))
print(string.format("SELECT c FROM sbtest%u WHERE id=%d", 1, 42))
print(tostring(1e15), 1/3, 2^63, math.huge, -math.huge, 0/0)
print(tonumber("0x10") + tonumber("1e3"), tonumber("z", 36), tonumber(" 12 "))
print(bit.bor(5, 3), bit.band(0xff, 0x0f), bit.tohex(bit.lshift(1, 31)), bit.bxor(bit.rol(0x12345678, 8), 1))
-- sysbench-tpcc's NURand
local function NURand(A, x, y)
  return ((bit.bor(math.random(0, A), math.random(x, y))) + 42) % (y - x + 1) + x
end
print(NURand(1023, 1, 3000), NURand(8191, 1, 100000))
math.randomseed(12345)
local t = {}
for i = 1, 5 do t[#t + 1] = math.random(1, 100) end
print(table.concat(t, ","))
print(math.random(0, 2^63 - 1) >= 0, math.random() < 1)
local u = U64(0xffffffff, 0xfffffffe)
print(u, u + 1, tonumber(u % 4294967296), string.format("%x %d %s", u, u, u))
ffi.C.usleep(1)
local n = ffi.C.printf("%s %llu\n", "printf", u)
io.write("printf wrote ", n, " bytes\n")
print(ffi.C.SB_X_A, ffi.C.SB_X_B, ffi.C.SB_X_C)
print(select('#', unpack({1, 2, 3})), table.unpack, loadstring("return 1 + 1")(), load("return ...")(5))
print(type(newproxy(true)), getmetatable(newproxy(true)) ~= nil, type(os.clock()))
print(string.format("%q", "a\nb\0c"), string.format("%5.1f|%-5d|%+.2e", "3.14159", 42, 12345))
io.write(1e100, " ", 12, " ", 0.1, "\n")
print(string.rep("?", 3, ","))
`

const compatScriptOutput = "LuaJIT 2.1.0-beta3\tfunction\tuserdata\n" +
	"SELECT c FROM sbtest1 WHERE id=42\n" +
	"1e+15\t0.33333333333333\t9.2233720368548e+18\tinf\t-inf\tnan\n" +
	"1016\t35\t12\n" +
	"7\t15\t80000000\t878082067\n" +
	"2920\t79654\n" +
	"36,21,80,42,6\n" +
	"true\ttrue\n" +
	"18446744073709551614ULL\t18446744073709551615ULL\t4294967294\tfffffffffffffffe -2 18446744073709551614ULL\n" +
	"printf 18446744073709551614\n" +
	"printf wrote 28 bytes\n" +
	"0\t10\t11\n" +
	"3\tnil\t2\t5\n" +
	"userdata\ttrue\tnumber\n" +
	"\"a\\\n" +
	"b\\0c\"\t  3.1|42   |+1.23e+04\n" +
	"1e+100 12 0.1\n" +
	"?,?,?\n"

// TestScriptUsingAllStandIns runs compatScript and compares its output
// with LuaJIT's.
func TestScriptUsingAllStandIns(t *testing.T) {
	got := compatRun(t, compatScript)
	if got != compatScriptOutput {
		t.Errorf("output differs from LuaJIT's\n got: %q\nwant: %q", got, compatScriptOutput)
	}
}

// TestPrintNested checks print and io.write called from a __tostring that
// print is running. sbgo writes each print as one line, where LuaJIT
// writes argument by argument ("ainner\n\tX\n"); the inner output must
// still come out whole and the outer line intact.
func TestPrintNested(t *testing.T) {
	got := compatRun(t, `
		local v = setmetatable({}, {__tostring = function() print("inner", 1) io.write("w\n") return "X" end})
		print("a", v)
		print("b")`)
	if want := "inner\t1\nw\na\tX\nb\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}
