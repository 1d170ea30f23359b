package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

// newSQLTable builds sysbench.sql: its constants (spec §3.5.1) and
// driver(). No database driver is compiled into this build yet, so
// driver() fails the way sysbench does for an unknown driver name.
func (st *state) newSQLTable() *lua.LTable {
	L := st.L
	t := L.NewTable()
	types := L.NewTable()
	for i, name := range []string{"NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"TIME", "DATE", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"} {
		types.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("type", types)
	errs := L.NewTable()
	for i, name := range []string{"NONE", "IGNORABLE", "FATAL"} {
		errs.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("error", errs)
	t.RawSetString("driver", L.NewFunction(st.sqlDriver))
	return t
}

// sqlDriver is sysbench.sql.driver([name]).
func (st *state) sqlDriver(L *lua.LState) int {
	name := L.OptString(1, "")
	if name == "" {
		if v, ok := st.script.cfg.Options.Lookup("db-driver"); ok {
			name = v.String()
		}
	}
	st.script.cfg.Log.Logf(engine.LevelFatal, "invalid database driver name: '%s'", name)
	L.RaiseError("failed to initialize the DB driver")
	return 0
}
