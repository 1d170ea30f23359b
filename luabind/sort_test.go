package luabind

import (
	"fmt"
	"testing"
)

// TestTableSort compares table.sort with LuaJIT's (see the top of
// luajit_test.go for how the wants were produced): orders with and
// without a comparator, on both sides of sortRun, __lt, a comparator that
// sorts too, and LuaJIT's argument errors.
func TestTableSort(t *testing.T) {
	compatCheckRows(t, []compatRow{
		{`(function() local t = {5, 3, 9, 1, 7} table.sort(t) return table.concat(t, ",") end)()`, "1,3,5,7,9"},
		{`(function() local t = {"pear", "fig", "apple", "Fig"} table.sort(t) return table.concat(t, ",") end)()`, "Fig,apple,fig,pear"},
		{`(function() local t = {5, 3, 9, 1, 7} table.sort(t, function(a, b) return a > b end) return table.concat(t, ",") end)()`, "9,7,5,3,1"},
		{`(function() local t = {5, 3, 9} table.sort(t, nil) return table.concat(t, ",") end)()`, "3,5,9"},
		{`(function() local t = {3, 2, 1, x = 0} table.sort(t) return table.concat(t, ","), t.x end)()`, "1,2,3|number:0"},
		{`(function() local t = {} for i = 1, 100 do t[i] = (i * 37) % 101 end table.sort(t) for i = 2, 100 do if t[i - 1] > t[i] then return "unordered at " .. i end end return t[1], t[100] end)()`, "number:1|number:100"},
		{`(function() local t = {} for i = 1, 40 do t[i] = {k = (i * 7) % 41} end table.sort(t, function(a, b) return a.k < b.k end) local s = {} for i = 1, 40 do s[i] = t[i].k end return table.concat(s, ",") end)()`, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40"},
		{`(function() local t = {3, "a", 1} table.sort(t) end)()`, "error: attempt to compare string with number"},
		{`(function() local t = {3, {}, 1} table.sort(t) end)()`, "error: attempt to compare table with number"},
		{`(function() table.sort({2, 1}, 3) end)()`, "error: bad argument #2 to 'sort' (function expected, got number)"},
		{`(function() table.sort("x") end)()`, "error: bad argument #1 to 'sort' (table expected, got string)"},
		{`(function() table.sort() end)()`, "error: bad argument #1 to 'sort' (table expected, got no value)"},
		{`(function() table.sort({2, 1}, function(a, b) error("from comp") end) end)()`, "error: from comp"},
		{`(function() local mt = {__lt = function(a, b) return a.v < b.v end} local t = {} for i, v in ipairs({4, 2, 3, 1}) do t[i] = setmetatable({v = v}, mt) end table.sort(t) return t[1].v .. t[2].v .. t[3].v .. t[4].v end)()`, "1234"},
		{`(function() local t = {1} table.sort(t, function() error("never") end) return t[1] end)()`, "number:1"},
		{`(function() local outer = {{3, 1, 2}, {9, 8}} table.sort(outer, function(a, b) table.sort(a) table.sort(b) return a[1] < b[1] end) return table.concat(outer[1], ","), table.concat(outer[2], ",") end)()`, "1,2,3|8,9"},
	})
}

// TestTableSortComparisons checks that a comparator is called no more
// often than binary insertion needs (the sum of ceil(log2(i+1)) for i < n,
// 25 for 10 values), where gopher-lua's own sort made up to n(n-1)/2, and
// that longer lists merge in about n*log2(n) calls.
func TestTableSortComparisons(t *testing.T) {
	got := compatRun(t, `
local function calls(values)
  local n = 0
  table.sort(values, function(a, b) n = n + 1 return a < b end)
  for i = 2, #values do assert(values[i - 1] <= values[i], "unordered") end
  return n
end
local function list(n, f) local t = {} for i = 1, n do t[i] = f(i) end return t end
io.write(calls(list(10, function(i) return 11 - i end)), " ",
  calls(list(15, function(i) return (i * 7) % 16 end)), " ",
  calls(list(1000, function(i) return (i * 7919) % 1009 end)))`)
	var reversed10, mixed15, long int
	if _, err := fmt.Sscan(got, &reversed10, &mixed15, &long); err != nil {
		t.Fatalf("output %q: %v", got, err)
	}
	if reversed10 > 25 || mixed15 > 45 || long > 1000*10 {
		t.Errorf("comparator calls: 10 reversed %d (at most 25), 15 mixed %d (at most 45), 1000 %d (at most 10000)",
			reversed10, mixed15, long)
	}
}
