package luabind

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"sbgo/engine"
)

// cmdlineChunk is the chunk name sysbench's option errors carry; scripts'
// users see it in messages such as
// `[string "sysbench.cmdline.lua"]:132: wrong table structure ...`.
const cmdlineChunk = `[string "sysbench.cmdline.lua"]`

// newCmdlineTable builds sysbench.cmdline (spec §3.2).
func (st *state) newCmdlineTable() *lua.LTable {
	L := st.L
	cfg := st.script.cfg
	t := L.CreateTable(0, 4)
	argv := L.CreateTable(len(cfg.Argv), 1)
	for i, a := range cfg.Argv {
		argv.RawSetInt(i, lua.LString(a)) // argv[0] is the program
	}
	t.RawSetString("argv", argv)
	if cfg.Command != "" {
		t.RawSetString("command", lua.LString(cfg.Command))
	}
	if cfg.TestName != "" {
		t.RawSetString("script_path", lua.LString(cfg.TestName))
	}
	for i, name := range []string{"ARG_NULL", "ARG_BOOL", "ARG_INT", "ARG_SIZE", "ARG_DOUBLE", "ARG_STRING", "ARG_LIST", "ARG_FILE", "ARG_MAX"} {
		t.RawSetString(name, lua.LNumber(i))
	}
	t.RawSetString("PARALLEL_COMMAND", lua.LTrue)
	t.RawSetString("print_test_options", L.NewFunction(st.printTestOptions))
	t.RawSetString("command_defined", L.NewFunction(func(L *lua.LState) int {
		fn, _ := st.commandFunc(L.CheckString(1))
		L.Push(lua.LBool(fn != nil))
		return 1
	}))
	t.RawSetString("command_parallel", L.NewFunction(func(L *lua.LState) int {
		_, parallel := st.commandFunc(L.CheckString(1))
		L.Push(lua.LBool(parallel))
		return 1
	}))
	t.RawSetString("barrier", L.NewFunction(st.luaBarrier))
	t.RawSetString("call_command", L.NewFunction(func(L *lua.LState) int {
		fn, _ := st.commandFunc(L.CheckString(1))
		if fn == nil {
			L.Push(lua.LFalse)
			return 1
		}
		L.Push(fn)
		L.Call(0, 1)
		// Any result but false is success, as in sysbench.
		ok := L.Get(-1) != lua.LFalse
		L.Pop(1)
		L.Push(lua.LBool(ok))
		return 1
	}))
	return t
}

// printTestOptions is sysbench.cmdline.print_test_options(): the help
// lines of the script's options.
func (st *state) printTestOptions(L *lua.LState) int {
	engine.WriteOptionLines(st.script.cfg.Out, st.script.declared)
	fmt.Fprintln(st.script.cfg.Out)
	return 0
}

// readDeclaredOptions turns sysbench.cmdline.options into option
// declarations, with sysbench's typing rules (spec §3.2): a boolean
// default gives BOOL, a number DOUBLE, a table LIST, a string or nil
// STRING, unless a type is given; options are registered in sorted order.
func (s *Script) readDeclaredOptions() error {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("`sysbench.cmdline.read_cmdline_options' function failed: %s:%d: %s",
			cmdlineChunk, line, fmt.Sprintf(format, args...))
	}
	L := s.main.L
	cmdline := s.main.cmdlineTable()
	if cmdline == nil {
		return nil
	}
	raw := cmdline.RawGetString("options")
	if raw == lua.LNil {
		return nil
	}
	opts, ok := raw.(*lua.LTable)
	if !ok {
		return fail(120, "wrong type for sysbench.cmdline.options: %s", raw.Type().String())
	}
	s.hasOptions = true
	type decl struct {
		name string
		def  *lua.LTable
	}
	var decls []decl
	var structErr bool
	opts.ForEach(func(k, v lua.LValue) {
		ks, kok := k.(lua.LString)
		vt, vok := v.(*lua.LTable)
		if !kok || !vok {
			structErr = true
			return
		}
		decls = append(decls, decl{string(ks), vt})
	})
	if structErr {
		return fail(132, "wrong table structure in sysbench.cmdline.options")
	}
	sort.Slice(decls, func(i, j int) bool { return decls[i].name < decls[j].name })
	for _, d := range decls {
		desc, ok := d.def.RawGetInt(1).(lua.LString)
		if !ok {
			return fail(137, "nil description for option %s", d.name)
		}
		def := d.def.RawGetInt(2)
		typ := engine.ArgString
		explicit, hasType := d.def.RawGetInt(3).(lua.LNumber)
		if hasType {
			if _, isTable := def.(*lua.LTable); isTable {
				return fail(141, "wrong type for list option %s", d.name)
			}
			typ = engine.ArgType(explicit)
		} else {
			switch def.(type) {
			case lua.LBool:
				typ = engine.ArgBool
			case lua.LNumber:
				typ = engine.ArgDouble
			case *lua.LTable:
				typ = engine.ArgList
			}
		}
		o := engine.Option{Name: d.name, Desc: string(desc), Type: typ}
		if text, ok := defaultText(L, def); ok {
			o.Default = &text
		}
		s.declared = append(s.declared, o)
	}
	return nil
}

// defaultText is an option default as the text sysbench registers.
func defaultText(L *lua.LState, v lua.LValue) (string, bool) {
	switch d := v.(type) {
	case lua.LBool:
		if d {
			return "on", true
		}
		return "off", true
	case lua.LNumber:
		return luaNumberString(float64(d)), true
	case lua.LString:
		return string(d), true
	case *lua.LTable:
		var parts []string
		for i := 1; i <= d.Len(); i++ {
			parts = append(parts, lua.LVAsString(d.RawGetInt(i)))
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}

func (st *state) cmdlineTable() *lua.LTable {
	sb, ok := st.L.GetGlobal("sysbench").(*lua.LTable)
	if !ok {
		return nil
	}
	t, _ := sb.RawGetString("cmdline").(*lua.LTable)
	return t
}

// DeclaredOptions returns the options the script declares, and whether it
// declares any: a script that declares none is a legacy script, which
// accepts any option and sees them as globals.
func (s *Script) DeclaredOptions() ([]engine.Option, bool) {
	return s.declared, s.hasOptions
}

// Configure applies the parsed --rand-* options and the seed; it is
// called once after the options are parsed.
func (s *Script) Configure(r RandOptions, seed uint64) {
	s.randOpts = r
	s.seed = seed
	s.workerSeeds = newWorkerSeeds(seed)
	s.main.rand.setOptions(&s.randOpts)
}

// exportOptions rebuilds sysbench.opt from every registered option and,
// for legacy scripts, sets each option as a global too (spec §3.3, §3.9),
// skipping globals that are functions so that --help does not hide help().
func (st *state) exportOptions() {
	L := st.L
	opts := st.script.cfg.Options
	t := L.CreateTable(0, 4)
	legacy := !st.script.hasOptions
	for _, v := range opts.All() {
		lv, ok := optionValue(L, v)
		if !ok {
			continue
		}
		name := v.Name()
		t.RawSetString(name, lv)
		if legacy {
			if _, isFn := L.GetGlobal(name).(*lua.LFunction); !isFn {
				L.SetGlobal(name, lv)
			}
		}
	}
	if sb, ok := L.GetGlobal("sysbench").(*lua.LTable); ok {
		sb.RawSetString("opt", t)
	}
}

// optionValue converts an option's value to Lua as sysbench exports it.
func optionValue(L *lua.LState, v *engine.Value) (lua.LValue, bool) {
	switch v.Opt.Type {
	case engine.ArgBool:
		return lua.LBool(v.Bool()), true
	case engine.ArgInt:
		return lua.LNumber(v.Int()), true
	case engine.ArgSize:
		return lua.LNumber(v.Size()), true
	case engine.ArgDouble:
		return lua.LNumber(v.Double()), true
	case engine.ArgString:
		return lua.LString(v.String()), true
	case engine.ArgList:
		items := v.List()
		t := L.CreateTable(len(items), 0)
		for _, it := range items {
			t.Append(lua.LString(it))
		}
		return t, true
	}
	return lua.LNil, false
}

// commandFunc returns the custom command name's function and whether it
// is parallel (spec §2.6). Malformed tables mean "not defined".
func (st *state) commandFunc(name string) (*lua.LFunction, bool) {
	cmdline := st.cmdlineTable()
	if cmdline == nil {
		return nil, false
	}
	cmds, ok := cmdline.RawGetString("commands").(*lua.LTable)
	if !ok {
		return nil, false
	}
	def, ok := cmds.RawGetString(name).(*lua.LTable)
	if !ok {
		return nil, false
	}
	fn, _ := def.RawGetInt(1).(*lua.LFunction)
	return fn, def.RawGetInt(2) == lua.LTrue
}

// HasCommand reports whether the script defines the custom command name.
func (s *Script) HasCommand(name string) bool {
	fn, _ := s.main.commandFunc(name)
	return fn != nil
}

// RunCommand runs the custom command name. A serial command (or any with
// one thread) runs in the main state and fails on false or an error; a
// parallel one runs in threads states of its own, and like sysbench's
// its failures do not change the exit code.
func (s *Script) RunCommand(name string, threads int) error {
	fn, parallel := s.main.commandFunc(name)
	if fn == nil {
		return fmt.Errorf("Unknown command: %s", name)
	}
	if !parallel || threads <= 1 {
		s.main.exportOptions()
		ret, err := s.main.call(fn)
		if err != nil {
			return functionFailed("sysbench.cmdline.call_command", err)
		}
		if ret == lua.LFalse {
			return errCommandFailed
		}
		return nil
	}
	s.cfg.Log.Logf(engine.LevelNotice, "Initializing worker threads...\n")
	var wg sync.WaitGroup
	barrier := newCommandBarrier(threads)
	for tid := 0; tid < threads; tid++ {
		wg.Add(1)
		go func(tid int) {
			defer wg.Done()
			st := s.newState(tid, nil, NewRand(s.seedFor(2, tid), &s.randOpts))
			st.barrier = barrier
			defer st.close()
			barrier.leave(!s.runCommandThread(st, name))
		}(tid)
	}
	wg.Wait()
	return nil
}

// runCommandThread runs the parallel command name in st, one of its
// threads, and reports whether it succeeded.
func (s *Script) runCommandThread(st *state, name string) bool {
	if err := st.runChunk(); err != nil {
		s.cfg.Log.Logf(engine.LevelFatal, "%s", err)
		return false
	}
	st.exportOptions()
	fn, _ := st.commandFunc(name)
	if fn == nil {
		return true
	}
	if _, err := st.call(fn); err != nil {
		s.cfg.Log.Logf(engine.LevelFatal, "%s", functionFailed("sysbench.cmdline.call_command", err))
		return false
	}
	return true
}

// errCommandFailed is a custom command that returned false: exit 1 with no
// message, as sysbench.
var errCommandFailed = errors.New("")

// IsSilent reports whether err needs no message (the command said false).
func IsSilent(err error) bool { return err == errCommandFailed }

// HasFunction reports whether the script defines the global function
// name (prepare, cleanup, help) in its main state.
func (s *Script) HasFunction(name string) bool { return s.main.globalFunc(name) != nil }

// CallFunction exports the options and calls the global function name
// in the main state (prepare, cleanup, help); its return value is ignored.
func (s *Script) CallFunction(name string) error {
	s.main.exportOptions()
	_, err := s.main.callGlobal(name)
	return err
}
