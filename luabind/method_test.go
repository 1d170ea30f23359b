package luabind

import (
	"testing"

	"sbgo/db/dbtest"
)

// TestFakeObjectMethods pins what scripts see of sysbench.sql's objects
// and their methods, which OP_SELF finds without a lookup (method.go):
// getmetatable gives "ffi" for drivers, connections, statements and
// results, as for sysbench's cdata; a method read as a field is the
// function a method call runs; an unknown method is an error naming it;
// a result's fields and methods both work.
func TestFakeObjectMethods(t *testing.T) {
	f := loadFake(t, "prepare", `
function prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  local stmt = con:prepare("SELECT a FROM t WHERE b = ?")
  local rs = con:query("SELECT a, b FROM t")
  print(getmetatable(drv), getmetatable(con), getmetatable(stmt), getmetatable(rs))
  print(tostring(con), tostring(stmt), tostring(rs))
  print(con.query == con.query, rs.fetch_row == rs.fetch_row, type(con.query_row), type(stmt.execute))
  print(rs.nfields, rs.nrows, rs:fetch_row()[1])
  print(pcall(function() con:no_such_method() end))
  print(pcall(function() rs:nrows() end))
  print(rs:free(), stmt:close(), con:disconnect())
end
`)
	f.srv.On(dbtest.Exact("SELECT a, b FROM t"), dbtest.Reply{Columns: []string{"a", "b"}, Rows: [][]any{{"x", "y"}}})
	if err := f.CallFunction("prepare"); err != nil {
		t.Fatal(err)
	}
	want := "ffi\tffi\tffi\tffi\n" +
		"<sql_connection>\t<sql_statement>\t<sql_result>\n" +
		"true\ttrue\tfunction\tfunction\n" +
		"2\t1\tx\n" +
		"false\t" + f.Script.cfg.TestName + ":12: attempt to call method 'no_such_method' (a nil value)\n" +
		"false\t" + f.Script.cfg.TestName + ":13: attempt to call method 'nrows' (a number value)\n" +
		"true\t0\ttrue\n"
	if got := f.out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
