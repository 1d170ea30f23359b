package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

// luaResult is a result set, read lazily: rows are buffered only when a
// script asks for nrows.
type luaResult struct {
	conn    *luaConn
	rows    db.Rows
	nfields int
	ud      *lua.LUserData
	closed  bool
	// buffered holds the rows read ahead for nrows; served first.
	buffered  [][]lua.LValue
	delivered int // rows already returned by fetch_row or query_row
	counted   bool
	nrows     int
}

func (r *luaResult) object(L *lua.LState) *lua.LUserData {
	if r.ud == nil {
		// Every SELECT makes one: the metatable comes from the state
		// rather than from a lookup by name in the registry.
		st := r.conn.st
		if st.resultMT == nil {
			st.resultMT = L.GetTypeMetatable(sqlResultType)
		}
		ud := L.NewUserData()
		ud.Value = r
		ud.Metatable = st.resultMT
		r.ud = ud
	}
	return r.ud
}

func checkResult(L *lua.LState, n int) *luaResult {
	if r, ok := L.CheckUserData(n).Value.(*luaResult); ok {
		return r
	}
	L.ArgError(n, "sql result expected")
	return nil
}

func (r *luaResult) close() {
	if !r.closed {
		r.closed = true
		r.rows.Close()
	}
}

// read reads one row from the driver into dst (len nfields) as Lua
// values.
func (r *luaResult) read(L *lua.LState, dst []lua.LValue) bool {
	if r.closed {
		return false
	}
	raw := r.conn.rawRow(r.nfields)
	ok, err := r.rows.Next(raw)
	if err != nil {
		r.close()
		r.conn.st.sqlError(L, r.conn, err, "", false)
	}
	if ok {
		rowStrings(raw, dst)
	}
	return ok
}

// next reads the next row into dst, buffered or not.
func (r *luaResult) next(L *lua.LState, dst []lua.LValue) bool {
	if len(r.buffered) > 0 {
		copy(dst, r.buffered[0])
		r.buffered = r.buffered[1:]
		r.delivered++
		return true
	}
	ok := r.read(L, dst)
	if ok {
		r.delivered++
	}
	return ok
}

// numRows is rs.nrows: the rows of the result set, which are read ahead
// to count them.
func (r *luaResult) numRows(L *lua.LState) int {
	if !r.counted {
		r.counted = true
		r.nrows = r.delivered + len(r.buffered)
		for {
			row := make([]lua.LValue, r.nfields)
			if !r.read(L, row) {
				break
			}
			r.buffered = append(r.buffered, row)
			r.nrows++
		}
	}
	return r.nrows
}

// resFetchRow is rs:fetch_row(): the next row as an array of strings with
// nil for NULL, or nil after the last row.
func resFetchRow(L *lua.LState) int {
	r := checkResult(L, 1)
	row := r.conn.luaRow(r.nfields)
	if !r.next(L, row) {
		L.Push(lua.LNil)
		return 1
	}
	t := L.CreateTable(len(row), 0)
	for i, v := range row {
		if v != lua.LNil {
			t.RawSetInt(i+1, v)
		}
	}
	L.Push(t)
	return 1
}

// resFree is rs:free().
func (st *state) resFree(L *lua.LState) int {
	r := checkResult(L, 1)
	if r.conn.cur != r {
		st.script.cfg.Log.Logf(engine.LevelAlert, "attempt to free an invalid result set")
		L.RaiseError("db_free_results() failed")
	}
	r.conn.release()
	L.Push(lua.LTrue)
	return 1
}
