package luabind

import (
	"math"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// LuaJIT computes a % b on numbers as a - floor(a/b)*b, the definition in
// the Lua 5.1 manual. gopher-lua calls math.Mod and corrects the sign
// instead, which differs at the edges (1e17 % 3 is 1 where LuaJIT gives 0,
// 1 % math.huge is 1 where LuaJIT gives nan, -0 % 5 is -0) and is slow:
// math.Mod loops once per bit between the two exponents, a fifth of the
// time of an event that picks a table with `id % n` ten times
// (docs/performance.md, "The Lua engine").
//
// vmpatch.go installs luajitModulo in place of gopher-lua's OP_MOD
// handler, under its version and layout checks.
//
// What stays gopher-lua's: `%` with a string or table operand (coercion
// and __mod go to the stock handler), math.fmod, and `%` between two
// literals, which the compiler folds with math.Mod.

// stockArith is the handler luajitModulo replaced; it still serves
// operands that are not both numbers.
var stockArith vmInstruction

// smallNumbers are boxed once, so that the usual results of `%` (a table
// or bucket index) cost no allocation; they are never written to.
var smallNumbers = func() (v [256]lua.LValue) {
	for i := range v {
		v[i] = lua.LNumber(i)
	}
	return v
}()

// installModulo replaces the OP_MOD handler when the table holds the
// shared arithmetic handler there, and reports whether it did.
func installModulo() bool {
	// OP_ADD to OP_POW share one handler (opArith); OP_MOVE has its own.
	arith := handlerCode(vmJumpTable[lua.OP_ADD])
	if !distinctHandlers(lua.OP_MOVE, lua.OP_ADD) {
		return false
	}
	for op := lua.OP_ADD; op <= lua.OP_POW; op++ {
		if handlerCode(vmJumpTable[op]) != arith {
			return false
		}
	}
	stockArith = vmJumpTable[lua.OP_MOD]
	vmJumpTable[lua.OP_MOD] = luajitModulo
	return true
}

// luajitModulo executes OP_MOD (R(A) := RK(B) % RK(C)) as LuaJIT does for
// numbers; anything else goes to the stock handler.
func luajitModulo(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	a, okA := vmOperand(reg, cf, int(inst&0x1ff)).(lua.LNumber)
	b, okB := vmOperand(reg, cf, int(inst>>9)&0x1ff).(lua.LNumber)
	ra := cf.LocalBase + int(inst>>18)&0xff
	// A register beyond the registry is not reached in practice (entering
	// a function grows the registry to all its registers), and only
	// gopher-lua could grow it.
	if !okA || !okB || ra >= len(reg.array) {
		return stockArith(L, inst, baseframe)
	}
	setRegister(reg, ra, boxModulo(luajitMod(float64(a), float64(b))))
	return 0
}

// luajitMod is LuaJIT's a % b. The float64 conversion keeps the compiler
// from fusing the multiply and the subtraction.
func luajitMod(a, b float64) float64 {
	return a - float64(math.Floor(a/b)*b)
}

// boxModulo returns v as an LValue, from smallNumbers when it is one.
func boxModulo(v float64) lua.LValue {
	if v >= 0 && v < float64(len(smallNumbers)) {
		if i := int(v); float64(i) == v && !(v == 0 && math.Signbit(v)) {
			return smallNumbers[i]
		}
	}
	return lua.LNumber(v)
}
