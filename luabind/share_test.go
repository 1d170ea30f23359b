package luabind

import (
	"strings"
	"testing"
)

// TestShareCopiesToWorkers: what the main state's init() shares, every
// worker reads in thread_init as tables of its own, with the sequence,
// the nested tables and the scalar types kept; a worker's change to its
// copy reaches neither the store nor the other workers; a name never
// shared, or shared as nil, reads nil.
func TestShareCopiesToWorkers(t *testing.T) {
	f := loadFake(t, "run", `
function init()
  sysbench.share("data", {"a", "b", "c", n = 3, ok = true, nested = {1.5, {deep = "x"}}})
  sysbench.share("gone", "soon")
  sysbench.share("gone", nil)
end
local mine
function thread_init()
  mine = sysbench.share("data")
  table.insert(mine, "changed by " .. sysbench.tid)
end
function event()
  print(string.format("%d %s %d %s %s %s %s %s %s", #mine, table.concat(mine, ",", 1, 3), mine.n,
    tostring(mine.ok), tostring(mine.nested[1]), mine.nested[2].deep, tostring(sysbench.share("gone")),
    tostring(sysbench.share("never")), #sysbench.share("data")))
  return true
end`)
	if code := f.run(3, 0); code != 0 {
		t.Fatalf("exit %d:\n%s", code, f.log.String())
	}
	want := "4 a,b,c 3 true 1.5 x nil nil 3\n"
	if got := f.out.String(); got != strings.Repeat(want, 3) {
		t.Errorf("workers printed:\n%s\nwant three times:\n%s", got, want)
	}
}

// TestShareRefusesWhatCannotBeCopied: functions, userdata and a table
// that contains itself are refused with an argument error naming them.
func TestShareRefusesWhatCannotBeCopied(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"print", "cannot share a function"},                 // a function
		{"{f = print}", "cannot share a function"},           // inside a table
		{"sysbench.sql.driver()", "cannot share a userdata"}, // a driver
		{"(function() local t = {} t.t = t return t end)()", "cannot share a table that contains itself"},
	} {
		f := loadFake(t, "prepare", `function prepare() sysbench.share("x", `+tc.value+`) end`)
		err := f.CallFunction("prepare")
		if err == nil || !strings.Contains(err.Error(), "bad argument #2 to share ("+tc.want+")") {
			t.Errorf("sharing %s: %v, want %q", tc.value, err, tc.want)
		}
	}
}
