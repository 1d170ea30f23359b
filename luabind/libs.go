package luabind

import (
	lua "github.com/yuin/gopher-lua"
)

// With --threads in the thousands, worker states are most of sbgo's
// memory, and gopher-lua gives every table with string keys two Go maps
// (one for lookups, one for iteration order), so each library costs a few
// KB in every state. The libraries scripts seldom use are therefore
// optional in worker states: io, os, debug, coroutine, LuaJIT's bit, ffi
// and jit, and the 0.5 API's globals. A worker state opens one when the
// code it runs names it: when a string constant of any chunk loaded so far
// (the script and the modules it required) holds one of the library's
// names as a word. A module that a worker requires later opens what it
// names before it runs. Code that can reach globals by a computed name
// (_G, getfenv, setfenv, debug, load, loadstring, loadfile, dofile,
// module) opens everything, and so does the main state, whose code
// (init, done, prepare, help, commands) may do anything. Scripts see the
// same globals as before wherever they look them up by name.

// libSet is a set of optional libraries.
type libSet uint8

const (
	libIO libSet = 1 << iota
	libOS
	libDebug
	libCoroutine
	libLuaJIT // bit, ffi and jit
	libLegacy // the 0.5 API: db_*, sb_rand*, thread_id, sysbench.db, ...

	libAll = libIO | libOS | libDebug | libCoroutine | libLuaJIT | libLegacy
)

// libNames maps a word found in a chunk's constants to the libraries it
// asks for.
var libNames = func() map[string]libSet {
	m := map[string]libSet{
		"io":        libIO,
		"os":        libOS,
		"coroutine": libCoroutine,
		"bit":       libLuaJIT,
		"ffi":       libLuaJIT,
		"jit":       libLuaJIT,
	}
	for _, name := range []string{"_G", "getfenv", "setfenv", "debug", "load", "loadstring", "loadfile", "dofile", "module"} {
		m[name] = libAll
	}
	for _, name := range legacyNames {
		m[name] |= libLegacy
	}
	return m
}()

// libsNamedBy returns the optional libraries that the constants of p and
// of the functions nested in it name.
func libsNamedBy(p *lua.FunctionProto) libSet {
	var libs libSet
	for _, c := range p.Constants {
		if s, ok := c.(lua.LString); ok {
			libs |= libsInText(string(s))
		}
	}
	for _, sub := range p.FunctionPrototypes {
		libs |= libsNamedBy(sub)
	}
	return libs
}

// libsInText returns the libraries named by the identifier-like words of
// text. A constant is usually one name, but it may also be Lua source
// that is compiled later (loadstring's argument, say) or SQL; reading
// every word keeps the check on the safe side.
func libsInText(text string) libSet {
	var libs libSet
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		libs |= libNames[text[i:j]]
		i = j
	}
	return libs
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// standardLibs are gopher-lua's libraries in the order its OpenLibs uses
// (it decides the order of pairs(_G)); opt is 0 for those every state
// has. gopher-lua's channel library is left out: LuaJIT has none.
var standardLibs = []struct {
	name string
	open lua.LGFunction
	opt  libSet
}{
	{lua.LoadLibName, lua.OpenPackage, 0},
	{lua.BaseLibName, lua.OpenBase, 0},
	{lua.TabLibName, lua.OpenTable, 0},
	{lua.IoLibName, lua.OpenIo, libIO},
	{lua.OsLibName, lua.OpenOs, libOS},
	{lua.StringLibName, lua.OpenString, 0},
	{lua.MathLibName, lua.OpenMath, 0},
	{lua.DebugLibName, lua.OpenDebug, libDebug},
	{lua.CoroutineLibName, lua.OpenCoroutine, libCoroutine},
}

// openStandardLibs opens the standard libraries every state has and the
// optional ones of want, and returns the optional ones it opened. Once
// the script has started (late), a library whose global name the script
// has taken for something else stays closed.
func (st *state) openStandardLibs(want libSet, late bool) libSet {
	L := st.L
	var opened libSet
	for _, lib := range standardLibs {
		if lib.opt == 0 && late || lib.opt != 0 && want&lib.opt == 0 {
			continue
		}
		if late && L.GetGlobal(lib.name) != lua.LNil {
			continue
		}
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
		opened |= lib.opt
	}
	return opened
}

// openStandIns installs what comes with the optional libraries of libs
// besides gopher-lua's own: the LuaJIT stand-ins of io and os, the
// modules bit, ffi and jit, and the 0.5 API. The sysbench table must
// exist.
func (st *state) openStandIns(libs libSet) {
	L := st.L
	if libs&libIO != 0 {
		st.compat.openIO(L)
	}
	if libs&libOS != 0 {
		st.compat.patchOS(L)
	}
	if libs&libLuaJIT != 0 {
		st.compat.openModules(L)
	}
	if libs&libLegacy != 0 {
		st.openLegacy()
	}
}

// openLibs opens the optional libraries of want that st has not opened
// yet, after the script has started: a library whose global name the
// script has taken for something else stays closed, and the 0.5 API sets
// only the globals that are still nil.
func (st *state) openLibs(want libSet) {
	missing := want &^ st.libs
	if missing == 0 {
		return
	}
	st.libs |= missing
	opened := st.openStandardLibs(missing, true)
	st.openStandIns(opened | missing&(libLuaJIT|libLegacy))
}
