package luabind

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Method calls on sysbench.sql's objects (con:query, con:query_row,
// stmt:execute, rs:fetch_row) are the commonest calls of a Lua-heavy
// script. gopher-lua's OP_SELF finds the function through two lookups in
// string-keyed maps, __index in the object's metatable and then the
// method's name in its method table, and for a result through a call of
// its Go __index function. vmpatch.go installs luajitSelf in its place,
// under its version and layout checks: for a userdata of ours whose
// metatable is the one its state made, it takes the function from a short
// list the state keeps; everything else goes to the stock handler.
//
// The list stays the method table's because scripts cannot reach the
// method tables: the metatables carry __metatable = "ffi", so
// getmetatable(con) returns "ffi", as it does for sysbench's cdata objects.

// protectedMetatable is what getmetatable returns for sysbench.sql's
// connections, statements, results and drivers, as LuaJIT's for cdata.
const protectedMetatable = "ffi"

// Kinds of objects whose methods luajitSelf finds.
const (
	methodsConn = iota
	methodsStmt
	methodsResult
	numMethodKinds
)

// methodSet is one kind's metatable and its methods, in the order a
// lookup tries them.
type methodSet struct {
	mt    lua.LValue // the *lua.LTable every object of the kind has
	names []string
	fns   []lua.LValue
}

// find returns the method name, or nil.
func (m *methodSet) find(name string) lua.LValue {
	for i, n := range m.names {
		if n == name {
			return m.fns[i]
		}
	}
	return nil
}

// setMethods records kind's metatable and methods: names in the order
// lookups try them (the commonest first), each function read back from
// methods.
func (st *state) setMethods(kind int, mt *lua.LTable, methods func(string) lua.LValue, names ...string) {
	set := &st.methods[kind]
	set.mt, set.names = mt, names
	for _, n := range names {
		set.fns = append(set.fns, methods(n))
	}
}

// objectMethod returns the method key of ud when ud is one of
// sysbench.sql's objects with its own kind's metatable, else nil.
func objectMethod(ud *lua.LUserData, key string) lua.LValue {
	var set *methodSet
	switch v := ud.Value.(type) {
	case *luaConn:
		set = &v.st.methods[methodsConn]
	case *luaStmt:
		set = &v.conn.st.methods[methodsStmt]
	case *luaResult:
		set = &v.conn.st.methods[methodsResult]
	default:
		return nil
	}
	if ud.Metatable != set.mt {
		return nil
	}
	return set.find(key)
}

// stockSelf is the handler luajitSelf replaced.
var stockSelf vmInstruction

// installSelf replaces OP_SELF when the table holds a handler of its own
// there, and reports whether it did.
func installSelf() bool {
	if !distinctHandlers(lua.OP_MOVE, lua.OP_NEWTABLE, lua.OP_SELF, lua.OP_ADD) {
		return false
	}
	stockSelf = vmJumpTable[lua.OP_SELF]
	vmJumpTable[lua.OP_SELF] = luajitSelf
	return true
}

// luajitSelf executes OP_SELF (R(A+1) := R(B); R(A) := R(B)[RK(C)]) for
// a method of sysbench.sql's objects; anything else goes to the stock
// handler.
func luajitSelf(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
	reg, cf := vmState(L)
	ra, rb := cf.LocalBase+instA(inst), cf.LocalBase+instB(inst)
	if ra+1 < len(reg.array) && rb < len(reg.array) {
		if ud, ok := reg.array[rb].(*lua.LUserData); ok {
			if key, ok := vmOperand(reg, cf, instC(inst)).(lua.LString); ok {
				if fn := objectMethod(ud, string(key)); fn != nil {
					setRegister(reg, ra+1, ud)
					setRegister(reg, ra, fn)
					return 0
				}
			}
		}
	}
	return stockSelf(L, inst, baseframe)
}
