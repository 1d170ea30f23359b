package luabind

import (
	"io"
	"math"
	"os"
	"runtime/metrics"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// sysbench runs its scripts on LuaJIT 2.1.0-beta3; sbgo runs them on
// gopher-lua, a Lua 5.1 interpreter that differs in the places scripts and
// sysbench's expected outputs notice: number formatting, string.format,
// tonumber, math.random, load, os.clock, and the LuaJIT-only modules bit,
// ffi and jit. openLuaJITCompat installs stand-ins that behave like
// LuaJIT's, checked against /usr/bin/luajit. The `%` and `..` operators
// and the error of a call to a non-function are LuaJIT's in every state
// (vmpatch.go).
//
// What cannot be changed without forking gopher-lua, and so still differs:
//   - Library code that reads a number as a string with gopher-lua's own
//     rules (string.sub(1/3, 1), string.len(1e15)) gets Go's text of it;
//     tostring, print, io.write, string.format, string.rep and
//     table.concat are replaced and print numbers as LuaJIT does.
//   - A uint64_t value compares with == and < only against another
//     uint64_t value (Lua 5.1 calls __eq and __lt only for operands of the
//     same type); LuaJIT also compares it with numbers.
//   - `1ULL` literals do not parse, and a -0.0 literal in a function that
//     also has a 0 constant becomes 0 (the compiler merges the two).
//   - __gc never runs, so newproxy finalizers do not either.

// CompatEnv is what the LuaJIT stand-ins need from the worker that owns
// the state.
type CompatEnv struct {
	// Out receives print, io.write, io.stdout:write and ffi.C.printf (the
	// engine's stdout). If several states share it, it must be safe for
	// concurrent use. nil means os.Stdout.
	Out io.Writer
	// CounterInc implements ffi.C.sb_counter_inc(tid, kind); nil makes it
	// a no-op. The tid argument is ignored: a state belongs to one worker.
	CounterInc func(kind int)
	// Sleep implements ffi.C.usleep and ffi.C.sleep; nil means time.Sleep.
	// The engine can pass one that returns early when the run stops.
	Sleep func(d time.Duration)
}

// openLuaJITCompat installs all the LuaJIT stand-ins into L: those of the
// base, string, table and math libraries, those of io and os when they
// are open, and the modules bit, ffi and jit. Call it once per state,
// after the standard libraries are open and before any script runs.
func openLuaJITCompat(L *lua.LState, env CompatEnv) *compatState {
	c := newCompatState(L, env)
	c.openIO(L)
	c.patchOS(L)
	c.openModules(L)
	return c
}

// newCompatState installs the stand-ins of the libraries every state has
// (base, string, table, math); those of the optional libraries come with
// them (openIO, patchOS, openModules).
func newCompatState(L *lua.LState, env CompatEnv) *compatState {
	if env.Out == nil {
		env.Out = os.Stdout
	}
	if env.Sleep == nil {
		env.Sleep = time.Sleep
	}
	c := &compatState{env: env}
	c.rng.seed(0) // LuaJIT's unseeded generator: identical in every state

	L.SetGlobal("tostring", L.NewFunction(ljToString))
	c.tostring = L.GetGlobal("tostring")
	L.SetGlobal("print", L.NewFunction(c.print))
	L.SetGlobal("tonumber", L.NewFunction(leafFunction(c.toNumber)))
	L.SetGlobal("ipairs", L.NewClosure(ipairsStart, L.NewFunction(c.ipairsNext)))
	L.SetGlobal("load", L.NewFunction(ljLoad))
	L.SetGlobal("loadstring", L.NewFunction(ljLoadString))
	L.SetGlobal("newproxy", L.NewFunction(c.newproxy))

	if str, ok := L.GetGlobal("string").(*lua.LTable); ok {
		str.RawSetString("format", L.NewFunction(leafFunction(c.strFormat)))
		str.RawSetString("rep", L.NewFunction(ljStringRep))
		str.RawSetString("gfind", lua.LNil) // a Lua 5.0 name LuaJIT dropped
	}
	if tbl, ok := L.GetGlobal("table").(*lua.LTable); ok {
		tbl.RawSetString("unpack", lua.LNil) // scripts test it to detect 5.2+
		tbl.RawSetString("foreach", L.NewFunction(tableForeach))
		tbl.RawSetString("foreachi", L.NewFunction(tableForeachi))
		tbl.RawSetString("move", L.NewFunction(tableMove))
		tbl.RawSetString("concat", L.NewFunction(ljTableConcat))
		tbl.RawSetString("sort", L.NewFunction(ljTableSort))
	}
	L.SetGlobal("gcinfo", L.NewFunction(gcinfo))
	L.SetGlobal("collectgarbage", L.NewFunction(collectGarbage))
	L.SetGlobal("_GOPHER_LUA_VERSION", lua.LNil)
	L.SetGlobal("_printregs", lua.LNil)
	if m, ok := L.GetGlobal("math").(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(c.mathRandom))
		m.RawSetString("randomseed", L.NewFunction(c.mathRandomSeed))
		m.RawSetString("mod", lua.LNil)
		m.RawSetString("huge", lua.LNumber(math.Inf(1))) // gopher-lua has MaxFloat64
	}
	return c
}

// patchOS gives the os library LuaJIT's os.clock (process CPU time).
func (c *compatState) patchOS(L *lua.LState) {
	if osTable, ok := L.GetGlobal("os").(*lua.LTable); ok {
		osTable.RawSetString("clock", L.NewFunction(osClock))
	}
}

// openModules opens bit, ffi and jit: LuaJIT opens bit and jit as globals
// and preloads them, as it does ffi, which sysbench's own Lua code also
// makes a global. A global of the same name that a script has set stays.
func (c *compatState) openModules(L *lua.LState) {
	var loaded *lua.LTable
	if pkg, ok := L.GetGlobal("package").(*lua.LTable); ok {
		loaded, _ = pkg.RawGetString("loaded").(*lua.LTable)
	}
	for _, m := range []struct {
		name string
		open func() *lua.LTable
	}{
		{"bit", func() *lua.LTable { return newBitModule(L) }},
		{"ffi", func() *lua.LTable { return newFFIModule(L, &c.env) }},
		{"jit", func() *lua.LTable { return newJITModule(L) }},
	} {
		if L.GetGlobal(m.name) != lua.LNil {
			continue
		}
		mod := m.open()
		L.SetGlobal(m.name, mod)
		if loaded != nil {
			loaded.RawSetString(m.name, mod)
		}
	}
}

// compatState is the per-state data of the stand-ins.
type compatState struct {
	env       CompatEnv
	rng       jitRandom
	tostring  lua.LValue  // the tostring installed here, to spot a replaced one
	numbers   numberBoxes // tonumber's and ipairs' numbers
	formatted stringArena // string.format's results
	proxies   map[*lua.LTable]bool
	stdout    *lua.LUserData // io.stdout
	ioOutput  lua.LValue     // gopher-lua's io.output, to find the default output
	ioFlush   lua.LValue     // gopher-lua's io.flush
	fileW     lua.LValue     // gopher-lua's file:write
	fileF     lua.LValue     // gopher-lua's file:flush
	outBuf    []byte         // see takeBuffer
}

// takeBuffer lends the state's output buffer to print and io.write, so
// that they do not allocate one per call (a buffer handed to an
// io.Writer escapes). A nested call, from a __tostring that prints, finds
// none and starts a new one.
func (c *compatState) takeBuffer() []byte {
	b := c.outBuf
	c.outBuf = nil
	return b[:0]
}

// returnBuffer gives the buffer back unless it grew large.
func (c *compatState) returnBuffer(b []byte) {
	if cap(b) <= 64<<10 {
		c.outBuf = b[:0]
	}
}

// ljArgError raises LuaJIT's "bad argument #n to 'fname' (msg)".
func ljArgError(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

// ljTypeError raises "bad argument #n to 'fname' (want expected, got T)"
// with T "no value" for a missing argument, as LuaJIT words it.
func ljTypeError(L *lua.LState, n int, fname, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	L.RaiseError("bad argument #%d to '%s' (%s expected, got %s)", n, fname, want, got)
}

// ljCheckNumber reads argument n as a number; numeric strings convert.
func ljCheckNumber(L *lua.LState, n int, fname string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := parseLuaNumber(string(v)); ok {
			return f
		}
	}
	ljTypeError(L, n, fname, "number")
	return 0
}

// ljCheckInt reads argument n as LuaJIT's lj_lib_checkint does: a number
// truncated to int32, out-of-range values becoming math.MinInt32.
func ljCheckInt(L *lua.LState, n int, fname string) int {
	return int(truncInt32(ljCheckNumber(L, n, fname)))
}

// toStringMeta calls v's __tostring metamethod, if it has one.
func toStringMeta(L *lua.LState, v lua.LValue) (lua.LValue, bool) {
	fn := L.GetMetaField(v, "__tostring")
	if fn == lua.LNil {
		return nil, false
	}
	L.Push(fn)
	L.Push(v)
	L.Call(1, 1)
	r := L.Get(-1)
	L.Pop(1)
	return r, true
}

// appendToString appends tostring(v) as string.format's %s does: numbers
// as LuaJIT prints them, the result of __tostring when the value has one,
// else gopher-lua's text ("table: 0x...").
func appendToString(L *lua.LState, b []byte, v lua.LValue) []byte {
	switch x := v.(type) {
	case lua.LString:
		return append(b, x...)
	case lua.LNumber:
		return appendLuaNumber(b, float64(x))
	case *lua.LUserData:
		if u, ok := x.Value.(uint64); ok {
			return appendUint64Text(b, u)
		}
	}
	if r, ok := toStringMeta(L, v); ok {
		v = r
		if n, ok := r.(lua.LNumber); ok {
			return appendLuaNumber(b, float64(n))
		}
	}
	return append(b, v.String()...)
}

// luaToString is tostring(v) as a Go string, as %s formats it.
func luaToString(L *lua.LState, v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	}
	var buf [64]byte
	return string(appendToString(L, buf[:0], v))
}

// ljToString is tostring(v). Like LuaJIT it returns whatever __tostring
// returns, string or not.
func ljToString(L *lua.LState) int {
	if L.GetTop() < 1 {
		ljArgError(L, 1, "tostring", "value expected")
	}
	switch v := L.Get(1).(type) {
	case lua.LString:
		L.Push(v)
	case lua.LNumber:
		L.Push(lua.LString(luaNumberString(float64(v))))
	default:
		if r, ok := toStringMeta(L, v); ok {
			L.Push(r)
		} else {
			L.Push(lua.LString(v.String()))
		}
	}
	return 1
}

// print writes its arguments to env.Out, tab-separated, with a newline,
// in one Write. Like LuaJIT it calls the global tostring on every argument
// when a script has replaced it, and insists on a string (or number) from
// it or from __tostring.
func (c *compatState) print(L *lua.LState) int {
	b := c.takeBuffer()
	top := L.GetTop()
	tostring := L.GetGlobal("tostring")
	builtin := tostring == c.tostring
	for i := 1; i <= top; i++ {
		if i > 1 {
			b = append(b, '\t')
		}
		v := L.Get(i)
		var r lua.LValue
		if builtin {
			switch x := v.(type) {
			case lua.LString, lua.LNumber:
				b = appendToString(L, b, v)
				continue
			case *lua.LUserData:
				if u, ok := x.Value.(uint64); ok {
					b = appendUint64Text(b, u)
					continue
				}
			}
			var ok bool
			if r, ok = toStringMeta(L, v); !ok {
				b = append(b, v.String()...)
				continue
			}
		} else {
			L.Push(tostring)
			L.Push(v)
			L.Call(1, 1)
			r = L.Get(-1)
			L.Pop(1)
		}
		switch x := r.(type) {
		case lua.LString:
			b = append(b, x...)
		case lua.LNumber:
			b = appendLuaNumber(b, float64(x))
		default:
			L.RaiseError("'tostring' must return a string to 'print'")
		}
	}
	b = append(b, '\n')
	c.env.Out.Write(b)
	c.returnBuffer(b)
	return 0
}

// toNumber is tonumber(v [, base]). A string's number is boxed from the
// state's chunk: scripts convert every numeric column they read.
func (c *compatState) toNumber(L *lua.LState) int {
	if L.GetTop() < 1 {
		ljArgError(L, 1, "tonumber", "value expected")
	}
	if L.Get(2) != lua.LNil {
		base := ljCheckInt(L, 2, "tonumber")
		if base != 10 {
			if base < 2 || base > 36 {
				ljArgError(L, 2, "tonumber", "base out of range")
			}
			if f, ok := parseIntBase(formatString(L, 1, "tonumber"), base); ok {
				L.Push(lua.LNumber(f))
			} else {
				L.Push(lua.LNil)
			}
			return 1
		}
	}
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		L.Push(v)
		return 1
	case lua.LString:
		if f, ok := parseLuaNumber(string(v)); ok {
			L.Push(c.numbers.box(f))
			return 1
		}
	case *lua.LUserData:
		if u, ok := v.Value.(uint64); ok {
			L.Push(lua.LNumber(float64(u)))
			return 1
		}
	}
	L.Push(lua.LNil)
	return 1
}

// ipairsStart is ipairs(t), gopher-lua's with an iterator (its upvalue)
// that boxes the index from the state's chunk, where gopher-lua's boxes
// it twice per step.
func ipairsStart(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(t)
	L.Push(lua.LNumber(0))
	return 3
}

// ipairsNext is the iterator ipairs returns: the next index and value, or
// nothing at the first nil.
func (c *compatState) ipairsNext(L *lua.LState) int {
	t := L.CheckTable(1)
	i := L.CheckInt(2) + 1
	v := t.RawGetInt(i)
	if v == lua.LNil {
		return 0
	}
	L.Push(c.numbers.box(float64(i)))
	L.Push(v)
	return 2
}

// ljLoad is load(chunk [, chunkname [, mode [, env]]]): LuaJIT takes the
// chunk as a string as well as a reader function.
func ljLoad(L *lua.LState) int {
	var src, name string
	switch v := L.Get(1).(type) {
	case lua.LString, lua.LNumber:
		src = formatString(L, 1, "load")
		name = src
	case *lua.LFunction:
		var sb strings.Builder
		for {
			L.Push(v)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			if piece == lua.LNil {
				break
			}
			s, ok := piece.(lua.LString)
			if !ok {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
			if s == "" {
				break
			}
			sb.WriteString(string(s))
		}
		src = sb.String()
		name = "=(load)"
	default:
		ljTypeError(L, 1, "load", "function")
	}
	if s, ok := L.Get(2).(lua.LString); ok {
		name = string(s)
	}
	return loadChunk(L, src, name, L.Get(4))
}

// ljLoadString is loadstring(s [, chunkname]).
func ljLoadString(L *lua.LState) int {
	src := formatString(L, 1, "loadstring")
	name := src
	if s, ok := L.Get(2).(lua.LString); ok {
		name = string(s)
	}
	return loadChunk(L, src, name, lua.LNil)
}

// loadChunk compiles src and returns the function, or nil and the error.
func loadChunk(L *lua.LState, src, name string, env lua.LValue) int {
	fn, err := L.Load(strings.NewReader(src), chunkID(name))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	if t, ok := env.(*lua.LTable); ok {
		fn.Env = t
	}
	L.Push(fn)
	return 1
}

// chunkID turns a chunk name into the source name LuaJIT shows in error
// messages: "=name" as name, "@file" as file (the tail if long), and
// source text as [string "first line"], shortened with "...".
func chunkID(name string) string {
	const idSize = 60 - 1 // LuaJIT's LUA_IDSIZE less the terminating NUL
	switch {
	case strings.HasPrefix(name, "="):
		if len(name)-1 > idSize {
			return name[1 : 1+idSize]
		}
		return name[1:]
	case strings.HasPrefix(name, "@"):
		if len(name)-1 > idSize {
			return "..." + name[len(name)-(idSize-3):]
		}
		return name[1:]
	}
	const room = idSize - len(`[string "`) - len(`"]`) // 48
	line := name
	cut := false
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line, cut = line[:i], true
	}
	if len(line) > room {
		line, cut = line[:room-3], true
	}
	if cut {
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
}

// newproxy(true | false | proxy) returns a userdata: with a fresh
// metatable, without one, or sharing the metatable of another proxy.
func (c *compatState) newproxy(L *lua.LState) int {
	ud := L.NewUserData()
	switch v := L.Get(1).(type) {
	case lua.LBool:
		if v {
			mt := L.CreateTable(0, 4)
			if c.proxies == nil {
				c.proxies = make(map[*lua.LTable]bool)
			}
			c.proxies[mt] = true
			ud.Metatable = mt
		}
	case *lua.LUserData:
		mt, ok := v.Metatable.(*lua.LTable)
		if !ok || !c.proxies[mt] {
			ljArgError(L, 1, "newproxy", "boolean or proxy expected")
		}
		ud.Metatable = mt
	default:
		if L.GetTop() >= 1 && v != lua.LNil {
			ljArgError(L, 1, "newproxy", "boolean or proxy expected")
		}
	}
	L.Push(ud)
	return 1
}

// ljStringRep is string.rep(s, n [, sep]), with LuaJIT's separator.
func ljStringRep(L *lua.LState) int {
	s := formatString(L, 1, "rep")
	n := ljCheckInt(L, 2, "rep")
	sep := ""
	if L.Get(3) != lua.LNil {
		sep = formatString(L, 3, "rep")
	}
	if n <= 0 {
		L.Push(lua.LString(""))
		return 1
	}
	total := int64(len(s))*int64(n) + int64(len(sep))*int64(n-1)
	if total >= 1<<31 {
		L.RaiseError("not enough memory")
	}
	if sep == "" {
		L.Push(lua.LString(strings.Repeat(s, n)))
		return 1
	}
	var sb strings.Builder
	sb.Grow(int(total))
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(s)
	}
	L.Push(lua.LString(sb.String()))
	return 1
}

// tableForeach is table.foreach(t, f), a Lua 5.0 function LuaJIT keeps:
// f(k, v) for every pair until f returns a value, which is returned.
func tableForeach(L *lua.LState) int {
	t := ljCheckTable(L, 1, "foreach")
	f := ljCheckFunction(L, 2, "foreach")
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableForeachi is table.foreachi(t, f): f(i, t[i]) for i = 1..#t until
// f returns a value, which is returned.
func tableForeachi(L *lua.LState) int {
	t := ljCheckTable(L, 1, "foreachi")
	f := ljCheckFunction(L, 2, "foreachi")
	for i, n := 1, t.Len(); i <= n; i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(t.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableMove is table.move(a1, f, e, t [, a2]) from Lua 5.3, which LuaJIT
// 2.1 has: a2[t..] = a1[f..e], copying backwards when the ranges overlap
// forwards; it returns a2 (a1 by default).
func tableMove(L *lua.LState) int {
	src := ljCheckTable(L, 1, "move")
	from := ljCheckInt(L, 2, "move")
	to := ljCheckInt(L, 3, "move")
	at := ljCheckInt(L, 4, "move")
	dst := src
	if L.Get(5) != lua.LNil {
		dst = ljCheckTable(L, 5, "move")
	}
	if to >= from {
		if at > from && at <= to && dst == src {
			for i := to - from; i >= 0; i-- {
				L.SetTable(dst, lua.LNumber(at+i), L.GetTable(src, lua.LNumber(from+i)))
			}
		} else {
			for i := 0; i <= to-from; i++ {
				L.SetTable(dst, lua.LNumber(at+i), L.GetTable(src, lua.LNumber(from+i)))
			}
		}
	}
	L.Push(dst)
	return 1
}

// collectGarbage is collectgarbage([opt [, arg]]). All Lua states share
// Go's garbage collector, which runs by itself: "collect" and "step" do
// not force a collection (a script calling it per event from thousands
// of workers would stall the process), and "count" reports the kilobytes
// of live Go heap, process-wide, read without stopping the world.
func collectGarbage(L *lua.LState) int {
	switch opt := L.OptString(1, "collect"); opt {
	case "count":
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(sample)
		var kb float64
		if sample[0].Value.Kind() == metrics.KindUint64 {
			kb = float64(sample[0].Value.Uint64()) / 1024
		}
		L.Push(lua.LNumber(kb))
		return 1
	case "step":
		L.Push(lua.LFalse)
		return 1
	case "setpause", "setstepmul":
		L.Push(lua.LNumber(200))
		return 1
	case "collect", "stop", "restart":
		L.Push(lua.LNumber(0))
		return 1
	default:
		L.ArgError(1, "invalid option '"+opt+"'")
		return 0
	}
}

// gcinfo is gcinfo(), the kilobytes in use, as collectgarbage("count")
// truncated.
func gcinfo(L *lua.LState) int {
	L.Push(L.GetGlobal("collectgarbage"))
	L.Push(lua.LString("count"))
	L.Call(1, 1)
	kb, _ := L.Get(-1).(lua.LNumber)
	L.Pop(1)
	L.Push(lua.LNumber(math.Floor(float64(kb))))
	return 1
}

// ljCheckTable reads argument n as a table.
func ljCheckTable(L *lua.LState, n int, fname string) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		ljTypeError(L, n, fname, "table")
	}
	return t
}

// ljCheckFunction reads argument n as a function.
func ljCheckFunction(L *lua.LState, n int, fname string) *lua.LFunction {
	f, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		ljTypeError(L, n, fname, "function")
	}
	return f
}

// osClock is os.clock(): the process's CPU time (user + system) in
// seconds, as C's clock() gives LuaJIT. gopher-lua returns wall time.
// processCPUTime asks each system its own way (cputime_*.go).
func osClock(L *lua.LState) int {
	sec, ok := processCPUTime()
	if !ok {
		sec = -1 // clock() reports failure as (clock_t)-1
	}
	L.Push(lua.LNumber(sec))
	return 1
}

// mathRandom is math.random([m [, n]]) computed in doubles as LuaJIT does,
// so ranges up to 2^63 work and math.random(0) returns 1.
func (c *compatState) mathRandom(L *lua.LState) int {
	d := c.rng.next()
	switch L.GetTop() {
	case 0:
	case 1:
		d = math.Floor(d*ljCheckNumber(L, 1, "random")) + 1
	default:
		lo := ljCheckNumber(L, 1, "random")
		hi := ljCheckNumber(L, 2, "random")
		d = math.Floor(d*(hi-lo+1)) + lo
	}
	L.Push(lua.LNumber(d))
	return 1
}

// mathRandomSeed is math.randomseed(x).
func (c *compatState) mathRandomSeed(L *lua.LState) int {
	c.rng.seed(ljCheckNumber(L, 1, "randomseed"))
	return 0
}

// jitRandom reproduces LuaJIT 2.1's math.random: L'Ecuyer's combined
// Tausworthe generator with four 64-bit components ("TW223"), whose 52
// top-quality bits fill the mantissa of a double in [1, 2). Reproducing
// it keeps the values scripts draw identical to sysbench's, where no one
// seeds math.random and every thread draws the same sequence.
type jitRandom struct{ gen [4]uint64 }

// jitRandomComponents lists each component's degree k, and the shifts q
// and s of its recurrence.
var jitRandomComponents = [4]struct{ k, q, s uint }{
	{63, 31, 18}, {58, 19, 28}, {55, 24, 7}, {47, 21, 8},
}

// next returns the next value in [0, 1).
func (r *jitRandom) next() float64 {
	var x uint64
	for i, c := range jitRandomComponents {
		z := r.gen[i]
		z = (((z << c.q) ^ z) >> (c.k - c.s)) ^ ((z & (^uint64(0) << (64 - c.k))) << c.s)
		r.gen[i] = z
		x ^= z
	}
	return math.Float64frombits(x&(1<<52-1)|0x3ff0000000000000) - 1
}

// seed derives the four components from d as LuaJIT's math.randomseed
// does: d runs through d*pi+e, each component takes the bits of the
// result, raised if needed so that its top k bits are not all zero, and
// the generator is stepped ten times.
func (r *jitRandom) seed(d float64) {
	if d != d {
		// x86's NaN (from 0/0) is 0xfff8...; Go's math.NaN differs in its
		// bits, which the seeding reads.
		d = math.Float64frombits(0xfff8000000000000)
	}
	for i, c := range jitRandomComponents {
		d = d*math.Pi + math.E
		u := math.Float64bits(d)
		if min := uint64(1) << (64 - c.k); u < min {
			u += min
		}
		r.gen[i] = u
	}
	for i := 0; i < 10; i++ {
		r.next()
	}
}

// openIO routes io.write, io.stdout:write and their flushes to env.Out.
// gopher-lua's stdout file writes to os.Stdout directly, which would
// bypass the engine's writer and reorder output.
func (c *compatState) openIO(L *lua.LState) {
	ioTable, ok := L.GetGlobal("io").(*lua.LTable)
	if !ok {
		return
	}
	c.stdout, _ = ioTable.RawGetString("stdout").(*lua.LUserData)
	c.ioOutput = ioTable.RawGetString("output")
	c.ioFlush = ioTable.RawGetString("flush")
	if c.stdout == nil || c.ioOutput.Type() != lua.LTFunction {
		return
	}
	ioTable.RawSetString("write", L.NewFunction(c.ioWrite))
	ioTable.RawSetString("flush", L.NewFunction(c.ioFlushDefault))
	if methods, ok := L.GetMetaField(c.stdout, "__index").(*lua.LTable); ok {
		c.fileW = methods.RawGetString("write")
		c.fileF = methods.RawGetString("flush")
		methods.RawSetString("write", L.NewFunction(c.fileWrite))
		methods.RawSetString("flush", L.NewFunction(c.fileFlush))
	}
}

// defaultOutput returns io.output(), the file io.write writes to.
func (c *compatState) defaultOutput(L *lua.LState) lua.LValue {
	L.Push(c.ioOutput)
	L.Call(0, 1)
	out := L.Get(-1)
	L.Pop(1)
	return out
}

// ioWrite is io.write(...): to env.Out while the default output is
// stdout. Numbers print as LuaJIT prints them; like LuaJIT 2.1.0-beta3 it
// returns true.
func (c *compatState) ioWrite(L *lua.LState) int {
	out := c.defaultOutput(L)
	if out != c.stdout {
		return c.writeToFile(L, out, 1)
	}
	return c.writeOut(L, 1, "write")
}

// fileWrite is file:write(...) with stdout sent to env.Out.
func (c *compatState) fileWrite(L *lua.LState) int {
	if L.Get(1) == c.stdout {
		return c.writeOut(L, 2, "write")
	}
	return c.writeToFile(L, L.Get(1), 2)
}

// writeOut writes the string and number arguments from position first on
// to env.Out.
func (c *compatState) writeOut(L *lua.LState, first int, fname string) int {
	b := c.takeBuffer()
	for i := first; i <= L.GetTop(); i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = appendLuaNumber(b, float64(v))
		default:
			c.env.Out.Write(b) // LuaJIT has written the arguments before
			// LuaJIT does not count self in a method call's argument
			// numbers: io.stdout:write({}) complains about #1.
			L.RaiseError("bad argument #%d to '%s' (string expected, got %s)", i-first+1, fname, v.Type().String())
		}
	}
	_, err := c.env.Out.Write(b)
	c.returnBuffer(b)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

// writeToFile calls gopher-lua's file:write on file with the arguments
// from position first on, numbers formatted as LuaJIT formats them.
func (c *compatState) writeToFile(L *lua.LState, file lua.LValue, first int) int {
	top := L.GetTop()
	L.Push(c.fileW)
	L.Push(file)
	for i := first; i <= top; i++ {
		v := L.Get(i)
		if n, ok := v.(lua.LNumber); ok {
			v = lua.LString(luaNumberString(float64(n)))
		}
		L.Push(v)
	}
	L.Call(top-first+2, lua.MultRet)
	return L.GetTop() - top
}

// flushOut flushes env.Out when it buffers.
func (c *compatState) flushOut(L *lua.LState) int {
	if f, ok := c.env.Out.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
	}
	L.Push(lua.LTrue)
	return 1
}

// ioFlushDefault is io.flush().
func (c *compatState) ioFlushDefault(L *lua.LState) int {
	if c.defaultOutput(L) == c.stdout {
		return c.flushOut(L)
	}
	top := L.GetTop()
	L.Push(c.ioFlush)
	L.Call(0, lua.MultRet)
	return L.GetTop() - top
}

// fileFlush is file:flush().
func (c *compatState) fileFlush(L *lua.LState) int {
	if L.Get(1) == c.stdout {
		return c.flushOut(L)
	}
	top := L.GetTop()
	L.Push(c.fileF)
	L.Push(L.Get(1))
	L.Call(1, lua.MultRet)
	return L.GetTop() - top
}

// newJITModule builds the jit table scripts feature-test. There is no JIT
// compiler here, so status() reports it off and on/off/flush do nothing.
func newJITModule(L *lua.LState) *lua.LTable {
	noop := L.NewFunction(func(*lua.LState) int { return 0 })
	t := L.CreateTable(0, 4)
	t.RawSetString("version", lua.LString("LuaJIT 2.1.0-beta3"))
	t.RawSetString("version_num", lua.LNumber(20100))
	t.RawSetString("os", lua.LString("Linux"))
	t.RawSetString("arch", lua.LString("x64"))
	t.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LFalse)
		return 1
	}))
	t.RawSetString("on", noop)
	t.RawSetString("off", noop)
	t.RawSetString("flush", noop)
	opt := L.CreateTable(0, 4)
	opt.RawSetString("start", noop)
	t.RawSetString("opt", opt)
	return t
}
