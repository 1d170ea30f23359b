package luabind

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Boxed numbers and strings keep their values through garbage collections
// and behave as ordinary Lua values: type switches, equality, table keys.
func TestBoxedValuesSurviveGC(t *testing.T) {
	var nb numberBoxes
	const n = 3 * numberChunk
	nums := make([]lua.LValue, n)
	strs := make([]lua.LValue, n)
	for i := range nums {
		nums[i] = nb.box(float64(i) + 0.5)
		strs[i] = newLString([]byte("value-" + strconv.Itoa(i)))
	}
	// Keep only every third value, drop the rest, and churn the heap.
	for i := range nums {
		if i%3 != 0 {
			nums[i], strs[i] = nil, nil
		}
	}
	churnAndCollect()
	L := lua.NewState()
	defer L.Close()
	tbl := L.NewTable()
	for i := 0; i < n; i += 3 {
		num, ok := nums[i].(lua.LNumber)
		if !ok || float64(num) != float64(i)+0.5 {
			t.Fatalf("number %d: %#v", i, nums[i])
		}
		want := "value-" + strconv.Itoa(i)
		s, ok := strs[i].(lua.LString)
		if !ok || string(s) != want || strs[i] != lua.LValue(lua.LString(want)) {
			t.Fatalf("string %d: %#v", i, strs[i])
		}
		tbl.RawSet(strs[i], nums[i])
		if got := tbl.RawGetString(want); got != nums[i] {
			t.Fatalf("table lookup of %q: %v", want, got)
		}
	}
	if v := newLString(nil); v != lua.LValue(lua.LString("")) {
		t.Errorf("empty string: %#v", v)
	}
}

// truthy must agree with Lua's truth: only nil and false are false.
func TestTruthyIsLuaTruth(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, v := range []lua.LValue{lua.LNil, lua.LFalse, lua.LTrue, lua.LNumber(0), lua.LNumber(1), lua.LString(""), L.NewTable()} {
		if got, want := truthy(v), lua.LVAsBool(v); got != want {
			t.Errorf("truthy(%v) = %v, want %v", v, got, want)
		}
	}
}

// A numberBoxes allocates one chunk per numberChunk numbers, not one per
// number: boxing must cost less than the allocation it replaces.
func TestNumberBoxesAllocatePerChunk(t *testing.T) {
	var nb numberBoxes
	const chunks = 10
	allocs := testing.AllocsPerRun(1, func() {
		for i := range chunks * numberChunk {
			nb.box(float64(i))
		}
	})
	if allocs > chunks+1 {
		t.Errorf("%v allocations for %d boxed numbers, want at most %d", allocs, chunks*numberChunk, chunks+1)
	}
}

// A row's strings (rowStrings) share one allocation and keep their values
// through garbage collections when only some of them stay referenced;
// NULL is nil and an empty value the empty string.
func TestRowStringsSurviveGC(t *testing.T) {
	const n = 1000
	kept := make([]lua.LValue, n)
	for i := range kept {
		row := make([]lua.LValue, 4)
		rowStrings([][]byte{[]byte("first-" + strconv.Itoa(i)), nil, {}, []byte("last-" + strconv.Itoa(i))}, row)
		if row[1] != lua.LNil || row[2] != lua.LValue(lua.LString("")) {
			t.Fatalf("row %d: NULL %#v, empty %#v", i, row[1], row[2])
		}
		kept[i] = row[3] // only the last value keeps the row's allocation
	}
	churnAndCollect()
	for i, v := range kept {
		if want := "last-" + strconv.Itoa(i); v != lua.LValue(lua.LString(want)) {
			t.Fatalf("value %d: %#v, want %q", i, v, want)
		}
	}
}

// A string built in a stringSpace is the text appended; appending more
// than the space holds is a bug, which value reports.
func TestStringSpace(t *testing.T) {
	s := newStringSpace(8)
	if v := s.value(append(s.text(), "abc"...)); v != lua.LValue(lua.LString("abc")) {
		t.Errorf("value: %#v", v)
	}
	if v := newStringSpace(0).value(nil); v != lua.LValue(lua.LString("")) {
		t.Errorf("empty: %#v", v)
	}
	defer func() {
		if recover() == nil {
			t.Error("a string that outgrew its space was accepted")
		}
	}()
	s = newStringSpace(2)
	s.value(append(s.text(), "abc"...))
}

// Strings cut from a stringArena keep their values through garbage
// collections when only some of each chunk stay referenced; long and empty
// strings take the plain path; short ones cost one allocation per chunk.
func TestStringArena(t *testing.T) {
	var a stringArena
	const n = 2000 // many chunks
	kept := make([]lua.LValue, n)
	for i := range kept {
		kept[i] = a.newLString([]byte("SELECT c FROM sbtest1 WHERE id=" + strconv.Itoa(i)))
	}
	for i := range kept {
		if i%7 != 0 {
			kept[i] = nil
		}
	}
	churnAndCollect()
	for i := 0; i < n; i += 7 {
		if want := "SELECT c FROM sbtest1 WHERE id=" + strconv.Itoa(i); kept[i] != lua.LValue(lua.LString(want)) {
			t.Fatalf("string %d: %#v, want %q", i, kept[i], want)
		}
	}
	long := bytes.Repeat([]byte{'x'}, arenaMaxSize)
	free := len(a.free)
	if v := a.newLString(long); v != lua.LValue(lua.LString(long)) {
		t.Errorf("long string: %#v", v)
	}
	if v := a.newLString(nil); v != lua.LValue(lua.LString("")) {
		t.Errorf("empty string: %#v", v)
	}
	if len(a.free) != free {
		t.Errorf("long or empty strings took %d bytes of the chunk", free-len(a.free))
	}
	text := []byte("SELECT c FROM sbtest1 WHERE id=12345")
	allocs := testing.AllocsPerRun(10, func() {
		for range 100 {
			a.newLString(text)
		}
	})
	if allocs > 100.0/(arenaChunk/64)+1 {
		t.Errorf("%v allocations for 100 short strings", allocs)
	}
}

// churnAndCollect fills freed memory with new allocations between three
// collections, so that a value kept alive wrongly reads garbage.
func churnAndCollect() {
	for round := 0; round < 3; round++ {
		junk := make([][]byte, 10000)
		for j := range junk {
			junk[j] = make([]byte, 64)
		}
		runtime.GC()
		runtime.KeepAlive(junk)
	}
}
