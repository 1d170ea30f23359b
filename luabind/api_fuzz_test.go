package luabind

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/db/dbtest"
	"sbgo/engine"
)

// FuzzSysbenchAPI calls a function of the Lua API with arguments of any
// type and number, in a fresh worker state of a script run against the
// dbtest driver, and checks that the call returns and that no Go panic
// comes out of it: a bad call must be a Lua error.
//
// The functions are found when the fuzzing starts (buildCatalog), so that
// new ones are covered without a change here: everything under the
// sysbench table, the ffi, bit and jit modules with ffi.C's functions,
// the stand-ins and legacy functions luabind puts among the globals and
// the standard libraries, and the methods and metamethods of the
// objects' metatables (connections, statements, results, uint64_t,
// files...). A method is called on a sample object of its type unless
// the input says otherwise.
//
// SBGO_FUZZ_CATALOG=1 with -v lists the functions.
//
// Inputs: the function's name (an unknown name picks one by its first
// bytes, so that every input calls something), a flags byte (the argument count
// in its low three bits; bit 3 leaves the sample object out), and the
// arguments' encoding (see fuzzArgs).
//
// The call is made with LState.PCall, not Lua's pcall: gopher-lua turns a
// Go panic inside a call into an error of type ApiErrorPanic, which
// Lua's pcall would hand back as a plain message.
func FuzzSysbenchAPI(f *testing.F) {
	h := newAPIHarness(f)
	for _, seed := range apiSeeds {
		f.Add(seed.name, seed.flags, seed.args)
	}
	f.Fuzz(func(t *testing.T, name string, flags uint8, args []byte) {
		e := h.entry(name)
		done := make(chan any, 1)
		var call string
		var err error
		go func() {
			defer func() { done <- recover() }()
			call, err = h.call(e, flags, args)
		}()
		select {
		case p := <-done:
			if p != nil {
				panic(p)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s did not return within a minute", e.name)
		}
		checkCallError(t, call, err)
	})
}

// checkCallError fails t when err, what calling call returned, is a Go
// panic or an error without a message.
func checkCallError(t *testing.T, call string, err error) {
	if err == nil {
		return
	}
	apiErr, ok := err.(*lua.ApiError)
	if !ok {
		t.Fatalf("%s: error %v (%T), want a Lua error", call, err, err)
	}
	if apiErr.Type == lua.ApiErrorPanic {
		t.Fatalf("%s: Go panic: %v\n%s", call, apiErr.Object, apiErr.StackTrace)
	}
	switch obj := apiErr.Object.(type) {
	case lua.LString:
		if obj == "" {
			t.Fatalf("%s: an empty error message", call)
		}
	case *lua.LTable: // sysbench's error tables, and fuzzFunctions'
	default:
		t.Fatalf("%s: error object %v (%s)", call, obj, obj.Type())
	}
}

// apiEntry is one function of the catalog.
type apiEntry struct {
	name string   // as a script reaches it, e.g. sysbench.rand.uniform, or @metatable.__index.method
	path []string // its keys from the globals table, or from the registry after "@"
	recv string   // the sample object a method is called on, or ""
	// clamp bounds the numbers passed at some argument positions
	// (receiver included): see apiClamps.
	clamp map[int]float64
}

// apiExcluded are functions the fuzzer does not call, by Go name: they
// run code from the disk (require and the loader behind it), which is
// not the API's own code, or loop for ever as sysbench's do
// (sb_rand_uniq(a, b) with a > b waits for a unique value in an empty
// range, as sysbench 0.5's does).
var apiExcluded = map[string]bool{
	"sbgo/luabind.luaRequire":         true,
	"sbgo/luabind.(*state).loader-fm": true,
	"sbgo/luabind.sbRandUniq":         true,
}

// apiClamps bound the arguments that legitimately make a call run for as
// long, or allocate as much, as they say: counts of repetitions, rows,
// statements and histogram buckets, string lengths, ranges of elements,
// and sleeps. A number beyond the bound (or a string Lua would read as
// one) is passed as the bound with its sign; other values pass as they
// are, so their type checks are still fuzzed.
var apiClamps = map[string]map[int]float64{
	"string.rep":              {2: 1024},
	"sysbench.rand.varstring": {2: 4096},
	"sysbench.histogram.new":  {1: 4096},
	"ffi.C.sleep":             {1: 0.001},
	"table.move":              {2: 1e5, 3: 1e5}, // copies e - f + 1 elements, as LuaJIT's
	"ffi.C.usleep":            {1: 1000},
	"@" + sqlConnType + ".__index._bulk_insert_random_rows": {2: 64},
	"@" + sqlStmtType + ".__index._execute_random":          {2: 64},
}

// apiObjects are the sample objects, by the metatable of their type, and
// the Lua that makes them in a worker state of apiScript.
var apiObjects = []struct{ typ, lua string }{
	{sqlDriverType, "sysbench.sql.driver()"},
	{sqlConnType, "o[1]:connect()"},
	{sqlStmtType, "o[2]:prepare('SELECT a, b FROM t WHERE id = ?')"},
	{sqlParamType, "o[3]:bind_create(sysbench.sql.type.INT)"},
	{sqlResultType, "o[2]:query('SELECT a, b FROM t')"},
	{histogramTypeName, "sysbench.histogram.new(10, 1, 100)"},
	{uint64TypeName, "sysbench.rand.uniform_uint64()"},
	{"FILE*", "io.stdout"},
	{"sysbench.stmt", "db_prepare('SELECT a, b FROM t WHERE id = ?')"},
	{"sysbench.rs", "(db_bind_param(o[9], {1}) or db_execute(o[9]))"},
}

// apiScript is the script the worker states run: it declares an option
// (it is not a legacy script) and a command, and names _G, so that a
// worker state opens every optional library and the 0.5 API (libs.go).
const apiScript = `
sysbench.cmdline.options = {x = {"an option", 1}}
sysbench.cmdline.commands = {noop = {function() return true end}}
local everything = _G
function event() end
`

// apiHarness is the loaded script and the catalog of functions.
type apiHarness struct {
	script  *Script
	opts    *engine.Options
	objects *lua.FunctionProto // returns the sample objects, in apiObjects' order
	entries []apiEntry
	byName  map[string]int
}

func newAPIHarness(f *testing.F) *apiHarness {
	path := filepath.Join(f.TempDir(), "api.lua")
	if err := os.WriteFile(path, []byte(apiScript), 0o644); err != nil {
		f.Fatal(err)
	}
	h := &apiHarness{opts: apiOptions(f, path)}
	argv := []string{"sbgo", path, "run"}
	s, err := Load(Config{TestName: path, Command: "run", Argv: argv, Out: io.Discard,
		Log: engine.NewLogger(io.Discard, 3), Options: h.opts, VersionString: "sbgo fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	decl, _ := s.DeclaredOptions()
	if err := h.opts.Register(decl...); err != nil {
		f.Fatal(err)
	}
	s.Configure(DefaultRandOptions(), 1)
	h.script = s
	src := "local o = {}\n"
	for i, obj := range apiObjects {
		src += fmt.Sprintf("o[%d] = %s\n", i+1, obj.lua)
	}
	if h.objects, err = compile([]byte(src+"return o\n"), "=objects"); err != nil {
		f.Fatal(err)
	}
	h.buildCatalog(f)
	return h
}

// apiOptions are the options of a run of the script at path with the
// dbtest driver. Every driver's options are registered, as the CLI does;
// the mysql driver runs dry and the pgsql one is given a socket directory
// that does not exist, so that a script choosing them reaches no server.
func apiOptions(tb testing.TB, path string) *engine.Options {
	opts := engine.NewGeneralOptions()
	for _, factory := range db.Factories() {
		if err := opts.Register(factory.Options()...); err != nil {
			tb.Fatal(err)
		}
	}
	args := []string{"--db-driver=" + dbtest.Name, "--mysql-dry-run=on", "--pgsql-host=/nonexistent", path, "run"}
	if _, err := engine.ParseCommandLine(args, opts); err != nil {
		tb.Fatal(err)
	}
	return opts
}

// apiDrivers are the drivers a fuzzed call may create (see apiOptions):
// the name of any other is passed as dbtest's, so that no call reaches a
// server or a file.
var apiDrivers = []string{dbtest.Name, "mysql", "pgsql"}

// newState makes a worker state on a new dbtest server, and its sample
// objects; done closes both.
func (h *apiHarness) newState() (st *state, objects *lua.LTable, done func(), err error) {
	srv := dbtest.NewServer()
	apiRules(srv)
	id := strings.TrimPrefix(srv.Option(), "--dbtest-server=")
	if err := h.opts.Set("dbtest-server", &id); err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	// The drivers are created once per script; this one is for srv.
	h.script.drivers = drivers{}
	th, err := h.script.NewThread(1, nil)
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	done = func() { th.Close(); srv.Close() }
	st = th.(*thread).st
	st.L.Options.IncludeGoStackTrace = true
	st.L.Push(st.L.NewFunctionFromProto(h.objects))
	if err := st.L.PCall(0, 1, nil); err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("making the sample objects: %w", err)
	}
	objects = st.L.Get(-1).(*lua.LTable)
	st.L.Pop(1)
	return st, objects, done, nil
}

// apiRules make the dbtest server answer statements by their first word.
func apiRules(srv *dbtest.Server) {
	srv.On(dbtest.Prefix("SELECT"), dbtest.Reply{Columns: []string{"a", "b"}, Rows: [][]any{{"x", nil}, {2, "y"}}})
	srv.On(dbtest.Prefix("UPDATE"), dbtest.Reply{Affected: 1})
	srv.On(dbtest.Prefix("ERR"), dbtest.Reply{Err: dbtest.Err(db.Ignorable, 1213, "Deadlock found")})
	srv.On(dbtest.Prefix("FATAL"), dbtest.Reply{Err: dbtest.Err(db.Fatal, 1064, "syntax error")})
	srv.On(dbtest.Prefix("LOST"), dbtest.Reply{Err: dbtest.Err(db.Reconnect, 2013, "Lost connection")})
	srv.On(dbtest.Prefix("CALL"), dbtest.Reply{Columns: []string{"a"}, Rows: [][]any{{"1"}},
		More: []dbtest.Reply{{Affected: 2}, {Columns: []string{"b"}, Rows: [][]any{{nil}}}}})
	srv.Add(&dbtest.Rule{Match: dbtest.Prefix("BAD"), Prepare: true,
		Reply: dbtest.Reply{Err: dbtest.Err(db.Fatal, 1064, "cannot prepare")}})
}

// buildCatalog walks a worker state for the functions to call. The
// state's sample objects are made first, which creates the metatables
// that are made on first use (uint64_t's).
func (h *apiHarness) buildCatalog(tb testing.TB) {
	st, _, done, err := h.newState()
	if err != nil {
		tb.Fatal(err)
	}
	defer done()
	w := &apiWalk{L: st.L, seen: map[*lua.LFunction]bool{}}
	globals := st.L.Get(lua.GlobalsIndex).(*lua.LTable)
	w.table([]string{"sysbench"}, globals.RawGetString("sysbench"), "", 5)
	for _, name := range []string{"ffi", "bit", "jit"} {
		w.table([]string{name}, globals.RawGetString(name), "", 2)
	}
	for _, name := range strings.Split(ffiSupported, ", ") {
		w.add([]string{"ffi", "C", name}, st.L.GetField(st.L.GetField(globals, "ffi"), "C").(*lua.LUserData), "")
	}
	w.table(nil, globals, "", 1)
	for _, name := range []string{"string", "table", "math", "os", "io"} {
		w.table([]string{name}, globals.RawGetString(name), "", 1)
	}
	w.registry(st.L.Get(lua.RegistryIndex).(*lua.LTable))
	slices.SortFunc(w.entries, func(a, b apiEntry) int { return strings.Compare(a.name, b.name) })
	h.entries = w.entries
	h.byName = map[string]int{}
	for i, e := range h.entries {
		h.byName[e.name] = i
	}
	if os.Getenv("SBGO_FUZZ_CATALOG") != "" {
		for _, e := range h.entries {
			tb.Logf("%s (on %q, clamp %v)", e.name, e.recv, e.clamp)
		}
	}
}

// apiWalk collects the catalog's entries.
type apiWalk struct {
	L       *lua.LState
	seen    map[*lua.LFunction]bool
	entries []apiEntry
}

// table adds the functions in v, a table, and in the tables under it
// down to depth levels, in the order of their keys.
func (w *apiWalk) table(path []string, v lua.LValue, recv string, depth int) {
	t, ok := v.(*lua.LTable)
	if !ok || depth == 0 {
		return
	}
	for _, key := range sortedKeys(t) {
		sub := append(slices.Clone(path), key)
		switch x := t.RawGetString(key).(type) {
		case *lua.LFunction:
			w.add(sub, x, recv)
		case *lua.LTable:
			w.table(sub, x, recv, depth-1)
		}
	}
}

// registry adds the functions of the metatables in the registry, and of
// their __index tables; recv is the sample object of the type, if any.
func (w *apiWalk) registry(reg *lua.LTable) {
	for _, key := range sortedKeys(reg) {
		recv := ""
		for _, obj := range apiObjects {
			if obj.typ == key {
				recv = key
			}
		}
		w.table([]string{"@", key}, reg.RawGetString(key), recv, 2)
	}
}

// add adds fn under path when it is one of luabind's Go functions, not
// excluded, and not found under another path before.
func (w *apiWalk) add(path []string, v lua.LValue, recv string) {
	if ud, ok := v.(*lua.LUserData); ok { // ffi.C: the function behind the name
		v = w.L.GetField(ud, path[len(path)-1])
	}
	fn, ok := v.(*lua.LFunction)
	if !ok || !fn.IsG || w.seen[fn] {
		return
	}
	goName := runtime.FuncForPC(reflect.ValueOf(fn.GFunction).Pointer()).Name()
	if !strings.HasPrefix(goName, "sbgo/luabind.") || apiExcluded[goName] {
		return
	}
	w.seen[fn] = true
	name := strings.Join(path, ".")
	if path[0] == "@" {
		name = "@" + strings.Join(path[1:], ".")
	}
	w.entries = append(w.entries, apiEntry{name: name, path: path, recv: recv, clamp: apiClamps[name]})
}

func sortedKeys(t *lua.LTable) []string {
	var keys []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		}
	})
	slices.Sort(keys)
	return keys
}

// entry is the catalog's function name, or the one an unknown name's
// first two bytes pick. Only those two count, so that the fuzzer's
// minimizer can shorten the rest of an unknown name without changing the
// function.
func (h *apiHarness) entry(name string) apiEntry {
	if i, ok := h.byName[name]; ok {
		return h.entries[i]
	}
	var pick [2]byte
	copy(pick[:], name)
	return h.entries[int(binary.BigEndian.Uint16(pick[:]))%len(h.entries)]
}

// call calls e in a fresh worker state with the arguments flags and data
// describe; it returns the call as Lua text, for messages, and its error.
func (h *apiHarness) call(e apiEntry, flags uint8, data []byte) (string, error) {
	st, objects, done, err := h.newState()
	if err != nil {
		panic(err) // the catalog was built with the same code
	}
	defer done()
	L := st.L
	in := &fuzzArgs{L: L, objects: objects, data: data}
	var args callArgs
	if e.recv != "" && flags&8 == 0 {
		args.add(in.object(e.recv), "<"+e.recv+">")
	}
	for range flags & 7 {
		args.add(in.value(2))
	}
	args.bound(e)
	L.Push(resolvePath(L, e.path))
	for _, v := range args.values {
		L.Push(v)
	}
	return e.name + "(" + strings.Join(args.texts, ", ") + ")", L.PCall(len(args.values), lua.MultRet, nil)
}

// callArgs are a call's arguments, and each as Lua text.
type callArgs struct {
	values []lua.LValue
	texts  []string
}

func (a *callArgs) add(v lua.LValue, text string) {
	a.values, a.texts = append(a.values, v), append(a.texts, text)
}

// bound applies e's clamps, and gives sysbench.sql.driver the name of
// dbtest in place of any registered driver but apiDrivers.
func (a *callArgs) bound(e apiEntry) {
	for pos, bound := range e.clamp {
		if pos <= len(a.values) && a.values[pos-1] != clampArg(a.values[pos-1], bound) {
			a.values[pos-1], a.texts[pos-1] = lua.LNumber(bound), fmt.Sprint(bound)
		}
	}
	if e.name != "sysbench.sql.driver" || len(a.values) == 0 {
		return
	}
	name, ok := a.values[0].(lua.LString)
	if _, registered := db.Lookup(string(name)); ok && registered && !slices.Contains(apiDrivers, string(name)) {
		a.values[0], a.texts[0] = lua.LString(dbtest.Name), fmt.Sprintf("%q", dbtest.Name)
	}
}

// resolvePath follows path from the globals or the registry.
func resolvePath(L *lua.LState, path []string) lua.LValue {
	v := L.Get(lua.GlobalsIndex)
	if path[0] == "@" {
		v, path = L.Get(lua.RegistryIndex), path[1:]
	}
	for _, key := range path {
		v = L.GetField(v, key)
	}
	return v
}

// clampArg bounds v's magnitude when it is a number, or a string Lua
// reads as one.
func clampArg(v lua.LValue, bound float64) lua.LValue {
	var f float64
	switch x := v.(type) {
	case lua.LNumber:
		f = float64(x)
	case lua.LString: // as gopher-lua reads it, or as luabind does
		f = float64(lua.LVAsNumber(x))
		if n, ok := parseLuaNumber(string(x)); ok {
			f = max(f, n)
		}
	default:
		return v
	}
	switch {
	case f > bound || math.IsInf(f, 1):
		return lua.LNumber(bound)
	case f < -bound || math.IsInf(f, -1):
		return lua.LNumber(-bound)
	}
	return v
}

// fuzzArgs decodes arguments from fuzz data: each a tag byte and what
// the tag needs (see value). Missing bytes read as zeros.
type fuzzArgs struct {
	L       *lua.LState
	objects *lua.LTable
	data    []byte
}

func (a *fuzzArgs) byte() byte {
	if len(a.data) == 0 {
		return 0
	}
	b := a.data[0]
	a.data = a.data[1:]
	return b
}

func (a *fuzzArgs) bytes(n int) []byte {
	n = min(n, len(a.data))
	b := a.data[:n]
	a.data = a.data[n:]
	return b
}

// fuzzNumbers are numbers at the edges of what the API converts: 32-
// and 64-bit limits, the largest exact integer, NaN, the infinities,
// negative zero, and a subnormal.
var fuzzNumbers = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, 10, 100, 255, 256,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MaxUint32, math.MaxUint32 + 1,
	1 << 53, 1<<53 + 2, math.MaxInt64, math.MinInt64, math.MaxUint64, 1e300, -1e300,
	math.NaN(), math.Inf(1), math.Inf(-1), 5e-324}

// fuzzStrings are strings the API gives a meaning to: statements the
// dbtest server answers (apiRules), formats, templates, driver and
// command names, numbers in text, C declarations.
var fuzzStrings = []string{"", "SELECT a, b FROM t", "UPDATE t SET a = 1", "ERR", "FATAL", "LOST",
	"CALL p()", "BAD", "BEGIN", "%d %s %5.2f %q %x %g %c %%", "%-99.99f", "%099d", "%i", "#@#@",
	"dbtest", "mysql", "pgsql", "nonexistent", "noop", "collect", "count", "struct timeval",
	"enum { A, B = 5, C }", "int f(void);", "ffi", "x", "nrows", "nfields", "fetch_row",
	"1e9", "inf", "-nan", "0x10", " 12 ", "4294967296", "\x00", "é", "events", "reads"}

// fuzzFunctions are the Lua functions passed as arguments: they return
// their arguments, nothing, or a number, or raise an error.
var fuzzFunctions = []string{
	"return function(...) return ... end",
	"return function() end",
	"return function() return 1 end",
	"return function() error('raised by an argument') end",
	"return function() error({errcode = 1}) end",
}

// value decodes one argument, tables holding values down to depth
// levels; text is the argument as Lua source, for messages.
func (a *fuzzArgs) value(depth int) (v lua.LValue, text string) {
	tag := a.byte()
	switch tag % 11 {
	case 0:
		return lua.LNil, "nil"
	case 1:
		return lua.LBool(tag&0x80 != 0), fmt.Sprint(tag&0x80 != 0)
	case 2:
		n := float64(int8(a.byte()))
		return lua.LNumber(n), fmt.Sprint(n)
	case 3:
		n := fuzzNumbers[int(a.byte())%len(fuzzNumbers)]
		return lua.LNumber(n), fmt.Sprint(n)
	case 4:
		b := make([]byte, 8)
		copy(b, a.bytes(8))
		n := math.Float64frombits(binary.LittleEndian.Uint64(b))
		return lua.LNumber(n), fmt.Sprint(n)
	case 5:
		s := string(a.bytes(int(a.byte())))
		return lua.LString(s), fmt.Sprintf("%q", s)
	case 6:
		s := fuzzStrings[int(a.byte())%len(fuzzStrings)]
		return lua.LString(s), fmt.Sprintf("%q", s)
	case 7:
		return a.table(depth)
	case 8:
		src := fuzzFunctions[int(a.byte())%len(fuzzFunctions)]
		if err := a.L.DoString(src); err != nil {
			panic(err)
		}
		fn := a.L.Get(-1)
		a.L.Pop(1)
		return fn, "(function: " + strings.TrimPrefix(src, "return ") + ")"
	case 9:
		obj := apiObjects[int(a.byte())%len(apiObjects)].typ
		return a.object(obj), "<" + obj + ">"
	}
	b := make([]byte, 8)
	copy(b, a.bytes(8))
	pushUint64(a.L, binary.LittleEndian.Uint64(b))
	v = a.L.Get(-1)
	a.L.Pop(1)
	return v, fmt.Sprintf("%dULL", binary.LittleEndian.Uint64(b))
}

// table decodes a table of up to seven values: an array, or fields named
// from fuzzStrings.
func (a *fuzzArgs) table(depth int) (lua.LValue, string) {
	flags := a.byte()
	t := a.L.NewTable()
	if depth == 0 {
		return t, "{}"
	}
	var texts []string
	for range flags & 7 {
		v, text := a.value(depth - 1)
		if flags&8 == 0 {
			t.Append(v)
			texts = append(texts, text)
			continue
		}
		key := fuzzStrings[int(a.byte())%len(fuzzStrings)]
		t.RawSetString(key, v)
		texts = append(texts, fmt.Sprintf("[%q] = %s", key, text))
	}
	return t, "{" + strings.Join(texts, ", ") + "}"
}

// object is the sample object of type typ.
func (a *fuzzArgs) object(typ string) lua.LValue {
	for i, obj := range apiObjects {
		if obj.typ == typ {
			return a.objects.RawGetInt(i + 1)
		}
	}
	return lua.LNil
}

// apiSeeds call the main functions the way scripts do, and with wrong
// types.
var apiSeeds = []struct {
	name  string
	flags uint8
	args  []byte
}{
	{"sysbench.rand.uniform", 2, []byte{2, 1, 2, 100}},
	{"sysbench.rand.varstring", 2, []byte{2, 5, 2, 10}},
	{"sysbench.rand.string", 1, []byte{6, 13}},
	{"sysbench.rand.zipfian", 2, []byte{3, 23, 3, 24}},
	{"sysbench.sql.driver", 1, []byte{6, 16}},
	{"@" + sqlConnType + ".__index.query", 1, []byte{6, 1}},
	{"@" + sqlConnType + ".__index.query", 1, []byte{6, 5}},
	{"@" + sqlConnType + ".__index.bulk_insert_init", 1, []byte{6, 2}},
	{"@" + sqlStmtType + ".__index.bind_param", 2, []byte{9, 3, 7, 0x02, 2, 1, 5, 1, 'x'}},
	{"@" + sqlResultType + ".__index", 1, []byte{6, 27}},
	{"@" + uint64TypeName + ".__div", 1, []byte{3, 0}},
	{"string.format", 3, []byte{6, 9, 3, 23, 5, 2, 'h', 'i'}},
	{"ffi.cdef", 1, []byte{6, 22}},
	{"ffi.new", 1, []byte{6, 21}},
	{"ffi.C.usleep", 1, []byte{3, 24}},
	{"sysbench.histogram.new", 3, []byte{3, 21, 2, 1, 2, 100}},
	{"table.foreach", 2, []byte{7, 0x03, 2, 1, 2, 2, 2, 3, 8, 3}},
	{"sysbench.report_json", 1, []byte{7, 0x0a, 3, 24, 38, 2, 5, 39}},
	{"sysbench.db.execute", 1, []byte{9, 8}},
	{"no such function", 0, nil},
}
