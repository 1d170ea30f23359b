package luabind

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

func TestLibsInText(t *testing.T) {
	for _, c := range []struct {
		text string
		want libSet
	}{
		{"io", libIO},
		{"io.write('x')", libIO},
		{"ratio", 0},
		{"version options", 0},
		{"os", libOS},
		{"coroutine", libCoroutine},
		{"bit", libLuaJIT},
		{"ffi", libLuaJIT},
		{"jit", libLuaJIT},
		{"db_query", libLegacy},
		{"sb_rand", libLegacy},
		{"thread_id", libLegacy},
		{"--db-driver", libLegacy},
		{"DB_ERROR_FAILED", libLegacy},
		{"SELECT c FROM sbtest1 WHERE id=?", 0},
		{"_G", libAll},
		{"debug", libAll},
		{"return loadstring(s)", libAll},
		{"getfenv", libAll},
		{"dofile", libAll},
		{"io os", libIO | libOS},
	} {
		if got := libsInText(c.text); got != c.want {
			t.Errorf("libsInText(%q) = %b, want %b", c.text, got, c.want)
		}
	}
}

// loadScriptFile writes src as x.lua in a new directory (with the other
// files given, for require) and loads it.
//
// The script declares an option, so that options are not also exported
// as globals (one of them is --debug).
func loadScriptFile(t *testing.T, src string, others map[string]string, out io.Writer) *Script {
	t.Helper()
	src = "sysbench.cmdline.options = {x = {'x', 1}}\n" + src
	dir := t.TempDir()
	path := filepath.Join(dir, "x.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range others {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("LUA_PATH", filepath.Join(dir, "?.lua")+";;")
	s, err := Load(Config{TestName: path, Command: "run", Argv: []string{"sbgo"}, Out: out,
		Log: engine.NewLogger(io.Discard, 3), Options: engine.NewGeneralOptions()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// globalTypes returns the type of each global name in st.
func globalTypes(st *state, names []string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = st.L.GetGlobal(n).Type().String()
	}
	return m
}

func TestWorkerStatesOpenTheLibrariesTheCodeNames(t *testing.T) {
	probe := []string{"io", "os", "debug", "coroutine", "bit", "ffi", "jit", "db_query", "sb_rand", "thread_id", "string", "math", "table", "sysbench", "channel"}
	all := map[string]string{"io": "table", "os": "table", "debug": "table", "coroutine": "table", "bit": "table", "ffi": "table", "jit": "table",
		"db_query": "function", "sb_rand": "function", "thread_id": "number", "string": "table", "math": "table", "table": "table", "sysbench": "table", "channel": "nil"}
	lean := map[string]string{}
	for k, v := range all {
		lean[k] = v
	}
	for _, k := range []string{"io", "os", "debug", "coroutine", "bit", "ffi", "jit", "db_query", "sb_rand", "thread_id"} {
		lean[k] = "nil"
	}
	with := func(over map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range lean {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name   string
		src    string
		worker map[string]string
	}{
		{"nothing optional", "function event() return string.format('%d', 1) end", lean},
		{"io", "function event() io.write('x') end", with(map[string]string{"io": "table"})},
		{"os and coroutine", "function event() return os.time(), coroutine.running() end", with(map[string]string{"os": "table", "coroutine": "table"})},
		{"luajit modules", "local b = require('bit')\nfunction event() end", with(map[string]string{"bit": "table", "ffi": "table", "jit": "table"})},
		{"0.5 API", "function event(thread_id) db_query('SELECT 1') end", with(map[string]string{"db_query": "function", "sb_rand": "function", "thread_id": "number"})},
		{"computed global names", "function event() return _G['i' .. 'o'] end", all},
		{"code compiled later", "function event() return loadstring('return 1')() end", all},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := loadScriptFile(t, c.src, nil, io.Discard)
			if got := globalTypes(s.main, probe); !equalMaps(got, all) {
				t.Errorf("main state: %v, want %v", got, all)
			}
			th, err := s.NewThread(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer th.Close()
			if got := globalTypes(th.(*thread).st, probe); !equalMaps(got, c.worker) {
				t.Errorf("worker state:\n got %v\nwant %v", got, c.worker)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A library opened in a worker state works as in the main state: io.write
// goes to the engine's output through the LuaJIT stand-in, and a module
// that a worker requires only in thread_init gets what it names.
func TestOptionalLibrariesWorkInWorkers(t *testing.T) {
	var out bytes.Buffer
	s := loadScriptFile(t, `
function thread_init() m = require("late") end
function event() io.write("w", m.band, ":", tostring(os.clock() >= 0)) end
`, map[string]string{"late.lua": "return {band = bit.band(7, 10), ffi = type(ffi)}"}, &out)
	th, err := s.NewThread(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	st := th.(*thread).st
	if st.L.GetGlobal("bit") != lua.LNil {
		t.Fatal("bit is open before the module that names it is required")
	}
	if err := th.Init(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.callGlobal("event"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "w2:true" {
		t.Errorf("event wrote %q, want %q", got, "w2:true")
	}
	if got := st.L.GetGlobal("m").(*lua.LTable).RawGetString("ffi").String(); got != "table" {
		t.Errorf("type(ffi) in the late module = %s, want table", got)
	}
}

// Every global that opening an optional library defines is one of the
// names that open it: otherwise code could use a global that a worker
// state has not opened.
func TestOptionalLibraryGlobalsOpenTheirLibrary(t *testing.T) {
	s := loadScriptFile(t, "function event() end", nil, io.Discard)
	for _, lib := range []libSet{libIO, libOS, libDebug, libCoroutine, libLuaJIT, libLegacy} {
		th, err := s.NewThread(1, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := th.(*thread).st
		before := globalNames(st.L)
		sbBefore := tableKeys(st.L.GetGlobal("sysbench").(*lua.LTable))
		st.openLibs(lib)
		added := diff(globalNames(st.L), before)
		added = append(added, diff(tableKeys(st.L.GetGlobal("sysbench").(*lua.LTable)), sbBefore)...)
		if len(added) == 0 {
			t.Errorf("library %b defines no global", lib)
		}
		for _, name := range added {
			if libNames[name]&lib == 0 {
				t.Errorf("opening library %b defines %s, which does not open it", lib, name)
			}
		}
		th.Close()
	}
}

func globalNames(L *lua.LState) map[string]bool { return tableKeys(L.G.Global) }

func tableKeys(t *lua.LTable) map[string]bool {
	m := map[string]bool{}
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			m[string(s)] = true
		}
	})
	return m
}

func diff(after, before map[string]bool) []string {
	var d []string
	for k := range after {
		if !before[k] {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}

// TestDiskModules: the modules a script required from the disk are
// listed with their files (sbgo kube's tests show that bundled ones are
// not).
func TestDiskModules(t *testing.T) {
	s := loadScriptFile(t, "require('helper')\npcall(require, 'missing')\n", map[string]string{"helper.lua": "return {}\n"}, io.Discard)
	got := s.DiskModules()
	if len(got) != 1 || filepath.Base(got["helper"]) != "helper.lua" {
		t.Errorf("DiskModules() = %v, want helper alone", got)
	}
}
