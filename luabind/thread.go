package luabind

import (
	"context"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"sbgo/db"
	"sbgo/engine"
)

// The Script is the run's workload; these assertions keep it so.
var (
	_ engine.Workload       = (*Script)(nil)
	_ engine.MainState      = (*Script)(nil)
	_ engine.SQLReporter    = (*Script)(nil)
	_ engine.ReportHooks    = (*Script)(nil)
	_ engine.ConnectionLoss = (*Script)(nil)
	_ engine.Thread         = (*thread)(nil)
	_ engine.Reporter       = (*reporter)(nil)
)

// Init exports the options into the main state and calls init(), then
// checks that the script can run (it defines event()). What the main
// state runs from now on counts as thread 0's, as in sysbench. Its
// database calls in init() and done() end with the run's context (at
// the run's deadline), those made outside a run do not.
func (s *Script) Init(ev *engine.Events) error {
	s.main.ev = ev
	s.runCtx = ev.Context()
	s.main.exportOptions()
	if _, err := s.main.callInRun("init"); err != nil {
		return err
	}
	if s.main.globalFunc("event") == nil {
		return fmt.Errorf("cannot find the event() function in %s", shortName(s.cfg.TestName))
	}
	return nil
}

// Done calls done() in the main state.
func (s *Script) Done() error {
	_, err := s.main.callInRun("done")
	return err
}

// callInRun calls the global fn of the main state with the run's
// context as the state's.
func (st *state) callInRun(fn string) (lua.LValue, error) {
	st.ctx = st.script.runCtx
	defer func() { st.ctx = context.Background() }()
	return st.callGlobal(fn)
}

// LostConnection is engine.ConnectionLoss: the lost-connection error of
// the --db-driver driver, or of the driver the script created when it is
// another; ok is false when it created none.
func (s *Script) LostConnection() (code, msg string, ignorable, ok bool) {
	drv := s.drivers.used(s.defaultDriverName())
	cl, isLoser := drv.(db.ConnectionLoser)
	if !isLoser {
		return "", "", false, false
	}
	e := cl.LostConnection()
	return errorCode(e), e.Msg, e.Kind != db.Fatal, true
}

// SQLMode reports whether any state created an SQL driver.
func (s *Script) SQLMode() bool { return s.sqlMode.Load() }

// HasHooks tells which report hooks the script set at load time; like
// sysbench, hooks assigned later (inside init()) are not noticed.
func (s *Script) HasHooks() (intermediate, cumulative bool) { return s.hookInter, s.hookCumul }

// thread is one run worker: its own Lua state, bound to its Events.
type thread struct{ st *state }

// NewThread creates worker id's state and runs the script in it. It is
// called in the worker's goroutine.
func (s *Script) NewThread(id int, ev *engine.Events) (engine.Thread, error) {
	st := s.newState(id, ev, s.workerRand(id))
	if err := st.runChunk(); err != nil {
		st.close()
		return nil, err
	}
	st.exportOptions()
	return &thread{st: st}, nil
}

// workerRand is run worker id's generator: seeded as sysbench seeds its
// workers (randseed.go), or from seedFor when Configure was not called.
func (s *Script) workerRand(id int) *Rand {
	if s.workerSeeds == nil {
		return NewRand(s.seedFor(1, id), &s.randOpts)
	}
	s0, s1 := s.workerSeeds.state(id)
	return newRandFromState(s0, s1, &s.randOpts)
}

// Init calls thread_init(tid).
func (t *thread) Init() error {
	_, err := t.st.callGlobal("thread_init", lua.LNumber(t.st.tid))
	return err
}

// Run calls thread_run(tid). The built-in thread_run runs the event loop
// in Go; a script may replace it with its own.
func (t *thread) Run() error {
	st := t.st
	fn := st.globalFunc("thread_run")
	if fn == nil {
		return functionFailed("thread_run", errors.New("attempt to call a nil value"))
	}
	if fn == st.threadRun {
		if err := st.eventLoop(); err != nil {
			return functionFailed("thread_run", err)
		}
		return nil
	}
	if _, err := st.call(fn, lua.LNumber(st.tid)); err != nil {
		return functionFailed("thread_run", err)
	}
	return nil
}

// Done calls thread_done(tid).
func (t *thread) Done() error {
	_, err := t.st.callGlobal("thread_done", lua.LNumber(t.st.tid))
	return err
}

// Close closes the state (and, through it, whatever it opened).
func (t *thread) Close() { t.st.close() }

// luaThreadRun is the built-in global thread_run(tid), for scripts that
// call it themselves (from their own thread_run, for example).
func (st *state) luaThreadRun(L *lua.LState) int {
	if st.ev == nil {
		L.RaiseError("thread_run can only run in a worker thread")
	}
	if err := st.eventLoop(); err != nil {
		L.Error(errorObject(err), 0)
	}
	return 0
}

// errorObject returns the Lua value an error was raised with.
func errorObject(err error) lua.LValue {
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		return apiErr.Object
	}
	return lua.LString(err.Error())
}

// eventLoop is sysbench's thread_run (spec §2.4): while the engine allows
// another event, time it and call event(tid); an error raised as a table
// with errcode RESTART_EVENT runs event() again under the same timer
// (after the before_restart_event hook); a truthy return stops this
// thread without counting the event.
//
// The events run inside one protected call (runEvents), not one per
// event: a protected call sets up Go's panic recovery, which costs more
// than an empty event. An error raised by event() unwinds to here; the
// loop is then entered again, retrying the failed event first.
func (st *state) eventLoop() error {
	L := st.L
	ev := st.ev
	if st.runEventsFn == nil {
		st.runEventsFn = L.NewFunction(st.runEvents)
	}
	st.retryEvent = false
	for {
		L.Push(st.runEventsFn)
		err := L.PCall(0, 0, nil)
		if err == nil {
			return nil
		}
		errTbl, restart := restartError(err)
		if !restart {
			ev.Abandon()
			return err
		}
		if herr := st.beforeRestart(errTbl); herr != nil {
			ev.Abandon()
			return herr
		}
		if ev.Stopping() {
			// A retry loop never outlives the run.
			ev.Abandon()
			return nil
		}
		st.retryEvent = true
	}
}

// beforeRestart calls the before_restart_event hook, if any, with the
// error that restarts the event. A hook that itself fails with a restart
// error (it lost the new session again while preparing its statements)
// is called again with that error, until it succeeds or the run stops.
func (st *state) beforeRestart(errTbl *lua.LTable) error {
	hook := st.hook("before_restart_event")
	for hook != nil {
		_, err := st.call(hook, errTbl)
		if err == nil {
			return nil
		}
		var restart bool
		if errTbl, restart = restartError(err); !restart {
			return err
		}
		if st.ev.Stopping() {
			return nil
		}
	}
	return nil
}

// runEvents is the body of eventLoop, a Go function called (protected)
// from it. When retryEvent is set, the event that raised a restart error
// runs again first, under its original timer.
func (st *state) runEvents(L *lua.LState) int {
	ev := st.ev
	// Boxed once: converting a number to an LValue allocates (for any
	// tid but 0), which would be one allocation per event.
	var tid lua.LValue = lua.LNumber(st.tid)
	globals := L.G.Global
	var event lua.LValue
	for {
		if !st.retryEvent {
			if !ev.More() {
				return 0
			}
			ev.Start()
		}
		st.retryEvent = false
		// event is looked up for every call, as sysbench's Lua loop
		// does, so a script may replace it while running; but not after
		// an event that ran no Lua code at all (the bundled
		// oltp_point_select's, see sqlByIDRunner), which cannot have.
		// Why: the lookup in each worker's own globals missed the cache
		// at nearly every load with many workers, 4 % of the client's
		// CPU samples at 64 threads of oltp_point_select on 2 CPUs
		// (docs/performance.md, "The bundled workloads' loops in Go").
		if st.ranNoLua == nil || lua.LValue(st.ranNoLua) != event {
			event = globals.RawGetString("event")
		}
		st.ranNoLua = nil
		L.Push(event)
		L.Push(tid)
		L.Call(1, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if truthy(ret) {
			ev.Abandon()
			return 0
		}
		ev.Stop()
		// sysbench's event stop draws one random number (its latency
		// histogram picks a slot with it); drawing it too keeps a
		// worker's stream in step with sysbench's for one --rand-seed.
		st.rand.Uint64()
	}
}

// truthy is lua.LVAsBool by type switch: event() returns nothing (nil)
// nearly always, and a type switch compares one word where LVAsBool's two
// interface comparisons call the runtime's ifaceeq.
func truthy(v lua.LValue) bool {
	switch v := v.(type) {
	case *lua.LNilType:
		return false
	case lua.LBool:
		return bool(v)
	}
	return true
}

// restartError reports whether err is sysbench's restart-event error: a
// table whose errcode is sysbench.error.RESTART_EVENT.
func restartError(err error) (*lua.LTable, bool) {
	var apiErr *lua.ApiError
	if !errors.As(err, &apiErr) {
		return nil, false
	}
	t, ok := apiErr.Object.(*lua.LTable)
	if !ok {
		return nil, false
	}
	code, ok := t.RawGetString("errcode").(lua.LNumber)
	return t, ok && code == 1
}

// reporter runs report hooks in a state of its own, in the report
// goroutine (a Lua state is never shared between goroutines).
type reporter struct{ st *state }

// NewReporter creates the report state (tid = threads, as in sysbench).
func (s *Script) NewReporter(tid int) (engine.Reporter, error) {
	st := s.newState(tid, nil, NewRand(s.seedFor(3, tid), &s.randOpts))
	if err := st.runChunk(); err != nil {
		st.close()
		return nil, err
	}
	st.exportOptions()
	return &reporter{st: st}, nil
}

func (r *reporter) ReportIntermediate(s *engine.Stats) error {
	return r.st.runReportHook("report_intermediate", s, false)
}

func (r *reporter) ReportCumulative(s *engine.Stats) error {
	return r.st.runReportHook("report_cumulative", s, true)
}

func (r *reporter) Close() { r.st.close() }

// ReportCumulative runs the final report_cumulative hook in the main
// state, with the options exported again as sysbench does.
func (s *Script) ReportCumulative(stats *engine.Stats) error {
	s.main.exportOptions()
	return s.main.runReportHook("report_cumulative", stats, true)
}

func (st *state) runReportHook(name string, s *engine.Stats, cumulative bool) error {
	fn := st.hook(name)
	if fn == nil {
		return nil
	}
	if _, err := st.call(fn, st.statTable(s, cumulative)); err != nil {
		return functionFailed(name, err)
	}
	return nil
}
