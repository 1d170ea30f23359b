package luabind

import (
	"bytes"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// compatFFIState returns a state whose ffi.C.usleep and sleep record the
// durations instead of sleeping, and whose sb_counter_inc records kinds.
func compatFFIState(t *testing.T) (*lua.LState, *bytes.Buffer, *[]time.Duration, *[]int) {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	out := &bytes.Buffer{}
	slept := &[]time.Duration{}
	counts := &[]int{}
	openLuaJITCompat(L, CompatEnv{
		Out:        out,
		CounterInc: func(kind int) { *counts = append(*counts, kind) },
		Sleep:      func(d time.Duration) { *slept = append(*slept, d) },
	})
	L.SetGlobal("U64", L.NewFunction(func(L *lua.LState) int {
		pushUint64(L, uint64(L.CheckInt64(1))<<32|uint64(L.CheckInt64(2)))
		return 1
	}))
	return L, out, slept, counts
}

// TestFFIValues checks what ffi exposes. Constants are those sysbench
// 1.0.20 declares (run with sysbench 1.0.20: print(ffi.C.SB_CNT_TRX) and
// so on); SB_CNT_EVENT and the byte counters are the later header's names.
func TestFFIValues(t *testing.T) {
	tests := []struct {
		code string // returns one value
		want string // tostring of it
	}{
		{`return ffi.C.SB_CNT_OTHER`, "0"},         // 1.0.20 sb_counter_type
		{`return ffi.C.SB_CNT_READ`, "1"},          // 1.0.20
		{`return ffi.C.SB_CNT_WRITE`, "2"},         // 1.0.20
		{`return ffi.C.SB_CNT_TRX`, "3"},           // 1.0.20's name for counter 3
		{`return ffi.C.SB_CNT_EVENT`, "3"},         // src/sb_counter.h's name for it
		{`return ffi.C.SB_CNT_ERROR`, "4"},         // 1.0.20
		{`return ffi.C.SB_CNT_RECONNECT`, "5"},     // 1.0.20
		{`return ffi.C.SB_CNT_MAX`, "6"},           // 1.0.20
		{`return ffi.C.SB_CNT_BYTES_READ`, "6"},    // after 1.0.20
		{`return ffi.C.SB_CNT_BYTES_WRITTEN`, "7"}, // after 1.0.20
		{`return ffi.C.DB_ERROR_FATAL`, "2"},       // sql_error_t
		{`return ffi.C.SQL_TYPE_VARCHAR`, "12"},    // sql_bind_type_t
		{`return ffi.C.SB_ARG_TYPE_FILE`, "7"},     // sb_arg_type_t
		{`return type(ffi.C)`, "userdata"},         // as in LuaJIT
		{`return type(ffi.C.usleep)`, "function"},  // a Go function (cdata in LuaJIT)
		{`return ffi.C.usleep(100)`, "0"},          // usleep returns 0
		{`return ffi.C.sleep(2)`, "0"},             // sleep returns the seconds left
		{`return ffi.string("abc")`, "abc"},        // strings pass through
		{`return ffi.string("abc", 2)`, "ab"},      // with a length
		{`return ffi.os .. " " .. ffi.arch`, "Linux x64"},
		{`return ffi.abi("64bit") and ffi.abi("le") and not ffi.abi("win")`, "true"},
		{`ffi.cdef[[typedef enum { A, B = 5, C, D = B, E = 0x10 } e;]] return ffi.C.A .. ffi.C.B .. ffi.C.C .. ffi.C.D .. ffi.C.E`, "056516"}, // a script's enum
		{`ffi.cdef("enum { X = 3, Y = SB_CNT_ERROR, Z }") return ffi.C.X .. ffi.C.Y .. ffi.C.Z`, "345"},                                       // values naming other constants
		{`ffi.cdef[[
			/* comments with enum { NOPE } inside are ignored */
			typedef struct timeval { long tv_sec; long tv_usec; } timeval;
			int gettimeofday(struct timeval *t, void *tzp);
			void sb_counter_inc(int, sb_counter_type);
			typedef uint32_t useconds_t;
			int usleep(useconds_t useconds);
		]] return select('#', ffi.cdef("int puts(const char *);"))`, "0"}, // declarations from real scripts are accepted
		{`return require("ffi") == ffi`, "true"}, // global and module are one table
	}
	for _, tt := range tests {
		L, _, _, _ := compatFFIState(t)
		if err := L.DoString(tt.code); err != nil {
			t.Errorf("%s: %v", tt.code, err)
			continue
		}
		if got := luaToString(L, L.Get(-1)); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// TestFFIErrors checks that what sbgo cannot do fails with a message
// naming it.
func TestFFIErrors(t *testing.T) {
	tests := []struct {
		code string
		want string // part of the error message
	}{
		{`return ffi.C.foo`, "ffi.C.foo is not available in sbgo (supported: usleep, sleep, printf, sb_counter_inc, gettimeofday, clock_gettime)"}, // unknown name
		{`ffi.cdef("int getpid(void);") return ffi.C.getpid`, "ffi.C.getpid is declared but not available in sbgo"},                                // declared but not provided
		{`ffi.cdef("/* int nope(void); */") return ffi.C.nope`, "ffi.C.nope is not available in sbgo"},                                             // commented-out declarations do not count
		{`ffi.C.usleep = 1`, "ffi.C.usleep cannot be assigned in sbgo"},                                                                            // ffi.C is read-only
		{`return ffi.new("int[4]")`, `ffi.new("int[4]") is not supported in sbgo (only "struct timeval" and "struct timespec")`},                   // other ctypes
		{`return ffi.typeof("int")`, "ffi.typeof is not supported in sbgo"},                                                                        // the rest of the ffi API
		{`return ffi.cast("int", 1)`, "ffi.cast is not supported in sbgo"},                                                                         // the rest of the ffi API
		{`return ffi.metatype("t", {})`, "ffi.metatype is not supported in sbgo"},                                                                  // the rest of the ffi API
		{`return ffi.string(5)`, "ffi.string is only supported on Lua strings in sbgo, got number"},                                                // no pointers
		{`return ffi.C.gettimeofday({}, nil) and ffi.C.gettimeofday(1, nil)`, "ffi.C.gettimeofday needs a value from ffi.new(\"struct timeval\")"}, // no real struct
		{`return ffi.C.clock_gettime(1, {}) and ffi.C.clock_gettime(1, nil)`, "ffi.C.clock_gettime needs a value from ffi.new(\"struct timespec\")"},
		{`return ffi.C.clock_gettime(2, ffi.new("struct timespec"))`, "ffi.C.clock_gettime: clock 2 is not supported in sbgo"}, // CLOCK_PROCESS_CPUTIME_ID
		{`return ffi.C.usleep("x")`, "bad argument #1 to 'usleep' (number expected, got string)"},                              // arguments are checked
		{`return ffi.C.printf("%d\n")`, "bad argument #2 to 'printf' (value expected)"},                                        // printf checks like string.format
		{`return ffi.C.printf("%y")`, "invalid option '%y' to 'printf'"},                                                       // and names itself
		{`return ffi.C.printf("%ll")`, "invalid option '%ll' to 'printf'"},                                                     // a length modifier with no conversion
		{`return ffi.cdef()`, "bad argument #1 to 'cdef' (string expected, got no value)"},                                     // cdef needs a string
	}
	for _, tt := range tests {
		L, _, _, _ := compatFFIState(t)
		err := L.DoString(tt.code)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.code, err, tt.want)
		}
	}
}

// TestFFICalls checks the effects of the ffi.C functions.
func TestFFICalls(t *testing.T) {
	L, out, slept, counts := compatFFIState(t)
	code := `
		ffi.cdef[[void sb_counter_inc(int, sb_counter_type);]]
		ffi.C.sb_counter_inc(sysbench_tid, ffi.C.SB_CNT_READ)
		ffi.C.sb_counter_inc(0, ffi.C.SB_CNT_ERROR)
		ffi.C.usleep(1500)
		ffi.C.usleep(0)
		ffi.C.sleep(2)
		n1 = ffi.C.printf("%llu|%lld|%lu|%zu|%s|%5.1f|%%\n", U64(0xffffffff, 0xffffffff), U64(0xffffffff, 0xffffffff), 7, 8, "str", 2.25)
		n2 = ffi.C.printf("plain\n")
		local tv = ffi.new("struct timeval")
		rc = ffi.C.gettimeofday(tv, nil)
		sec, usec = tonumber(tv.tv_sec), tonumber(tv.tv_usec)
		local ts, m1, m2 = ffi.new("struct timespec"), ffi.new("timespec"), ffi.new("struct  timespec")
		rc2 = ffi.C.clock_gettime(0, ts) + ffi.C.clock_gettime(1, m1)
		ffi.C.clock_gettime(1, m2)
		rsec, rnsec = ts.tv_sec, ts.tv_nsec
		mono_ns = (m2.tv_sec - m1.tv_sec) * 1e9 + (m2.tv_nsec - m1.tv_nsec)
		mono_nsec_ok = m1.tv_nsec >= 0 and m1.tv_nsec < 1e9 and m2.tv_nsec >= 0 and m2.tv_nsec < 1e9
	`
	before := time.Now().Unix()
	if err := L.DoString(code); err != nil {
		t.Fatal(err)
	}
	after := time.Now().Unix()

	if want := []int{1, 4}; len(*counts) != 2 || (*counts)[0] != want[0] || (*counts)[1] != want[1] {
		t.Errorf("sb_counter_inc kinds %v, want %v", *counts, want)
	}
	if want := []time.Duration{1500 * time.Microsecond, 2 * time.Second}; len(*slept) != 2 || (*slept)[0] != want[0] || (*slept)[1] != want[1] {
		t.Errorf("slept %v, want %v (usleep(0) does not sleep)", *slept, want)
	}
	wantOut := "18446744073709551615|-1|7|8|str|  2.2|%\nplain\n"
	if out.String() != wantOut {
		t.Errorf("printf wrote %q, want %q", out.String(), wantOut)
	}
	if n1, n2 := L.GetGlobal("n1"), L.GetGlobal("n2"); n1 != lua.LNumber(len(wantOut)-6) || n2 != lua.LNumber(6) {
		t.Errorf("printf returned %v and %v, want the byte counts %d and 6", n1, n2, len(wantOut)-6)
	}
	if rc := L.GetGlobal("rc"); rc != lua.LNumber(0) {
		t.Errorf("gettimeofday returned %v, want 0", rc)
	}
	sec, usec := L.GetGlobal("sec").(lua.LNumber), L.GetGlobal("usec").(lua.LNumber)
	if int64(sec) < before || int64(sec) > after || usec < 0 || usec >= 1e6 {
		t.Errorf("gettimeofday gave %v s %v us, want seconds in [%d, %d]", sec, usec, before, after)
	}
	if rc := L.GetGlobal("rc2"); rc != lua.LNumber(0) {
		t.Errorf("clock_gettime returned %v, want 0", rc)
	}
	rsec, rnsec := L.GetGlobal("rsec").(lua.LNumber), L.GetGlobal("rnsec").(lua.LNumber)
	if int64(rsec) < before || int64(rsec) > after || rnsec < 0 || rnsec >= 1e9 {
		t.Errorf("CLOCK_REALTIME gave %v s %v ns, want seconds in [%d, %d]", rsec, rnsec, before, after)
	}
	// 1.5 ms and 2 s of the sleeps above went to a recorder, not the
	// clock: two readings in a row are at most a loaded machine's second
	// apart, never negative.
	if d := L.GetGlobal("mono_ns").(lua.LNumber); d < 0 || d > 1e9 || L.GetGlobal("mono_nsec_ok") != lua.LTrue {
		t.Errorf("CLOCK_MONOTONIC went %v ns between two readings (nanoseconds in range: %v)", d, L.GetGlobal("mono_nsec_ok"))
	}
}

// TestFFIMonotonicClock: ffi.C.clock_gettime's CLOCK_MONOTONIC advances
// with Go's monotonic clock, the one the engine times events with, so a
// script's own timing of a sleep is the sleep's length at least.
func TestFFIMonotonicClock(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	openLuaJITCompat(L, CompatEnv{Out: &bytes.Buffer{}})
	err := L.DoString(`
		local a, b = ffi.new("struct timespec"), ffi.new("struct timespec")
		ffi.C.clock_gettime(1, a)
		ffi.C.usleep(20000)
		ffi.C.clock_gettime(1, b)
		return (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)`)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Duration(L.Get(-1).(lua.LNumber)); d < 20*time.Millisecond {
		t.Errorf("a 20 ms sleep measured %v on CLOCK_MONOTONIC", d)
	}
}

// TestFFIWithoutCounter checks that sb_counter_inc is a no-op when the
// state has no counters, and that Sleep defaults to a real sleep.
func TestFFIWithoutCounter(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	openLuaJITCompat(L, CompatEnv{Out: &bytes.Buffer{}})
	if err := L.DoString(`ffi.C.sb_counter_inc(0, ffi.C.SB_CNT_READ) ffi.C.usleep(1)`); err != nil {
		t.Fatal(err)
	}
}
