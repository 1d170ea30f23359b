package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// uint64TypeName names the metatable of the stand-in for LuaJIT's uint64_t
// cdata, which sysbench.rand.uniform_uint64 returns. A Lua number (float64)
// cannot hold every 64-bit value, so the value lives in a userdata.
const uint64TypeName = "sbgo.uint64_t"

// pushUint64 pushes v as a uint64_t userdata.
func pushUint64(L *lua.LState, v uint64) {
	ud := L.NewUserData()
	ud.Value = v
	L.SetMetatable(ud, uint64Metatable(L))
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

// uint64Metatable returns the state's uint64_t metatable, creating it on
// first use.
func uint64Metatable(L *lua.LState) lua.LValue {
	if mt := L.GetTypeMetatable(uint64TypeName); mt != lua.LNil {
		return mt
	}
	mt := L.NewTypeMetatable(uint64TypeName)
	L.SetField(mt, "__tostring", L.NewFunction(func(L *lua.LState) int {
		u, _ := toUint64(L.Get(1))
		L.Push(lua.LString(strconv.FormatUint(u, 10) + "ULL"))
		return 1
	}))
	return mt
}
