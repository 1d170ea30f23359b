package luabind

import (
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// LuaJIT computes a % b on numbers as a - floor(a/b)*b, the definition in
// the Lua 5.1 manual. gopher-lua calls math.Mod and corrects the sign
// instead, which differs at the edges (1e17 % 3 is 1 where LuaJIT gives 0,
// 1 % math.huge is 1 where LuaJIT gives nan, -0 % 5 is -0) and is slow:
// math.Mod loops once per bit between the two exponents, about 100 ns for
// `id % 4` with six-digit ids, a fifth of the time of an event that picks
// a table that way ten times (../shared/bench/lua/oltp_like_event.lua).
//
// gopher-lua has no hook for arithmetic, so init replaces the OP_MOD entry
// of its VM's dispatch table (the unexported jumpTable, reached with
// go:linkname) by luajitModulo. That handler reads and writes the VM's
// registers through mirrors of gopher-lua's unexported registry and
// callFrame structs; init installs it only after checking with reflect
// that every mirrored field has the same name, type and offset in the
// gopher-lua that is linked in, and that the table entry it replaces is
// the shared arithmetic handler. If anything differs (a gopher-lua
// upgrade), `%` stays gopher-lua's own and TestModuloHandlerInstalled
// fails, so the upgrade is noticed instead of corrupting memory.
//
// What stays gopher-lua's: `%` with a string or table operand (coercion
// and __mod go to the stock handler), math.fmod, and `%` between two
// literals, which the compiler folds with math.Mod.

//go:linkname vmJumpTable github.com/yuin/gopher-lua.jumpTable
var vmJumpTable [lua.OP_NOP + 1]vmInstruction

// vmInstruction has the signature of gopher-lua's instFunc; the last
// argument is a *callFrame, which only the stock handlers use.
type vmInstruction func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int

// vmRegistry mirrors the start of gopher-lua's registry: the value stack.
type vmRegistry struct {
	array []lua.LValue
	top   int
}

// vmFrame mirrors the start of gopher-lua's callFrame, up to the first
// register of the running function.
type vmFrame struct {
	Idx       int
	Fn        *lua.LFunction
	_         unsafe.Pointer // Parent
	Pc        int
	Base      int
	LocalBase int
}

var (
	// vmStateReg and vmStateFrame are the offsets of LState's reg and
	// currentFrame fields.
	vmStateReg, vmStateFrame uintptr
	// stockArith is the handler luajitModulo replaced; it still serves
	// operands that are not both numbers.
	stockArith vmInstruction
	// luajitModuloInstalled tells whether init replaced the handler.
	luajitModuloInstalled bool
)

// smallNumbers are boxed once, so that the usual results of `%` (a table
// or bucket index) cost no allocation; they are never written to.
var smallNumbers = func() (v [256]lua.LValue) {
	for i := range v {
		v[i] = lua.LNumber(i)
	}
	return v
}()

func init() {
	luajitModuloInstalled = installLuaJITModulo()
}

// installLuaJITModulo replaces the OP_MOD handler when gopher-lua's
// layout is the one the mirrors describe, and reports whether it did.
func installLuaJITModulo() bool {
	state := reflect.TypeOf(lua.LState{})
	reg, ok1 := state.FieldByName("reg")
	frame, ok2 := state.FieldByName("currentFrame")
	if !ok1 || !ok2 || reg.Type.String() != "*lua.registry" || frame.Type.String() != "*lua.callFrame" ||
		!sameLayout(reflect.TypeOf(vmRegistry{}), reg.Type.Elem()) ||
		!sameLayout(reflect.TypeOf(vmFrame{}), frame.Type.Elem()) {
		return false
	}
	// OP_ADD to OP_POW share one handler (opArith); OP_MOVE has its own.
	code := func(f vmInstruction) uintptr { return *(*uintptr)(unsafe.Pointer(&f)) }
	arith := code(vmJumpTable[lua.OP_ADD])
	if arith == 0 || code(vmJumpTable[lua.OP_MOVE]) == arith {
		return false
	}
	for op := lua.OP_ADD; op <= lua.OP_POW; op++ {
		if code(vmJumpTable[op]) != arith {
			return false
		}
	}
	vmStateReg, vmStateFrame = reg.Offset, frame.Offset
	stockArith = vmJumpTable[lua.OP_MOD]
	vmJumpTable[lua.OP_MOD] = luajitModulo
	return true
}

// sameLayout reports whether every named field of mirror is a field of
// real with the same name, type and offset; blank fields only pad.
func sameLayout(mirror, real reflect.Type) bool {
	if real.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < mirror.NumField(); i++ {
		m := mirror.Field(i)
		if m.Name == "_" {
			continue
		}
		r, ok := real.FieldByName(m.Name)
		if !ok || r.Offset != m.Offset || r.Type != m.Type {
			return false
		}
	}
	return true
}

// luajitModulo executes OP_MOD (R(A) := RK(B) % RK(C)) as LuaJIT does for
// numbers; anything else goes to the stock handler.
func luajitModulo(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg := *(**vmRegistry)(unsafe.Add(unsafe.Pointer(L), vmStateReg))
	cf := *(**vmFrame)(unsafe.Add(unsafe.Pointer(L), vmStateFrame))
	a, okA := vmOperand(reg, cf, int(inst&0x1ff)).(lua.LNumber)
	b, okB := vmOperand(reg, cf, int(inst>>9)&0x1ff).(lua.LNumber)
	ra := cf.LocalBase + int(inst>>18)&0xff
	// A register beyond the registry is not reached in practice (entering
	// a function grows the registry to all its registers), and only
	// gopher-lua could grow it.
	if !okA || !okB || ra >= len(reg.array) {
		return stockArith(L, inst, baseframe)
	}
	reg.array[ra] = boxModulo(luajitMod(float64(a), float64(b)))
	if ra >= reg.top {
		reg.top = ra + 1
	}
	return 0
}

// vmOperand reads an RK operand: a constant of the running function when
// bit 8 is set, else a register.
func vmOperand(reg *vmRegistry, cf *vmFrame, rk int) lua.LValue {
	if rk&0x100 != 0 {
		return cf.Fn.Proto.Constants[rk&0xff]
	}
	return reg.array[cf.LocalBase+rk]
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
