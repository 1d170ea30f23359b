package luabind

import (
	"strconv"
	"strings"
	"testing"
)

// TestModulo compares % with LuaJIT's (see the top of luajit_test.go for
// how the wants were produced). The operands are arguments, so that the
// compiler cannot fold them.
func TestModulo(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`(function(a, b) return a % b, a % 3, 100 % b end)(100, 4)`, "number:0|number:1|number:0"},                                      // registers and constants on either side
		{`(function(a, b) return a % b, -a % b, a % -b, -a % -b end)(7, 3)`, "number:1|number:2|number:-2|number:-1"},                    // signs
		{`(function(a, b) return a % b, -a % b end)(5.5, 2)`, "number:1.5|number:0.5"},                                                   // fractions
		{`(function(a, b) return a % b, a % -b, -a % b end)(1e17, 3)`, "number:0|number:0|number:0"},                                     // LuaJIT's rounding, not an exact remainder
		{`(function(a, h) return a % h, -a % h, a % -h, h % 2 end)(1, math.huge)`, "number:nan|number:nan|number:nan|number:nan"},        // infinities give nan
		{`(function(a, z) return a % z, (0/0) % a, z % a, -z % a end)(1, 0)`, "number:nan|number:nan|number:0|number:0"},                 // zero divisor
		{`(function(a, b) return string.format("%.17g|%.17g", a % b, b % a) end)(0.3, 0.1)`, "0.099999999999999978|0.10000000000000001"}, // decimal fractions
		{`(function(a, b) return string.format("%.17g|%.17g", a % b, -b % a) end)(1e308, 1e-300)`, "-inf|-1e-300"},                       // overflow of a/b
		{`(function(a, b) return a % b end)(2^53 + 2, 10)`, "number:4"},                                                                  // above 2^53
		{`(function(a, b) return a % b, b % a end)("10", 3)`, "number:1|number:3"},                                                       // strings coerce (stock handler)
		{`(function(a) return 10 % a end)("4")`, "number:2"},
		{`(function(a) return setmetatable({}, {__mod = function(x, y) return "mod:" .. tostring(y) end}) % a end)(2)`, "mod:2"}, // __mod (stock handler)
	})
}

// TestModuloRegisters runs % where its result lands in a high register of
// a function with many locals, in a loop, and in a coroutine (a state of
// its own): each result must reach the right register.
func TestModuloRegisters(t *testing.T) {
	var locals strings.Builder
	for i := 0; i < 190; i++ {
		locals.WriteString("local v" + strconv.Itoa(i) + " = " + strconv.Itoa(i) + "\n")
	}
	got := compatRun(t, `
local function many(n)
`+locals.String()+`
  local r = n % 7
  return r + v189
end
local sum = 0
for i = -20, 20 do sum = sum + i % 3 + (i + 0.5) % -2 end
local co = coroutine.wrap(function(a) local x = a % 5; coroutine.yield(x); return (a + 1) % 5 end)
io.write(many(100), " ", sum, " ", co(12), " ", co())
`)
	if want := "191 0.5 2 3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestModuloOtherOperands checks that operands other than two numbers
// still reach gopher-lua's own handler: its coercion of strings, __mod,
// and its errors (worded as gopher-lua words them, not as LuaJIT does).
func TestModuloOtherOperands(t *testing.T) {
	L, out, _ := compatNewState(t)
	for _, c := range []struct{ expr, want string }{
		{`(function(a) return a % 2 end)(nil)`, "error: cannot perform mod operation between nil and number"},
		{`(function(a) return 2 % a end)({})`, "error: cannot perform mod operation between number and table"},
		{`(function(a) return a % 2 end)("x")`, "error: cannot perform mod operation between string and number"},
	} {
		if got := compatEval(t, L, out, c.expr); got != c.want {
			t.Errorf("%s\n got: %q\nwant: %q", c.expr, got, c.want)
		}
	}
}
