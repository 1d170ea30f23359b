package luabind

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Reading and writing a table's field by name (t.x, t.x = v) is what a
// script does most after calling functions: rows of values kept as
// records, option and module tables. gopher-lua's OP_GETTABLEKS and
// OP_SETTABLEKS go through its general field access, which loops over
// metatables and looks __newindex up before every new key. vmpatch.go
// installs the two handlers below in their place, under its version and
// layout checks: a table that has the field (or, to write, no metatable at
// all) is read or written directly; anything else goes to the stock
// handler, whose metatable rules then apply unchanged.
//
// A new key is added through a mirror of LTable (vmTable), where gopher-lua's
// RawSetString boxes the key again for the table's list of keys (which
// next() walks) and grows that list from nothing: the constant's boxed
// string goes into the list, made with room for four keys. A table
// constructor such as {item = i, supply = w, qty = n} then takes six
// allocations instead of fourteen.

// vmTable mirrors gopher-lua's LTable.
type vmTable struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// tableMirror is set when vmTable has LTable's layout.
var tableMirror bool

// tableKeysStart is the room for keys a table's first string key makes.
const tableKeysStart = 4

// setStringField is tb.RawSetString(key, v) for a value that is not nil,
// with boxed, key as an LValue, kept in the table's list of keys.
func setStringField(tb *lua.LTable, key string, boxed, v lua.LValue) {
	t := (*vmTable)(unsafe.Pointer(tb))
	if t.strdict == nil {
		t.strdict = make(map[string]lua.LValue, tableKeysStart)
	}
	if t.keys == nil {
		t.keys = make([]lua.LValue, 0, tableKeysStart)
		t.k2i = make(map[lua.LValue]int, tableKeysStart)
	}
	t.strdict[key] = v
	if _, ok := t.k2i[boxed]; !ok {
		t.k2i[boxed] = len(t.keys)
		t.keys = append(t.keys, boxed)
	}
}

// stockGetField and stockSetField are the handlers replaced.
var stockGetField, stockSetField vmInstruction

// installFields replaces OP_GETTABLEKS and OP_SETTABLEKS when the table
// holds a handler of their own at each, and reports whether it did.
func installFields() bool {
	if !distinctHandlers(lua.OP_MOVE, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SETTABLE, lua.OP_SETTABLEKS) {
		return false
	}
	tableMirror = sameLayout(reflect.TypeOf(vmTable{}), reflect.TypeOf(lua.LTable{}))
	stockGetField, stockSetField = vmJumpTable[lua.OP_GETTABLEKS], vmJumpTable[lua.OP_SETTABLEKS]
	vmJumpTable[lua.OP_GETTABLEKS] = luajitGetField
	vmJumpTable[lua.OP_SETTABLEKS] = luajitSetField
	return true
}

// luajitGetField executes OP_GETTABLEKS (R(A) := R(B)[RK(C)], RK(C) a
// string constant) when R(B) is a table holding the key.
func luajitGetField(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	ra, rb := cf.LocalBase+instA(inst), cf.LocalBase+instB(inst)
	if ra < len(reg.array) && rb < len(reg.array) {
		if tb, ok := reg.array[rb].(*lua.LTable); ok {
			if key, ok := vmOperand(reg, cf, instC(inst)).(lua.LString); ok {
				if v := tb.RawGetString(string(key)); v != lua.LNil {
					setRegister(reg, ra, v)
					return 0
				}
			}
		}
	}
	return stockGetField(L, inst, baseframe)
}

// luajitSetField executes OP_SETTABLEKS (R(A)[RK(B)] := RK(C), RK(B) a
// string constant) when R(A) is a table that holds the key or has no
// metatable: no __newindex can apply.
func luajitSetField(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	if ra := cf.LocalBase + instA(inst); ra < len(reg.array) {
		if tb, ok := reg.array[ra].(*lua.LTable); ok {
			boxed := vmOperand(reg, cf, instB(inst))
			if key, ok := boxed.(lua.LString); ok {
				if tb.Metatable == lua.LNil || tb.RawGetString(string(key)) != lua.LNil {
					if v := vmOperand(reg, cf, instC(inst)); v != lua.LNil && tableMirror {
						setStringField(tb, string(key), boxed, v)
					} else {
						tb.RawSetString(string(key), v)
					}
					return 0
				}
			}
		}
	}
	return stockSetField(L, inst, baseframe)
}
