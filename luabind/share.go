package luabind

import (
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// sharedStore holds what a script's states share through sysbench.share:
// typically data the main state's init() reads once (keys of a table,
// statements drawn once) that every worker then uses, as a tool that
// reads such data once per run and hands it to all its clients does. A
// Lua value belongs to the state that made it, so the store keeps plain
// Go copies and each reader gets tables of its own. Readers copy once,
// in thread_init, never per event.
type sharedStore struct {
	mu     sync.Mutex
	values map[string]any // nil, bool, float64, string or *sharedTable
}

// sharedTable is a Lua table as pairs, in the order ForEach gives them:
// the array part first, in order, so a copy keeps its sequence.
type sharedTable struct{ keys, values []any }

// set stores a copy of v under name; nil removes it.
func (s *sharedStore) set(name string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v == nil {
		delete(s.values, name)
		return
	}
	if s.values == nil {
		s.values = map[string]any{}
	}
	s.values[name] = v
}

func (s *sharedStore) get(name string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[name]
}

// luaShare is sysbench.share(name[, value]), an sbgo extension. With a
// value it stores a copy of it (nil, a boolean, number, string or a
// table of those) for every state of the script to read; with only a
// name it returns a fresh copy of what was stored, or nil.
func (st *state) luaShare(L *lua.LState) int {
	name := L.CheckString(1)
	if L.GetTop() < 2 {
		L.Push(toLua(L, st.script.shared.get(name)))
		return 1
	}
	v, err := fromLua(L.Get(2), map[*lua.LTable]bool{})
	if err != "" {
		L.ArgError(2, err)
	}
	st.script.shared.set(name, v)
	return 0
}

// fromLua copies v out of its state; inPath holds the tables being
// copied, to refuse a table that contains itself.
func fromLua(v lua.LValue, inPath map[*lua.LTable]bool) (any, string) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, ""
	case lua.LBool:
		return bool(v), ""
	case lua.LNumber:
		return float64(v), ""
	case lua.LString:
		return string(v), ""
	case *lua.LTable:
		return tableFromLua(v, inPath)
	}
	return nil, "cannot share a " + v.Type().String()
}

func tableFromLua(t *lua.LTable, inPath map[*lua.LTable]bool) (any, string) {
	if inPath[t] {
		return nil, "cannot share a table that contains itself"
	}
	inPath[t] = true
	defer delete(inPath, t)
	out := &sharedTable{}
	var failed string
	t.ForEach(func(k, v lua.LValue) {
		if failed != "" {
			return
		}
		gk, err := fromLua(k, inPath)
		if err == "" {
			var gv any
			gv, err = fromLua(v, inPath)
			out.keys, out.values = append(out.keys, gk), append(out.values, gv)
		}
		failed = err
	})
	return out, failed
}

// toLua makes a value of the store a value of L.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case *sharedTable:
		t := L.CreateTable(len(v.keys), 0)
		for i, k := range v.keys {
			t.RawSet(toLua(L, k), toLua(L, v.values[i]))
		}
		return t
	}
	return lua.LNil
}
