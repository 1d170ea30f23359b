package luabind

import (
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestConcat compares `..` and table.concat with LuaJIT's (see the top of
// luajit_test.go for how the wants were produced). Operands are mostly
// arguments, so that the compiler cannot fold them.
func TestConcat(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`"" .. 1/3, "" .. 1e15, 2^63 .. "", "x" .. 1/0, -1/0 .. "", (0/0) .. ""`, "0.33333333333333|1e+15|9.2233720368548e+18|xinf|-inf|nan"},        // %.14g, inf and nan
		{`(function(z) return z .. "", 0.10233820487248484 .. "" end)(-(0/0))`, "nan|0.10233820487248"},                                               // -nan prints nan; 14 digits
		{`(function(a, b) return a .. b, a .. "|" .. b, 1 .. 2 end)(0.1, 123456789012345)`, "0.11.2345678901235e+14|0.1|1.2345678901235e+14|12"},      // chains of three and more
		{`(function(a) return "id=" .. a .. ";" end)(42)`, "id=42;"},                                                                                  // the usual SQL building
		{`(function(a) return a .. 5e-324 end)(2^53)`, "9.007199254741e+154.9406564584125e-324"},                                                      // extremes
		{`(function(a) return a .. 1e100, a .. -1.5e-7 end)("")`, "1e+100|-1.5e-07"},                                                                  // exponents
		{`(function(a) return setmetatable({}, {__concat = function(x, y) return "cat:" .. tostring(y) end}) .. a end)(1/3)`, "cat:0.33333333333333"}, // __concat gets the number
		{`table.concat({1/3, 1/0, 2^63, "x"}, 1.5)`, "0.333333333333331.5inf1.59.2233720368548e+181.5x"},                                              // table.concat: numbers as tostring, number separator
		{`table.concat({1, 2, 3}, ", ", 2)`, "2, 3"},                                                                                                  // from i
		{`table.concat({1, 2, 3}, "-", "2", 3)`, "2-3"},                                                                                               // numeric string bounds
		{`table.concat({1, {}, 3})`, "error: invalid value (table) at index 2 in table for 'concat'"},                                                 // not a string
		{`table.concat({1, 2}, ", ", 1, 4)`, "error: invalid value (nil) at index 3 in table for 'concat'"},                                           // j beyond #t is not clamped
		{`table.concat({}, "x", 3, 1), table.concat({})`, "|"},                                                                                        // empty ranges
		{`string.rep(1/3, 2, 0.5), string.format("%s|%s", 1/3, -1/0)`, "0.333333333333330.50.33333333333333|0.33333333333333|-inf"},                   // string.rep and %s
		{`error(1/3)`, "error: 0.33333333333333"},                                                                                                     // an error value that is a number
	})
}

// TestConcatOtherOperands checks that operands other than strings and
// numbers still reach gopher-lua's own handler, worded as gopher-lua words
// its errors (LuaJIT: "attempt to concatenate a table value").
func TestConcatOtherOperands(t *testing.T) {
	L, out, _ := compatNewState(t)
	for _, c := range []struct{ expr, want string }{
		{`(function(a) return a .. {} end)(1)`, "error: cannot perform concat operation between number and table"},
		{`(function(a) return nil .. a end)("x")`, "error: cannot perform concat operation between nil and string"},
	} {
		if got := compatEval(t, L, out, c.expr); got != c.want {
			t.Errorf("%s\n got: %q\nwant: %q", c.expr, got, c.want)
		}
	}
}

// TestConcatRegisters runs `..` with its result in a high register, in a
// loop that grows a string, and in a coroutine.
func TestConcatRegisters(t *testing.T) {
	var locals strings.Builder
	for i := 0; i < 190; i++ {
		locals.WriteString("local v" + strconv.Itoa(i) + " = " + strconv.Itoa(i) + "\n")
	}
	got := compatRun(t, `
local function many(n)
`+locals.String()+`
  local r = "n=" .. n .. "/" .. v189
  return r
end
local s = ""
for i = 1, 5 do s = s .. i / 4 .. "," end
local co = coroutine.wrap(function(a) coroutine.yield(a .. "y"); return 1/a .. "z" end)
io.write(many(1/3), " ", s, " ", co(3), " ", co())
`)
	if want := "n=0.33333333333333/189 0.25,0.5,0.75,1,1.25, 3y 0.33333333333333z"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkVMHandlers compares each replaced handler with gopher-lua's own
// on the operations scripts do per event: joining strings (the replacement
// must be no slower), joining a string and an integer, and calling a Lua
// function. It swaps the dispatch table entry, so it must not run beside
// other Lua code.
func BenchmarkVMHandlers(b *testing.B) {
	cases := []struct {
		name, body string
		op         int
		patched    vmInstruction
	}{
		{"concat_strings", `local s = "UPDATE sbtest" .. a .. " SET c='" .. a .. "' WHERE id=" .. a`, lua.OP_CONCAT, luajitConcat},
		{"concat_integer", `local s = "SELECT c FROM sbtest1 WHERE id=" .. n`, lua.OP_CONCAT, luajitConcat},
		{"call", `local s = f(n)`, lua.OP_CALL, luajitCall},
	}
	for _, c := range cases {
		L := lua.NewState()
		if err := L.DoString(`local function f(x) return x end
			function loop(count) local a, n = "abcdefgh", 123456
			  for i = 1, count do ` + c.body + ` end end`); err != nil {
			b.Fatal(err)
		}
		loop := L.GetGlobal("loop")
		stock := map[int]vmInstruction{lua.OP_CONCAT: stockConcat, lua.OP_CALL: stockCall}[c.op]
		for _, h := range []struct {
			name string
			fn   vmInstruction
		}{{"stock", stock}, {"luajit", c.patched}} {
			b.Run(c.name+"/"+h.name, func(b *testing.B) {
				saved := vmJumpTable[c.op]
				vmJumpTable[c.op] = h.fn
				defer func() { vmJumpTable[c.op] = saved }()
				b.ReportAllocs()
				if err := L.CallByParam(lua.P{Fn: loop, Protect: true}, lua.LNumber(b.N)); err != nil {
					b.Fatal(err)
				}
			})
		}
		L.Close()
	}
}
