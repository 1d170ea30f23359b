package luabind

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// leafShapes calls leaf functions (string.format, bit.*, tonumber and
// sysbench-less test leaves) in every shape OP_CALL has: fixed and open
// argument counts, results discarded, kept, padded with nil and passed on
// whole, high registers, nested calls, a coroutine, an error caught by
// pcall with the caller's locals used after it, a %s whose __tostring
// runs Lua that calls a leaf again, and an error's position.
const leafShapes = `
local fmt, out = string.format, {}
local function add(s) out[#out + 1] = s end
local function args(...) return leaf_count(...) end
add(fmt("%d-%s", 7, "x"))
add(fmt("%d|%d", bit.bor(1, 2), bit.band(6, 3)) .. fmt("[%s]", tonumber("12")))
leaf_pair(1, 2)
local a, b, c = leaf_pair(3, 4)
add(fmt("%s %s %s", a, b, tostring(c)))
add(fmt("%d %d %d", leaf_count(), args(1, 2, 3), leaf_count(leaf_pair(5, 6))))
add(select("#", leaf_pair(7, 8)) .. ":" .. table.concat({leaf_pair(9, 10)}, ","))
local function high(x)
  local v1, v2, v3, v4, v5, v6, v7, v8, v9, v10 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  local r = fmt("%d:%d", x, v10)
  return r, v1 + v9
end
add(table.concat({high(5)}, "/"))
local co = coroutine.wrap(function(x) coroutine.yield(fmt("y%d", x)); return fmt("z%d", x + 1) end)
add(co(1) .. co())
local function outer(n)
  local before = n * 2
  local ok, err = pcall(function() return fmt("%d", {}) end)
  local after = fmt("%d", before + 1)
  return tostring(ok) .. " " .. err:gsub("^[^:]*:%d+: ", "") .. " " .. after .. " " .. before
end
add(outer(10))
local obj = setmetatable({}, {__tostring = function() return fmt("<%d>", leaf_count(1, 2)) end})
add(fmt("%s/%s", obj, fmt("%d", 3)))
local ok, err = pcall(function()
  local x = 1
  return fmt("%y", x)
end)
add(err)
io.write(table.concat(out, "\n"))
`

// leafShapesWant is what leafShapes writes.
const leafShapesWant = `7-x
3|2[12]
3 4 nil
0 3 2
2:9,10
5:10/10
y1z2
false bad argument #2 to 'format' (number expected, got table) 21 20
<2>/3
<string>:31: invalid option '%y' to 'format'`

// runLeafShapes runs leafShapes in a state with two test leaves and
// reports what it wrote and how many calls of leaf_count had no frame of
// their own.
func runLeafShapes(t *testing.T) (string, int) {
	t.Helper()
	L, out, _ := compatNewState(t)
	frameless := 0
	L.SetGlobal("leaf_count", L.NewFunction(leafFunction(func(L *lua.LState) int {
		if _, cf := vmState(L); !cf.Fn.IsG {
			frameless++
		}
		L.Push(lua.LNumber(L.GetTop()))
		return 1
	})))
	L.SetGlobal("leaf_pair", L.NewFunction(leafFunction(func(L *lua.LState) int {
		L.Push(L.Get(1))
		L.Push(L.Get(2))
		return 2
	})))
	if err := L.DoString(leafShapes); err != nil {
		t.Fatal(err)
	}
	return out.String(), frameless
}

// TestLeafCalls runs leafShapes with leaves called in their caller's
// frame and, for comparison, with gopher-lua's frames: both must write
// the same, and only the first may call leaf_count without a frame.
func TestLeafCalls(t *testing.T) {
	if !vmPatches.leaves {
		t.Fatal("leaf calls are not installed")
	}
	got, frameless := runLeafShapes(t)
	if got != leafShapesWant {
		t.Errorf("with leaf calls:\n%s\nwant:\n%s", got, leafShapesWant)
	}
	// leaf_count runs 4 times, once as a tail call (args), which keeps
	// gopher-lua's frame.
	if frameless != 3 {
		t.Errorf("%d of leaf_count's 3 plain calls from Lua ran without a frame", frameless)
	}

	saved := leafCode
	leafCode = 0
	t.Cleanup(func() { leafCode = saved })
	got, frameless = runLeafShapes(t)
	if got != leafShapesWant {
		t.Errorf("with gopher-lua's frames:\n%s\nwant:\n%s", got, leafShapesWant)
	}
	if frameless != 0 {
		t.Errorf("%d calls of leaf_count ran without a frame with leaf calls off", frameless)
	}
}

// TestLeafFunctionsOfTheLibraries checks that the functions an event
// calls most are leaves and that a function calling Lua back is not.
func TestLeafFunctionsOfTheLibraries(t *testing.T) {
	L, _, _ := compatNewState(t)
	L.SetGlobal("sysbench", L.NewTable())
	L.GetGlobal("sysbench").(*lua.LTable).RawSetString("rand", newRandTable(L, &Rand{}))
	for _, name := range strings.Fields("string.format tonumber bit.bor bit.band sysbench.rand.default sysbench.rand.uniform sysbench.rand.string") {
		if fn := globalPath(L, name); fn == nil || !isLeaf(fn) {
			t.Errorf("%s is not a leaf", name)
		}
	}
	for _, name := range strings.Fields("tostring table.concat table.sort pcall") {
		if fn := globalPath(L, name); fn == nil || isLeaf(fn) {
			t.Errorf("%s is a leaf or missing", name)
		}
	}
}

// globalPath returns the function at a dotted path of globals, or nil.
func globalPath(L *lua.LState, path string) *lua.LFunction {
	var v lua.LValue = L.Get(lua.GlobalsIndex)
	for _, key := range strings.Split(path, ".") {
		t, ok := v.(*lua.LTable)
		if !ok {
			return nil
		}
		v = t.RawGetString(key)
	}
	fn, _ := v.(*lua.LFunction)
	return fn
}
