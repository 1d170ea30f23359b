package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Scripts build SQL and log lines with `..`, and LuaJIT prints a number
// there as tostring does ("%.14g", inf, -inf, nan). gopher-lua's OP_CONCAT
// converts numbers with Go's fmt instead: "" .. 1/3 gives 16 digits, 1/0
// gives +Inf, 1e15 gives 1000000000000000. vmpatch.go installs
// luajitConcat in its place, under its version and layout checks; it also
// builds the result with one allocation where the stock handler makes
// three (box.go's stringSpace).
//
// What stays gopher-lua's: a concatenation with an operand that is
// neither a string nor a number (a __concat metamethod or an error) goes
// to the stock handler as a whole, so in `t .. "a" .. 1/3` the string and
// number part is joined with gopher-lua's rules before __concat sees it.

// stockConcat is the handler luajitConcat replaced.
var stockConcat vmInstruction

// maxNumberText bounds the length of a number printed as LuaJIT does:
// "-1.2345678901234e-308" is 21 bytes.
const maxNumberText = 24

// installConcat replaces the OP_CONCAT handler when the table holds a
// handler of its own there, and reports whether it did.
func installConcat() bool {
	if !distinctHandlers(lua.OP_MOVE, lua.OP_ADD, lua.OP_LEN, lua.OP_CONCAT, lua.OP_JMP) {
		return false
	}
	stockConcat = vmJumpTable[lua.OP_CONCAT]
	vmJumpTable[lua.OP_CONCAT] = luajitConcat
	return true
}

// luajitConcat executes OP_CONCAT (R(A) := R(B).. ... ..R(C)) when every
// operand is a string or a number, building the result in the one
// allocation that holds it; anything else goes to the stock handler.
func luajitConcat(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	first, last := cf.LocalBase+instB(inst), cf.LocalBase+instC(inst)
	ra := cf.LocalBase + instA(inst)
	if last >= len(reg.array) || ra >= len(reg.array) || first > last {
		return stockConcat(L, inst, baseframe)
	}
	operands := reg.array[first : last+1]
	size := 0
	for _, v := range operands {
		switch v := v.(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += maxNumberText
		default:
			return stockConcat(L, inst, baseframe)
		}
	}
	space := newStringSpace(size)
	b := space.text()
	for _, v := range operands {
		if s, ok := v.(lua.LString); ok {
			b = append(b, s...)
		} else {
			b = appendLuaNumber(b, float64(v.(lua.LNumber)))
		}
	}
	setRegister(reg, ra, space.value(b))
	return 0
}

// ljTableConcat is table.concat(t [, sep [, i [, j]]]) as LuaJIT runs it:
// numbers print as tostring prints them, and every index from i to j
// must hold a string or a number (gopher-lua clamps i and j to #t).
func ljTableConcat(L *lua.LState) int {
	t := ljCheckTable(L, 1, "concat")
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = formatString(L, 2, "concat")
	}
	i, j := 1, t.Len()
	if L.Get(3) != lua.LNil {
		i = ljCheckInt(L, 3, "concat")
	}
	if L.Get(4) != lua.LNil {
		j = ljCheckInt(L, 4, "concat")
	}
	size := 0
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += maxNumberText
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		if k != j {
			size += len(sep)
		}
	}
	space := newStringSpace(size)
	b := space.text()
	for k := i; k <= j; k++ {
		if s, ok := t.RawGetInt(k).(lua.LString); ok {
			b = append(b, s...)
		} else {
			b = appendLuaNumber(b, float64(t.RawGetInt(k).(lua.LNumber)))
		}
		if k != j {
			b = append(b, sep...)
		}
	}
	L.Push(space.value(b))
	return 1
}
