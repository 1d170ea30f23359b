package luabind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

// APIVersion is the sysbench API level sbgo implements: scripts read it
// as sysbench.version.
const APIVersion = "1.0.20"

// Config is what Load needs to run a script.
type Config struct {
	TestName string    // as given on the command line; "" reads Stdin
	Command  string    // "" when none was given
	Argv     []string  // the whole command line, argv[0] first
	Stdin    io.Reader // the script when TestName is ""
	Out      io.Writer // stdout: print, io.write and reports
	Log      *engine.Logger
	Options  *engine.Options // every registered option and its value
	Bundled  []fs.FS         // bundled scripts, searched after the disk
	// VersionString is sysbench.version_string, e.g. "sbgo 0.1.0".
	VersionString string
}

// Script is a loaded test script: compiled once, with its main Lua state
// (sysbench's "global" state, tid 0) in which init, done, prepare,
// cleanup, help and serial custom commands run. Workers, reporters and
// parallel command workers each instantiate the script in a state of
// their own.
type Script struct {
	cfg    Config
	finder *finder
	proto  *lua.FunctionProto
	main   *state
	closed bool
	// protoLibs are the optional libraries the script names (libs.go);
	// those of the modules it requires are in finder.cache.
	protoLibs libSet

	declared   []engine.Option // sysbench.cmdline.options, sorted by name
	hasOptions bool            // the script declares options (not legacy)
	randOpts   RandOptions
	seed       uint64 // --rand-seed; 0 means the clock
	sqlMode    atomic.Bool
	hookInter  bool
	hookCumul  bool
	drivers    drivers // database drivers, created on first use
	shared     sharedStore
	// runCtx is the context of the run in progress (engine.Events's),
	// which init() and done() make their calls with.
	runCtx context.Context
	// workerSeeds are the run workers' generator states, sysbench's for seed.
	workerSeeds *workerSeeds
}

// state is one Lua state and what its bindings need. Its methods are the
// Lua-facing functions; it is used by one goroutine only.
type state struct {
	L      *lua.LState
	script *Script
	tid    int
	ev     *engine.Events // nil outside run workers
	// ctx is passed to every database call: the run's context in a run
	// worker (engine.Events.Context), a background context elsewhere
	// (prepare, cleanup, commands, the main state's init and done).
	ctx  context.Context
	rand *Rand
	// threadRun is the built-in thread_run; when the script has not
	// replaced it, the event loop runs in Go without a Lua frame around it.
	threadRun *lua.LFunction
	jsonOpen  bool       // report_json has opened its array in this state
	conns     []*luaConn // connections to close with the state
	legacy    *luaConn   // the 0.5 API's implicit connection

	runEventsFn *lua.LFunction // the event loop's body (see eventLoop)
	resultMT    lua.LValue     // sysbench.sql.result's metatable, for luaResult.object
	retryEvent  bool           // the loop resumes by retrying the last event
	// ranNoLua is the Go function that last returned from a call without
	// running any Lua code in this state (see runEvents), else nil.
	ranNoLua *lua.LFunction
	libs     libSet          // the optional libraries open in this state
	barrier  *commandBarrier // the threads of this state's parallel command, or nil
	compat   *compatState    // the LuaJIT stand-ins' per-state data

	// methods are the sysbench.sql objects' methods, for luajitSelf.
	methods [numMethodKinds]methodSet

	// sysbench.rand's built-in uniform and default, which sysbench.sql's
	// _by_id_runner checks a script has not replaced.
	builtinUniform, builtinDefault lua.LValue
}

// luaOptions sizes a state: a shared compiled proto and stacks that start
// small keep thousands of worker states affordable. The call stack grows
// on demand up to CallStackSize, about 8000 nested calls (LuaJIT allows
// about 20000; the index of call-stack segments costs 8 bytes per 8
// frames in every state, so the limit is a trade with --threads); the
// registry (data stack) grows too.
var luaOptions = lua.Options{
	CallStackSize:       8192,
	MinimizeStackMemory: true,
	RegistrySize:        256,
	RegistryMaxSize:     1024 * 1024,
	RegistryGrowStep:    128,
}

// Load compiles the test script and runs it in the main state, then reads
// the options and commands it declares. sysbench.opt does not exist while
// the script's top level runs, as in sysbench.
func Load(cfg Config) (*Script, error) {
	path, withBundled := searchPaths()
	s := &Script{
		cfg:      cfg,
		finder:   &finder{cache: &protoCache{}, bundled: cfg.Bundled, path: path, withBundled: withBundled},
		randOpts: DefaultRandOptions(),
	}
	proto, err := s.finder.resolveScript(cfg.TestName, cfg.Stdin)
	if err != nil {
		return nil, err
	}
	s.proto = proto
	s.protoLibs = libsNamedBy(proto)
	s.main = s.newState(0, nil, newMainRand(&s.randOpts))
	if err := s.main.runChunk(); err != nil {
		return nil, err
	}
	if err := s.readDeclaredOptions(); err != nil {
		return nil, err
	}
	s.hookInter = s.main.hook("report_intermediate") != nil
	s.hookCumul = s.main.hook("report_cumulative") != nil
	return s, nil
}

// Close closes the main state, which ends report_json's array if the
// final report opened one. Closing again does nothing, so that a caller
// may close a script early (before the next command of an invocation)
// and still keep a deferred Close.
func (s *Script) Close() {
	if !s.closed {
		s.closed = true
		s.main.close()
	}
}

// newState creates a Lua state with the sysbench API, the legacy globals
// and the LuaJIT stand-ins; the script itself is not run yet. The main
// state, created first, opens every library; the others open the optional
// ones only when the loaded code names them (libs.go).
func (s *Script) newState(tid int, ev *engine.Events, r *Rand) *state {
	opts := luaOptions
	opts.SkipOpenLibs = true
	L := lua.NewState(opts)
	st := &state{L: L, script: s, tid: tid, ev: ev, rand: r, ctx: context.Background()}
	if ev != nil {
		st.ctx = ev.Context()
	}
	libs := libAll
	if s.main != nil {
		libs = s.finder.cache.libs() | s.protoLibs
	}
	st.openStandardLibs(libs, false)
	st.libs = libs
	st.compat = newCompatState(L, CompatEnv{Out: s.cfg.Out, CounterInc: st.counterInc})
	st.installLoader()
	st.openSysbench()
	st.openStandIns(libs)
	return st
}

// counterInc is ffi.C.sb_counter_inc's kind added to the worker's
// counters; kinds past sysbench 1.0.20's (the byte counters of later
// versions) reach none of sbgo's own.
func (st *state) counterInc(kind int) {
	if st.ev != nil && kind <= int(engine.CounterReconnect) {
		st.ev.Count(engine.Counter(kind))
	}
}

// installLoader puts sbgo's loader in place of gopher-lua's disk loader
// and sets package.path as sysbench does.
func (st *state) installLoader() {
	L := st.L
	pkg := L.GetGlobal("package").(*lua.LTable)
	f := st.script.finder
	L.SetField(pkg, "path", lua.LString(f.path))
	loaders := L.CreateTable(2, 0)
	if old, ok := L.GetField(pkg, "loaders").(*lua.LTable); ok {
		loaders.RawSetInt(1, old.RawGetInt(1)) // package.preload
	}
	loaders.RawSetInt(2, L.NewFunction(st.loader))
	L.SetField(pkg, "loaders", loaders)
	L.SetField(L.Get(lua.RegistryIndex), "_LOADERS", loaders)
	L.SetGlobal("require", L.NewFunction(luaRequire))
}

// runChunk runs the script's top level in this state.
func (st *state) runChunk() error {
	L := st.L
	L.Push(L.NewFunctionFromProto(st.script.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return errors.New(luaErrorText(err))
	}
	return nil
}

func (st *state) close() {
	st.closeConns()
	if st.jsonOpen {
		io.WriteString(st.script.cfg.Out, engine.ReportJSONClose)
		st.jsonOpen = false
	}
	st.L.Close()
}

// hook returns sysbench.hooks[name] if it is a function.
func (st *state) hook(name string) *lua.LFunction {
	sb, ok := st.L.GetGlobal("sysbench").(*lua.LTable)
	if !ok {
		return nil
	}
	hooks, ok := sb.RawGetString("hooks").(*lua.LTable)
	if !ok {
		return nil
	}
	fn, _ := hooks.RawGetString(name).(*lua.LFunction)
	return fn
}

// globalFunc returns the global function name, or nil.
func (st *state) globalFunc(name string) *lua.LFunction {
	fn, _ := st.L.GetGlobal(name).(*lua.LFunction)
	return fn
}

// call calls fn with args in protected mode and returns its first result.
func (st *state) call(fn *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	L := st.L
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), 1, nil); err != nil {
		return lua.LNil, err
	}
	ret := L.Get(-1)
	L.Pop(1)
	return ret, nil
}

// callGlobal calls the global function name, wrapping a Lua error in
// sysbench's "`name' function failed: msg" text.
func (st *state) callGlobal(name string, args ...lua.LValue) (lua.LValue, error) {
	fn := st.globalFunc(name)
	if fn == nil {
		return lua.LNil, nil
	}
	ret, err := st.call(fn, args...)
	if err != nil {
		return ret, functionFailed(name, err)
	}
	return ret, nil
}

// functionFailed is sysbench's message for a Lua error in a callback.
func functionFailed(name string, err error) error {
	return fmt.Errorf("`%s' function failed: %s", name, luaErrorText(err))
}

// luaErrorText is the message of a Lua error without gopher-lua's stack
// traceback; a non-string error object reads "(not a string)" as in
// sysbench.
func luaErrorText(err error) string {
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) {
		switch v := apiErr.Object.(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return luaNumberString(float64(v))
		case nil:
			return err.Error()
		default:
			if apiErr.Type == lua.ApiErrorSyntax || apiErr.Type == lua.ApiErrorFile {
				return err.Error()
			}
			return "(not a string)"
		}
	}
	return err.Error()
}

// seedFor derives the RNG seed of a reporter or a parallel command's
// worker from --rand-seed (or the clock), its role and its thread id, so
// that --rand-seed=N reproduces their random streams. Run workers are
// seeded as sysbench seeds them (randseed.go).
func (s *Script) seedFor(role, tid int) uint64 {
	return splitmix64(s.seed + uint64(role)<<32 + uint64(tid) + 0x5eed)
}

// ClientSeed is the --rand-seed of client number client of a multi-client
// run: seed itself for client 0, a different non-zero seed for each other
// client, so that the clients do not replay one random sequence and a run
// stays reproducible from its seed and client ids.
func ClientSeed(seed uint64, client int) uint64 {
	if client == 0 {
		return seed
	}
	return max(1, splitmix64(seed+uint64(client)*0x9e3779b97f4a7c15))
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// newMetatable returns the registry's metatable typeName, creating it small:
// gopher-lua's NewTable preallocates 32 array and 32 hash slots, and a
// state makes dozens of tables, which thousands of workers multiply.
func newMetatable(L *lua.LState, typeName string) *lua.LTable {
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	if mt, ok := reg.RawGetString(typeName).(*lua.LTable); ok {
		return mt
	}
	mt := L.CreateTable(0, 4)
	reg.RawSetString(typeName, mt)
	return mt
}
