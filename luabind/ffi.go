package luabind

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The ffi module stands in for LuaJIT's FFI, which gopher-lua cannot
// provide. Scripts use a small part of it: ffi.cdef declarations followed
// by calls of a few C functions through ffi.C (usleep, sleep, printf,
// sysbench's sb_counter_inc, gettimeofday, clock_gettime) and enum
// constants. Those are implemented in Go; everything else raises an error
// naming what is missing, so a script fails clearly instead of
// misbehaving.

// ffiConstants are the enum constants sysbench 1.0.20 declares with
// ffi.cdef in its internal Lua code, readable as ffi.C.NAME.
var ffiConstants = map[string]int{
	// sb_counter_type, as sysbench.sql.lua declares it in 1.0.20.
	"SB_CNT_OTHER":     0,
	"SB_CNT_READ":      1,
	"SB_CNT_WRITE":     2,
	"SB_CNT_TRX":       3,
	"SB_CNT_ERROR":     4,
	"SB_CNT_RECONNECT": 5,
	"SB_CNT_MAX":       6,
	// Names of src/sb_counter.h after 1.0.20, where counter 3 is called
	// EVENT and two byte counters follow; 1.0.20 scripts cannot use them
	// (its Lua enum lacks them), later scripts may.
	"SB_CNT_EVENT":         3,
	"SB_CNT_BYTES_READ":    6,
	"SB_CNT_BYTES_WRITTEN": 7,
	// sql_error_t
	"DB_ERROR_NONE":      0,
	"DB_ERROR_IGNORABLE": 1,
	"DB_ERROR_FATAL":     2,
	// sql_bind_type_t
	"SQL_TYPE_NONE":      0,
	"SQL_TYPE_TINYINT":   1,
	"SQL_TYPE_SMALLINT":  2,
	"SQL_TYPE_INT":       3,
	"SQL_TYPE_BIGINT":    4,
	"SQL_TYPE_FLOAT":     5,
	"SQL_TYPE_DOUBLE":    6,
	"SQL_TYPE_TIME":      7,
	"SQL_TYPE_DATE":      8,
	"SQL_TYPE_DATETIME":  9,
	"SQL_TYPE_TIMESTAMP": 10,
	"SQL_TYPE_CHAR":      11,
	"SQL_TYPE_VARCHAR":   12,
	// sb_arg_type_t
	"SB_ARG_TYPE_NULL":   0,
	"SB_ARG_TYPE_BOOL":   1,
	"SB_ARG_TYPE_INT":    2,
	"SB_ARG_TYPE_SIZE":   3,
	"SB_ARG_TYPE_DOUBLE": 4,
	"SB_ARG_TYPE_STRING": 5,
	"SB_ARG_TYPE_LIST":   6,
	"SB_ARG_TYPE_FILE":   7,
	"SB_ARG_TYPE_MAX":    8,
}

// ffiSupported lists the ffi.C functions, for error messages.
const ffiSupported = "usleep, sleep, printf, sb_counter_inc, gettimeofday, clock_gettime"

// ffiState is one state's ffi: the Go functions behind ffi.C and the enum
// constants its scripts declared.
type ffiState struct {
	env       *CompatEnv
	funcs     map[string]*lua.LFunction
	constants map[string]int // declared by the scripts' ffi.cdef
	declared  map[string]bool
	outBuf    []byte // printf's buffer, kept between calls
}

// newFFIModule builds the ffi table.
func newFFIModule(L *lua.LState, env *CompatEnv) *lua.LTable {
	f := &ffiState{env: env, constants: map[string]int{}, declared: map[string]bool{}}
	f.funcs = map[string]*lua.LFunction{
		"usleep":         L.NewFunction(f.usleep),
		"sleep":          L.NewFunction(f.sleep),
		"printf":         L.NewFunction(f.printf),
		"sb_counter_inc": L.NewFunction(f.counterInc),
		"gettimeofday":   L.NewFunction(ffiGetTimeOfDay),
		"clock_gettime":  L.NewFunction(ffiClockGetTime),
	}
	t := L.CreateTable(0, 4)
	t.RawSetString("cdef", L.NewFunction(f.cdef))
	clib := L.NewUserData()
	mt := L.CreateTable(0, 4)
	mt.RawSetString("__index", L.NewFunction(f.index))
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("ffi.C.%s cannot be assigned in sbgo", L.CheckString(2))
		return 0
	}))
	clib.Metatable = mt
	t.RawSetString("C", clib)
	t.RawSetString("string", L.NewFunction(ffiString))
	t.RawSetString("new", L.NewFunction(ffiNew))
	t.RawSetString("abi", L.NewFunction(ffiABI))
	t.RawSetString("os", lua.LString("Linux"))
	t.RawSetString("arch", lua.LString("x64"))
	for _, name := range []string{"typeof", "cast", "metatype", "gc", "copy", "fill", "sizeof", "alignof", "offsetof", "istype", "errno", "load"} {
		name := name
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("ffi.%s is not supported in sbgo", name)
			return 0
		}))
	}
	return t
}

// index is ffi.C[name]: a supported function or a known enum constant.
func (f *ffiState) index(L *lua.LState) int {
	name := L.CheckString(2)
	if fn, ok := f.funcs[name]; ok {
		L.Push(fn)
		return 1
	}
	if v, ok := f.constants[name]; ok {
		L.Push(lua.LNumber(v))
		return 1
	}
	if v, ok := ffiConstants[name]; ok {
		L.Push(lua.LNumber(v))
		return 1
	}
	if f.declared[name] {
		L.RaiseError("ffi.C.%s is declared but not available in sbgo (supported: %s)", name, ffiSupported)
	}
	L.RaiseError("ffi.C.%s is not available in sbgo (supported: %s)", name, ffiSupported)
	return 0
}

var (
	cdefComment  = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	cdefFunction = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	cdefEnum     = regexp.MustCompile(`enum\s*[A-Za-z0-9_]*\s*\{([^}]*)\}`)
)

// cdef is ffi.cdef(decls). It accepts any declarations; it notes function
// names, so that calling an unsupported one gives a specific error, and
// enum constants, which ffi.C then returns.
func (f *ffiState) cdef(L *lua.LState) int {
	src := cdefComment.ReplaceAllString(formatString(L, 1, "cdef"), " ")
	for _, m := range cdefFunction.FindAllStringSubmatch(src, -1) {
		f.declared[m[1]] = true
	}
	for _, m := range cdefEnum.FindAllStringSubmatch(src, -1) {
		f.declareEnum(m[1])
	}
	return 0
}

// declareEnum records the constants of one enum body: NAME or NAME = value
// where value is an integer literal or an earlier constant. It stops at
// the first value it cannot evaluate.
func (f *ffiState) declareEnum(body string) {
	next := 0
	for _, item := range strings.Split(body, ",") {
		name, value, hasValue := strings.Cut(strings.TrimSpace(item), "=")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if hasValue {
			v, ok := f.enumValue(strings.TrimSpace(value))
			if !ok {
				return
			}
			next = v
		}
		f.constants[name] = next
		next++
	}
}

func (f *ffiState) enumValue(s string) (int, bool) {
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return int(v), true
	}
	if v, ok := f.constants[s]; ok {
		return v, true
	}
	v, ok := ffiConstants[s]
	return v, ok
}

// usleep is ffi.C.usleep(microseconds); it returns 0.
func (f *ffiState) usleep(L *lua.LState) int {
	if us := ljCheckNumber(L, 1, "usleep"); us > 0 {
		f.env.Sleep(time.Duration(us) * time.Microsecond)
	}
	L.Push(lua.LNumber(0))
	return 1
}

// sleep is ffi.C.sleep(seconds); it returns 0, the seconds left.
func (f *ffiState) sleep(L *lua.LState) int {
	if s := ljCheckNumber(L, 1, "sleep"); s > 0 {
		f.env.Sleep(time.Duration(s) * time.Second)
	}
	L.Push(lua.LNumber(0))
	return 1
}

// printf is ffi.C.printf(fmt, ...): string.format's conversions, C's
// length modifiers (%llu, %ld, %zu) accepted and ignored, uint64_t values
// printed in full, exact ties rounded to even as glibc does; it writes to
// env.Out and returns the byte count. (LuaJIT passes a Lua number to %d
// as a double, which C prints as garbage; here it prints the number.)
func (f *ffiState) printf(L *lua.LState) int {
	format := formatString(L, 1, "printf")
	buf := f.outBuf
	f.outBuf = nil // a __tostring calling printf gets its own
	b := appendLuaFormat(L, buf[:0], format, 2, "printf", true)
	n, _ := f.env.Out.Write(b)
	if cap(b) <= 64<<10 {
		f.outBuf = b[:0]
	}
	L.Push(lua.LNumber(n))
	return 1
}

// counterInc is ffi.C.sb_counter_inc(tid, kind): one more event of kind
// (ffi.C.SB_CNT_READ...) for the worker owning this state.
func (f *ffiState) counterInc(L *lua.LState) int {
	kind := ljCheckNumber(L, 2, "sb_counter_inc")
	if f.env.CounterInc != nil {
		f.env.CounterInc(int(kind))
	}
	return 0
}

// ffiGetTimeOfDay is ffi.C.gettimeofday(tv, tz) for a tv made by
// ffi.new("struct timeval"): it sets tv.tv_sec and tv.tv_usec and
// returns 0.
func ffiGetTimeOfDay(L *lua.LState) int {
	tv, ok := L.Get(1).(*lua.LTable)
	if !ok {
		L.RaiseError("ffi.C.gettimeofday needs a value from ffi.new(\"struct timeval\") in sbgo")
	}
	now := time.Now()
	tv.RawSetString("tv_sec", lua.LNumber(now.Unix()))
	tv.RawSetString("tv_usec", lua.LNumber(now.Nanosecond()/1000))
	L.Push(lua.LNumber(0))
	return 1
}

// Linux's clock ids, the ones ffi.C.clock_gettime reads.
const (
	clockRealtime  = 0
	clockMonotonic = 1
)

// monotonicBase is the origin of ffi.C.clock_gettime's CLOCK_MONOTONIC
// (POSIX leaves it unspecified). Reading Go's monotonic clock, the one
// the engine times events with, lets a script's own timings be compared
// with the engine's: the wall clock may be stepped during a run.
var monotonicBase = time.Now()

// ffiClockGetTime is ffi.C.clock_gettime(clk_id, ts) for a ts made by
// ffi.new("struct timespec") and the clocks CLOCK_REALTIME (0) and
// CLOCK_MONOTONIC (1): it sets ts.tv_sec and ts.tv_nsec and returns 0.
func ffiClockGetTime(L *lua.LState) int {
	id := ljCheckInt(L, 1, "clock_gettime")
	ts, ok := L.Get(2).(*lua.LTable)
	if !ok {
		L.RaiseError("ffi.C.clock_gettime needs a value from ffi.new(\"struct timespec\") in sbgo")
	}
	var sec, nsec int64
	switch id {
	case clockRealtime:
		now := time.Now()
		sec, nsec = now.Unix(), int64(now.Nanosecond())
	case clockMonotonic:
		d := int64(time.Since(monotonicBase))
		sec, nsec = d/1e9, d%1e9
	default:
		L.RaiseError("ffi.C.clock_gettime: clock %d is not supported in sbgo (only 0, CLOCK_REALTIME, and 1, CLOCK_MONOTONIC)", id)
	}
	ts.RawSetString("tv_sec", lua.LNumber(sec))
	ts.RawSetString("tv_nsec", lua.LNumber(nsec))
	L.Push(lua.LNumber(0))
	return 1
}

// ffiNew is ffi.new(ctype): only "struct timeval" (for gettimeofday) and
// "struct timespec" (for clock_gettime), returned as tables with numeric
// fields.
func ffiNew(L *lua.LState) int {
	ct := strings.Join(strings.Fields(formatString(L, 1, "new")), " ")
	var fields [2]string
	switch ct {
	case "struct timeval", "timeval":
		fields = [2]string{"tv_sec", "tv_usec"}
	case "struct timespec", "timespec":
		fields = [2]string{"tv_sec", "tv_nsec"}
	default:
		L.RaiseError("ffi.new(%q) is not supported in sbgo (only \"struct timeval\" and \"struct timespec\")", ct)
	}
	t := L.CreateTable(0, 2)
	for _, f := range fields {
		t.RawSetString(f, lua.LNumber(0))
	}
	L.Push(t)
	return 1
}

// ffiString is ffi.string(s [, len]) for Lua strings, which is all that
// can reach it without C pointers.
func ffiString(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if !ok {
		L.RaiseError("ffi.string is only supported on Lua strings in sbgo, got %s", L.Get(1).Type().String())
	}
	if L.Get(2) != lua.LNil {
		if n := ljCheckInt(L, 2, "string"); n >= 0 && n < len(s) {
			s = s[:n]
		}
	}
	L.Push(s)
	return 1
}

// ffiABI is ffi.abi(param) for the x86-64 Linux ABI.
func ffiABI(L *lua.LState) int {
	switch formatString(L, 1, "abi") {
	case "64bit", "le", "fpu":
		L.Push(lua.LTrue)
	default:
		L.Push(lua.LFalse)
	}
	return 1
}
