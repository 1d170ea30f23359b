package luabind

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// fieldScript reads and writes fields by name every way the fast paths
// and the stock handlers split them: constructors, new and existing keys,
// nil values, re-added keys, iteration order with next and pairs,
// __index and __newindex (tables and functions), rawget, a metatable
// without those fields, and the errors of indexing nil.
const fieldScript = `
local out = {}
local function put(...) for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end end
local t = {item = 1, supply = 2, qty = 3}
t.brand = "B"; t.qty = 4; t.supply = nil; t.extra = false; t.supply = 5
for k, v in pairs(t) do put(k, v) end
local k, v = next(t); put(k, v); put(next(t, k))
local u = {}; u.a = 1; u.b = 2; u.a = nil; u.c = 3; u.a = 4
for k, v in pairs(u) do put(k, v) end
local writes = {}
local proxy = setmetatable({seen = 1}, {__index = {inherited = "i"}, __newindex = function(tb, k, v) writes[#writes + 1] = k; rawset(tb, k, v) end})
proxy.seen = 2; proxy.fresh = 3; proxy.fresh = 4
put(proxy.seen, proxy.fresh, proxy.inherited, proxy.missing, rawget(proxy, "inherited"), table.concat(writes, ","))
local store = {}
local redirect = setmetatable({}, {__newindex = store})
redirect.x = 1; put(rawget(redirect, "x"), store.x)
local plain = setmetatable({}, {__tostring = function() return "plain" end})
plain.y = 7; put(plain.y, rawget(plain, "y"))
put(pcall(function() local n; return n.field end))
put(pcall(function() local n; n.field = 1 end))
put(("x"):rep(2), #t, t.brand, t.extra)
return table.concat(out, " ")
`

// TestFieldAccessAsStock: with field.go's handlers, fieldScript gives
// what gopher-lua's own OP_GETTABLEKS and OP_SETTABLEKS give.
func TestFieldAccessAsStock(t *testing.T) {
	if !vmPatches.fields {
		t.Fatal("the field handlers are not installed")
	}
	run := func() string {
		L := lua.NewState()
		defer L.Close()
		if err := L.DoString(fieldScript); err != nil {
			t.Fatal(err)
		}
		return L.Get(-1).String()
	}
	patched := run()
	vmJumpTable[lua.OP_GETTABLEKS], vmJumpTable[lua.OP_SETTABLEKS] = stockGetField, stockSetField
	stock := run()
	vmJumpTable[lua.OP_GETTABLEKS], vmJumpTable[lua.OP_SETTABLEKS] = luajitGetField, luajitSetField
	if patched != stock {
		t.Errorf("with field.go's handlers:\n%s\nwith gopher-lua's:\n%s", patched, stock)
	}
	t.Log(patched)
}

// TestTableConstructorAllocations: a constructor with three string keys
// costs six allocations (the table, its map, the list of keys and its
// index, two of them with their first group of slots), where gopher-lua's
// own field writes take fourteen.
func TestTableConstructorAllocations(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`function make(i) return {item = i, supply = i, qty = i} end`); err != nil {
		t.Fatal(err)
	}
	fn := L.GetGlobal("make")
	arg := lua.LNumber(7)
	allocs := testing.AllocsPerRun(200, func() {
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, arg); err != nil {
			t.Fatal(err)
		}
		L.Pop(1)
	})
	if allocs > 6 {
		t.Errorf("%.1f allocations per constructor, want at most 6", allocs)
	}
}
