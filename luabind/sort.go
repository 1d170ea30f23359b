package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// table.sort with a comparator calls back into the VM for every
// comparison, and such a call costs far more than moving values, so
// ljTableSort spends moves to save comparisons: binary insertion for short
// runs, merged pairwise above that, near the fewest comparisons a sort can
// make: at most 25 for 10 values, where gopher-lua's sort.Sort made up to
// 45. As in LuaJIT, the order of equal elements is unspecified, and only
// t[1] to t[#t] are read and written, raw.

// sortRun is the longest run ordered by binary insertion alone.
const sortRun = 16

// tableSorter orders values with the comparator fn, or with Lua's < when
// fn is nil.
type tableSorter struct {
	L  *lua.LState
	fn *lua.LFunction
}

// ljTableSort is table.sort(t [, comp]) as LuaJIT checks its arguments.
func ljTableSort(L *lua.LState) int {
	t := ljCheckTable(L, 1, "sort")
	s := tableSorter{L: L}
	if L.Get(2) != lua.LNil {
		s.fn = ljCheckFunction(L, 2, "sort")
	}
	n := t.Len()
	if n < 2 {
		return 0
	}
	var small [sortRun]lua.LValue
	var vals, buf []lua.LValue
	if n <= sortRun {
		vals = small[:n]
	} else {
		vals, buf = make([]lua.LValue, n), make([]lua.LValue, n)
	}
	for i := range vals {
		vals[i] = t.RawGetInt(i + 1)
	}
	s.sort(vals, buf)
	for i, v := range vals {
		t.RawSetInt(i+1, v)
	}
	return 0
}

// less reports whether a sorts before b.
func (s *tableSorter) less(a, b lua.LValue) bool {
	if s.fn == nil {
		return s.L.LessThan(a, b)
	}
	L := s.L
	L.Push(s.fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	r := L.Get(-1)
	L.Pop(1)
	return lua.LVAsBool(r)
}

// sort orders vals, using buf (as long as vals) as room to merge in.
func (s *tableSorter) sort(vals, buf []lua.LValue) {
	if len(vals) <= sortRun {
		s.insertion(vals)
		return
	}
	mid := len(vals) / 2
	s.sort(vals[:mid], buf[:mid])
	s.sort(vals[mid:], buf[mid:])
	if !s.less(vals[mid], vals[mid-1]) {
		return // already in order
	}
	copy(buf, vals)
	s.merge(vals, buf[:mid], buf[mid:len(vals)])
}

// insertion orders vals by binary insertion: each value's place among
// those before it is found in about log2 comparisons.
func (s *tableSorter) insertion(vals []lua.LValue) {
	for i := 1; i < len(vals); i++ {
		v := vals[i]
		lo, hi := 0, i
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if s.less(v, vals[mid]) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		copy(vals[lo+1:i+1], vals[lo:i])
		vals[lo] = v
	}
}

// merge writes the ordered runs a and b into out.
func (s *tableSorter) merge(out, a, b []lua.LValue) {
	k := 0
	for len(a) > 0 && len(b) > 0 {
		if s.less(b[0], a[0]) {
			out[k], b = b[0], b[1:]
		} else {
			out[k], a = a[0], a[1:]
		}
		k++
	}
	k += copy(out[k:], a)
	copy(out[k:], b)
}
