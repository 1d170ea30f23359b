package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// uint64TypeName names the metatable of the stand-in for LuaJIT's uint64_t
// cdata, which sysbench.rand.uniform_uint64 returns. A Lua number (float64)
// cannot hold every 64-bit value, so the value lives in a userdata.
//
// The metatable gives it LuaJIT's behaviour: tostring "123ULL",
// arithmetic with numbers or other uint64_t values wrapping modulo 2^64
// (the legacy sb_rnd() computes tonumber(x % 4294967296)), and ==, <, <=
// between two uint64_t values. Numbers convert as LuaJIT's x86-64 build
// converts them (see arithUint64). Division and modulo by zero give 2^63,
// as LuaJIT does.
const uint64TypeName = "sbgo.uint64_t"

// pushUint64 pushes v as a uint64_t userdata.
func pushUint64(L *lua.LState, v uint64) {
	ud := L.NewUserData()
	ud.Value = v
	ud.Metatable = uint64Metatable(L)
	L.Push(ud)
}

// toUint64 reports the value of a uint64_t userdata.
func toUint64(v lua.LValue) (uint64, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return 0, false
	}
	u, ok := ud.Value.(uint64)
	return u, ok
}

// appendUint64Text appends tostring of a uint64_t value: digits and ULL.
func appendUint64Text(b []byte, u uint64) []byte {
	return append(strconv.AppendUint(b, u, 10), "ULL"...)
}

// uint64Metatable returns the state's uint64_t metatable, creating it on
// first use.
func uint64Metatable(L *lua.LState) lua.LValue {
	if mt := L.GetTypeMetatable(uint64TypeName); mt != lua.LNil {
		return mt
	}
	mt := newMetatable(L, uint64TypeName)
	set := func(name string, fn lua.LGFunction) { mt.RawSetString(name, L.NewFunction(fn)) }
	set("__tostring", func(L *lua.LState) int {
		u, _ := toUint64(L.Get(1))
		var buf [24]byte
		L.Push(lua.LString(appendUint64Text(buf[:0], u)))
		return 1
	})
	set("__add", uint64Arith(func(a, b uint64) uint64 { return a + b }))
	set("__sub", uint64Arith(func(a, b uint64) uint64 { return a - b }))
	set("__mul", uint64Arith(func(a, b uint64) uint64 { return a * b }))
	set("__div", uint64Arith(func(a, b uint64) uint64 {
		if b == 0 {
			return 1 << 63
		}
		return a / b
	}))
	set("__mod", uint64Arith(func(a, b uint64) uint64 {
		if b == 0 {
			return 1 << 63
		}
		return a % b
	}))
	set("__pow", uint64Arith(uint64Pow))
	set("__unm", func(L *lua.LState) int {
		u, _ := toUint64(L.Get(1))
		pushUint64(L, -u)
		return 1
	})
	set("__eq", uint64Compare(func(a, b uint64) bool { return a == b }))
	set("__lt", uint64Compare(func(a, b uint64) bool { return a < b }))
	set("__le", uint64Compare(func(a, b uint64) bool { return a <= b }))
	set("__concat", func(L *lua.LState) int {
		L.RaiseError("attempt to concatenate '%s' and '%s'", uint64OperandName(L.Get(1)), uint64OperandName(L.Get(2)))
		return 0
	})
	set("__len", func(L *lua.LState) int {
		L.RaiseError("attempt to get length of 'uint64_t'")
		return 0
	})
	return mt
}

// uint64Operand converts an arithmetic operand: a uint64_t value, or a
// number converted as LuaJIT's cdata arithmetic converts it.
func uint64Operand(v lua.LValue) (uint64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return arithUint64(float64(x)), true
	case *lua.LUserData:
		return toUint64(x)
	}
	return 0, false
}

// uint64OperandName names an operand in error messages as LuaJIT does.
func uint64OperandName(v lua.LValue) string {
	if _, ok := toUint64(v); ok {
		return "uint64_t"
	}
	return v.Type().String()
}

// uint64Arith makes a binary metamethod whose result is a uint64_t value.
func uint64Arith(op func(a, b uint64) uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		a, okA := uint64Operand(L.Get(1))
		b, okB := uint64Operand(L.Get(2))
		if !okA || !okB {
			L.RaiseError("attempt to perform arithmetic on '%s' and '%s'", uint64OperandName(L.Get(1)), uint64OperandName(L.Get(2)))
		}
		pushUint64(L, op(a, b))
		return 1
	}
}

// uint64Compare makes __eq, __lt or __le; gopher-lua calls them only when
// both operands are uint64_t values.
func uint64Compare(op func(a, b uint64) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		a, _ := toUint64(L.Get(1))
		b, _ := toUint64(L.Get(2))
		L.Push(lua.LBool(op(a, b)))
		return 1
	}
}

// uint64Pow is integer exponentiation modulo 2^64.
func uint64Pow(base, exp uint64) uint64 {
	result := uint64(1)
	for exp != 0 {
		if exp&1 != 0 {
			result *= base
		}
		base *= base
		exp >>= 1
	}
	return result
}
