package luabind

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
)

// RandOptions are the --rand-* options. Every distribution reads them, so a
// Rand keeps a precomputed copy of what it needs.
type RandOptions struct {
	Type       string  // --rand-type: uniform, gaussian, special, pareto or zipfian
	SpecIter   int     // --rand-spec-iter: draws averaged by gaussian and special
	SpecPct    int     // --rand-spec-pct: width of special's hot window, % of the range
	SpecRes    int     // --rand-spec-res: share of special's values in the hot window, %
	ParetoH    float64 // --rand-pareto-h
	ZipfianExp float64 // --rand-zipfian-exp
}

// DefaultRandOptions returns sysbench 1.0.20's defaults (special is the
// default distribution there; zipfian's exponent is master's default).
func DefaultRandOptions() RandOptions {
	return RandOptions{
		Type:       "special",
		SpecIter:   12,
		SpecPct:    1,
		SpecRes:    75,
		ParetoH:    0.2,
		ZipfianExp: 0.8,
	}
}

// Validate checks the options sysbench checks, with sysbench's wording (the
// caller adds the "FATAL: " prefix). Like sysbench, it accepts any numbers
// for the other options: a Pareto h outside (0,1), for one, makes pareto
// return a.
func (o *RandOptions) Validate() error {
	if _, ok := randKindByName(o.Type); !ok {
		return errors.New("Invalid random numbers distribution: " + o.Type + ".")
	}
	if o.ZipfianExp < 0 {
		return errors.New("--rand-zipfian-exp must be >= 0")
	}
	if math.IsNaN(o.ZipfianExp) || math.IsInf(o.ZipfianExp, 1) {
		// sbgo's own check: Zipfian never returns for these.
		return errors.New("--rand-zipfian-exp must be a finite number")
	}
	return nil
}

// randKind is a distribution, resolved from --rand-type once so that
// Default does not compare strings per call.
type randKind uint8

const (
	randUniform randKind = iota
	randGaussian
	randSpecial
	randPareto
	randZipfian
)

func randKindByName(name string) (randKind, bool) {
	switch name {
	case "uniform":
		return randUniform, true
	case "gaussian":
		return randGaussian, true
	case "special":
		return randSpecial, true
	case "pareto":
		return randPareto, true
	case "zipfian":
		return randZipfian, true
	}
	return 0, false
}

// randParams are the per-distribution constants sysbench computes once at
// start-up, with the same C types: the integer options are unsigned there,
// so a negative --rand-spec-iter becomes a huge iteration count as it does
// in sysbench.
type randParams struct {
	kind        randKind
	iter        uint32
	iterMult    float64 // 1/iter; +Inf for iter 0, which makes gaussian return a
	pctMult     float64 // pct/100
	pct2Mult    float64 // pct/200
	resMult     float64 // 100/(100-res)
	paretoPower float64 // ln(h)/ln(1-h)
	zipfExp     float64
	zipfS       float64
	zipfHX1     float64 // H(1.5) - 1
}

func newRandParams(opts *RandOptions) randParams {
	o := DefaultRandOptions()
	if opts != nil {
		o = *opts
	}
	kind, ok := randKindByName(o.Type)
	if !ok {
		kind = randSpecial // unvalidated options: fall back to 1.0.20's default
	}
	iter := uint32(o.SpecIter)
	pct := uint32(o.SpecPct)
	res := uint32(o.SpecRes)
	e := o.ZipfianExp
	return randParams{
		kind:        kind,
		iter:        iter,
		iterMult:    1.0 / float64(iter),
		pctMult:     float64(pct) / 100.0,
		pct2Mult:    float64(pct) / 200.0,
		resMult:     100.0 / (100.0 - float64(res)),
		paretoPower: math.Log(o.ParetoH) / math.Log(1.0-o.ParetoH),
		zipfExp:     e,
		zipfS:       2 - zipfHIntegralInverse(zipfHIntegral(2.5, e)-zipfH(2, e), e),
		zipfHX1:     zipfHIntegral(1.5, e) - 1,
	}
}

// Rand is one thread's generator: sysbench's xoroshiro128+ and the
// distributions built on it, with sysbench's 32-bit arithmetic. It is not
// safe for concurrent use; each worker owns one.
type Rand struct {
	s0, s1 uint64
	p      randParams

	// zipfian's normalising constant depends on the range only; scripts
	// draw from the same range over and over, so the last one is kept.
	zipfN  uint32
	zipfHN float64
}

// NewRand returns a generator whose state is expanded from seed with
// splitmix64, as xoroshiro's authors recommend. splitmix64's output is a
// bijection of its counter, so two consecutive outputs are never both zero
// and the state is never the all-zero fixed point.
func NewRand(seed uint64, opts *RandOptions) *Rand {
	s0 := randSplitMix64(&seed)
	s1 := randSplitMix64(&seed)
	return newRandFromState(s0, s1, opts)
}

// newRandFromState returns a generator with the given xoroshiro128+ state
// words; the state must not be all zero.
func newRandFromState(s0, s1 uint64, opts *RandOptions) *Rand {
	r := &Rand{s0: s0, s1: s1, p: newRandParams(opts)}
	r.zipfHN = zipfHIntegral(0.5, r.p.zipfExp) // matches zipfN == 0
	return r
}

// setOptions applies new --rand-* options and keeps the generator's
// state, so a sequence already drawn from (at a script's top level)
// continues rather than restarts.
func (r *Rand) setOptions(opts *RandOptions) {
	r.p = newRandParams(opts)
	r.zipfHN = zipfHIntegral(0.5, r.p.zipfExp)
}

// sysbench seeds its main thread from glibc's random() before anything calls
// srandom(), i.e. from glibc's default seed 1, whose first four outputs are
// 1804289383, 846930886, 1681692777 and 1714636915. The next two seed the
// unique() sequence (see randUniqueSeq).
const (
	randSysbenchMainS0 = 1804289383<<32 | 846930886
	randSysbenchMainS1 = 1681692777<<32 | 1714636915
)

// newRandSysbenchMain returns a generator in the state sysbench 1.0.20's
// main thread starts with, so that code running there (prepare, help,
// custom commands, top-level script code) draws sysbench's very numbers.
func newRandSysbenchMain(opts *RandOptions) *Rand {
	return newRandFromState(randSysbenchMainS0, randSysbenchMainS1, opts)
}

func randSplitMix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64 returns the next raw xoroshiro128+ output.
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	result := s0 + s1
	s1 ^= s0
	r.s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ (s1 << 14)
	r.s1 = bits.RotateLeft64(s1, 36)
	return result
}

// Double returns a value in [0,1): the top 52 bits of the next output as the
// mantissa of a double in [1,2), minus 1, as sysbench does.
func (r *Rand) Double() float64 {
	return math.Float64frombits(0x3ff<<52|r.Uint64()>>12) - 1
}

// randCUint32 converts a double to uint32 the way sysbench's x86-64 build
// does for both (uint32_t) casts and LuaJIT FFI arguments: truncate toward
// zero to 64 bits and keep the low 32, so negatives wrap. NaN and values
// beyond the int64 range give the "integer indefinite" 1<<63, whose low 32
// bits are 0.
func randCUint32(f float64) uint32 {
	if !(f > -0x1p63 && f < 0x1p63) {
		return 0
	}
	return uint32(int64(f))
}

// The explicit float64() conversions around products below keep Go from
// fusing them into multiply-adds, which would round differently from
// sysbench on architectures that have FMA.

// Uniform returns a + Double()*(b-a+1) with b-a+1 in uint32 arithmetic, so
// Uniform(0, 4294967295) is always 0 and Uniform(10, 1) is huge, as in
// sysbench.
func (r *Rand) Uniform(a, b uint32) uint32 {
	return randCUint32(float64(a) + float64(r.Double()*float64(b-a+1)))
}

// Gaussian returns a plus the truncated average of --rand-spec-iter uniform
// draws over [0, b-a+1).
func (r *Rand) Gaussian(a, b uint32) uint32 {
	t := float64(b - a + 1)
	sum := 0.0
	for i := uint32(0); i < r.p.iter; i++ {
		sum += float64(r.Double() * t)
	}
	return a + randCUint32(sum*r.p.iterMult)
}

// Special is 1.0.20's "special" distribution: one draw picks the branch. A
// low draw (probability 100-res %) returns a gaussian-like value; a high
// one is reused to place the value in a window pct % of the range wide
// around the middle, which is why the window's low part is never produced.
func (r *Rand) Special(a, b uint32) uint32 {
	t := float64(b - a)
	rnd := r.Double()
	if float64(rnd*float64(t*r.p.resMult)) < t {
		sum := 0.0
		for i := uint32(0); i < r.p.iter; i++ {
			sum += r.Double()
		}
		return randCUint32(float64(a) + float64(float64(sum*t)*r.p.iterMult))
	}
	d := float64(t * r.p.pctMult)
	res := float64(rnd * (d + 1))
	res += t/2 - float64(t*r.p.pct2Mult)
	return a + randCUint32(res)
}

// Pareto returns a + trunc((b-a+1) * Double()^p) with p = ln(h)/ln(1-h).
func (r *Rand) Pareto(a, b uint32) uint32 {
	return a + randCUint32(float64(b-a+1)*math.Pow(r.Double(), r.p.paretoPower))
}

// Zipfian returns a + k - 1 with k in [1, b-a+1] and P(k) proportional to
// k^-exp, sampled like sysbench master by rejection-inversion (Hörmann and
// Derflinger), which works for every exponent >= 0.
func (r *Rand) Zipfian(a, b uint32) uint32 {
	n := b - a + 1
	e := r.p.zipfExp
	if n != r.zipfN {
		r.zipfN = n
		r.zipfHN = zipfHIntegral(float64(n)+0.5, e)
	}
	hN, hX1 := r.zipfHN, r.p.zipfHX1
	for {
		u := hN + float64(r.Double()*(hX1-hN))
		x := zipfHIntegralInverse(u, e)
		k := randCUint32(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		// The first test is the cheap sufficient condition from the paper;
		// the second is the exact acceptance test.
		if float64(k)-x <= r.p.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return a + k - 1
		}
	}
}

// zipfHIntegral is H(x) = (x^(1-e) - 1)/(1-e), or ln(x) when e is 1: the
// integral of the hat function zipfH.
func zipfHIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return zipfExpm1OverX((1-e)*logX) * logX
}

// zipfH is x^-e.
func zipfH(x, e float64) float64 {
	return math.Exp(-e * math.Log(x))
}

// zipfHIntegralInverse is the inverse of zipfHIntegral.
func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // rounding can push t just below its domain
	}
	return math.Exp(zipfLog1pOverX(t) * x)
}

// zipfLog1pOverX is ln(1+x)/x, by its Taylor series near 0 where the
// quotient loses precision.
func zipfLog1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(0.33333333333333333-0.25*x))
}

// zipfExpm1OverX is (e^x - 1)/x, by its Taylor series near 0.
func zipfExpm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*0.33333333333333333*(1+0.25*x))
}

// Default draws from the distribution chosen by --rand-type.
func (r *Rand) Default(a, b uint32) uint32 {
	switch r.p.kind {
	case randUniform:
		return r.Uniform(a, b)
	case randGaussian:
		return r.Gaussian(a, b)
	case randPareto:
		return r.Pareto(a, b)
	case randZipfian:
		return r.Zipfian(a, b)
	}
	return r.Special(a, b)
}

// String appends template to dst with each '#' replaced by a random digit
// and each '@' by a random lowercase letter. sysbench fills a zeroed buffer
// of the template's length and stops at the first NUL, so from a NUL on the
// result is all NUL bytes.
func (r *Rand) String(dst []byte, template string) []byte {
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch c {
		case '#':
			// Uniform('0', '9') without randCUint32's range check: the
			// sum is within [48, 58] (58 only when it rounds up, as in
			// sysbench).
			c = byte(uint32(float64('0') + float64(r.Double()*10)))
		case '@':
			c = byte(uint32(float64('a') + float64(r.Double()*26)))
		case 0:
			for ; i < len(template); i++ {
				dst = append(dst, 0)
			}
			return dst
		}
		dst = append(dst, c)
	}
	return dst
}

// VarString appends Uniform(min, max) characters drawn from '0'..'z' (ASCII
// 48..122, punctuation included) to dst, as sysbench master does: nothing
// when max is 0, and min is taken as 1 when it exceeds max.
func (r *Rand) VarString(dst []byte, min, max uint32) []byte {
	if max == 0 {
		return dst
	}
	if min > max {
		min = 1
	}
	n := r.Uniform(min, max)
	for i := uint32(0); i < n; i++ {
		dst = append(dst, byte(r.Uniform('0', 'z')))
	}
	return dst
}

// randUniqueSeq is preshing's RandomSequence: a permutation of the 32-bit
// integers built from quadratic residues modulo the largest 32-bit prime,
// walked by an atomic index, so values do not repeat for 2^32 calls however
// many threads share it.
type randUniqueSeq struct {
	index  atomic.Uint32
	offset uint32
}

const randUniquePrime = 4294967291

// randUniquePermute maps x to a quadratic residue: x*x mod p for the lower
// half and p minus that for the upper half is a bijection of [0, p); the
// five values from p on map to themselves.
func randUniquePermute(x uint32) uint32 {
	if x >= randUniquePrime {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % randUniquePrime)
	if x <= randUniquePrime/2 {
		return residue
	}
	return randUniquePrime - residue
}

func newRandUniqueSeq(indexSeed, offsetSeed uint32) *randUniqueSeq {
	s := &randUniqueSeq{offset: randUniquePermute(randUniquePermute(offsetSeed) + 0x46790905)}
	s.index.Store(randUniquePermute(randUniquePermute(indexSeed) + 0x682f0161))
	return s
}

func (s *randUniqueSeq) next() uint32 {
	i := s.index.Add(1) - 1
	return randUniquePermute((randUniquePermute(i) + s.offset) ^ 0x5bf03635)
}

// randUniqueGlobal is seeded like sysbench's: from the fifth and sixth
// outputs of glibc's default-seeded random() (gcc evaluates
// rand_unique_seed(random(), random()) right to left, so the sixth is the
// index), hence the same first values on every run: 2672933100, 2916245674.
var randUniqueGlobal = newRandUniqueSeq(424238335, 1957747793)

// randUnique returns the next value of the process-wide unique sequence.
func randUnique() uint32 {
	return randUniqueGlobal.next()
}

// sysbench's Lua wrappers live in a chunk named "sysbench.rand.lua"; errors
// raised by Lua code there carry that position, so ours do too.
const (
	randErrStringLen   = `[string "sysbench.rand.lua"]:66: attempt to get length of local 'fmt' (a `
	randErrStringTable = `[string "sysbench.rand.lua"]:68: bad argument #1 to 'sb_rand_str' (cannot convert 'table' to 'const char *')`
	randErrVarMinMax   = `[string "sysbench.rand.lua"]:74: `
	randErrVarMaxPos   = `[string "sysbench.rand.lua"]:75: `
)

// randArgUint32 converts argument n as LuaJIT's FFI converts a Lua value to
// a uint32_t parameter: numbers by C conversion, booleans to 0 or 1, a
// uint64_t to its low 32 bits; anything else, numeric strings included, is
// an error without position, as FFI call errors are.
func randArgUint32(L *lua.LState, n int) uint32 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return randCUint32(float64(v))
	case lua.LBool:
		if v {
			return 1
		}
		return 0
	case *lua.LUserData:
		if u, ok := v.Value.(uint64); ok {
			return uint32(u)
		}
	}
	L.Error(lua.LString("bad argument #"+strconv.Itoa(n)+" to '?' (cannot convert '"+
		L.Get(n).Type().String()+"' to 'unsigned int')"), 0)
	return 0
}

// newRandTable builds the sysbench.rand table for one state; every function
// draws from r, the state's own generator.
func newRandTable(L *lua.LState, r *Rand) *lua.LTable {
	t := L.CreateTable(0, 4)
	set := func(name string, fn lua.LGFunction) {
		t.RawSetString(name, L.NewFunction(leafFunction(fn)))
	}
	numbers := &numberBoxes{}
	pair := func(draw func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			a := randArgUint32(L, 1)
			b := randArgUint32(L, 2)
			L.Push(numbers.box(float64(draw(a, b))))
			return 1
		}
	}
	set("uniform_uint64", func(L *lua.LState) int {
		pushUint64(L, r.Uint64())
		return 1
	})
	set("uniform_double", func(L *lua.LState) int {
		L.Push(numbers.box(r.Double()))
		return 1
	})
	set("uniform", pair(r.Uniform))
	set("gaussian", pair(r.Gaussian))
	set("special", pair(r.Special))
	set("pareto", pair(r.Pareto))
	set("zipfian", pair(r.Zipfian))
	set("default", pair(r.Default))
	set("unique", func(L *lua.LState) int {
		L.Push(lua.LNumber(randUnique()))
		return 1
	})

	// One buffer per state, reused; results come from the state's arena.
	var buf []byte
	var drawn stringArena
	set("string", func(L *lua.LState) int {
		switch v := L.Get(1).(type) {
		case lua.LString:
			buf = r.String(buf[:0], string(v))
			L.Push(drawn.newLString(buf))
			return 1
		case *lua.LTable:
			L.Error(lua.LString(randErrStringTable), 0)
		default:
			L.Error(lua.LString(randErrStringLen+v.Type().String()+" value)"), 0)
		}
		return 0
	})
	set("varstring", func(L *lua.LState) int {
		lo, hi := randVarStringBounds(L)
		buf = r.VarString(buf[:0], lo, hi)
		L.Push(drawn.newLString(buf))
		return 1
	})
	return t
}

// randVarStringBounds checks varstring's arguments as master's Lua wrapper
// does, assert(min_len <= max_len) then assert(max_len > 0), with LuaJIT's
// comparison errors, and converts them to uint32.
func randVarStringBounds(L *lua.LState) (uint32, uint32) {
	lo, hi := L.Get(1), L.Get(2)
	if !randCompare(L, lo, hi, true, randErrVarMinMax) {
		L.Error(lua.LString(randErrVarMinMax+"assertion failed!"), 0)
	}
	// Lua evaluates max_len > 0 as 0 < max_len.
	if !randCompare(L, lua.LNumber(0), hi, false, randErrVarMaxPos) {
		L.Error(lua.LString(randErrVarMaxPos+"assertion failed!"), 0)
	}
	// Only two numbers get past both comparisons.
	return randCUint32(float64(lo.(lua.LNumber))), randCUint32(float64(hi.(lua.LNumber)))
}

// randCompare evaluates a < b, or a <= b when orEqual, for two numbers or
// two strings, and raises LuaJIT's comparison error, at position where, for
// anything else.
func randCompare(L *lua.LState, a, b lua.LValue, orEqual bool, where string) bool {
	switch x := a.(type) {
	case lua.LNumber:
		if y, ok := b.(lua.LNumber); ok {
			return x < y || orEqual && x == y
		}
	case lua.LString:
		if y, ok := b.(lua.LString); ok {
			return x < y || orEqual && x == y
		}
	}
	ta, tb := a.Type().String(), b.Type().String()
	if ta == tb {
		L.Error(lua.LString(where+"attempt to compare two "+ta+" values"), 0)
	}
	L.Error(lua.LString(where+"attempt to compare "+ta+" with "+tb), 0)
	return false
}
