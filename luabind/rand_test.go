package luabind

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The reference figures in testdata/rand were drawn by the real sysbench
// 1.0.20 with gen.sh there; each file's header holds its command and script.

const randDraws = 100000

// randReadData returns the non-comment lines of testdata/rand/name.
func randReadData(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "rand", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// randReadCounts reads a reference histogram, one bin count per line.
func randReadCounts(t *testing.T, name string) []float64 {
	t.Helper()
	var counts []float64
	for _, line := range randReadData(t, name) {
		n, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		counts = append(counts, n)
	}
	return counts
}

// randHistogram draws n values in [lo, hi] and counts them in bins
// equal-width bins, binned as hist.lua bins them.
func randHistogram(t *testing.T, n int, draw func(a, b uint32) uint32, lo, hi uint32, bins int) []float64 {
	t.Helper()
	counts := make([]float64, bins)
	width := uint64(hi-lo) + 1
	for range n {
		v := draw(lo, hi)
		if v < lo || v > hi {
			t.Fatalf("draw %d outside [%d, %d]", v, lo, hi)
		}
		counts[uint64(v-lo)*uint64(bins)/width]++
	}
	return counts
}

// randChiSquareTwoSample is the chi-square statistic for "both histograms
// come from the same distribution", for two samples of equal size, and its
// degrees of freedom. Bins empty in both are left out.
func randChiSquareTwoSample(a, b []float64) (stat float64, df int) {
	for i := range a {
		if n := a[i] + b[i]; n > 0 {
			d := a[i] - b[i]
			stat += d * d / n
			df++
		}
	}
	return stat, df - 1
}

// randChiSquareOneSample compares observed counts with expected ones.
func randChiSquareOneSample(observed, expected []float64) (stat float64, df int) {
	for i := range observed {
		if expected[i] > 0 {
			d := observed[i] - expected[i]
			stat += d * d / expected[i]
			df++
		}
	}
	return stat, df - 1
}

// randChiSquareCritical is the chi-square value that a correct generator
// exceeds with probability 1e-6 (Wilson-Hilferty approximation, z = 4.753).
// The draws use fixed seeds, so the tests are deterministic; the threshold
// only has to be loose enough that a correct implementation passes with
// any seed.
func randChiSquareCritical(df int) float64 {
	const z = 4.753
	k := float64(df)
	c := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * c * c * c
}

// randZipfExpected is the closed form of the bounded Zipf law on [1, n],
// P(k) proportional to k^-exp, binned like randHistogram, scaled to draws.
func randZipfExpected(n uint32, exp float64, bins, draws int) []float64 {
	expected := make([]float64, bins)
	total := 0.0
	for k := uint32(1); k <= n; k++ {
		p := math.Pow(float64(k), -exp)
		expected[uint64(k-1)*uint64(bins)/uint64(n)] += p
		total += p
	}
	for i := range expected {
		expected[i] *= float64(draws) / total
	}
	return expected
}

// randWithOpts returns the defaults with change applied.
func randWithOpts(change func(o *RandOptions)) *RandOptions {
	o := DefaultRandOptions()
	if change != nil {
		change(&o)
	}
	return &o
}

// randDrawer picks the method a histogram row draws from.
type randDrawer func(r *Rand) func(a, b uint32) uint32

var (
	randDrawUniform  randDrawer = func(r *Rand) func(a, b uint32) uint32 { return r.Uniform }
	randDrawGaussian randDrawer = func(r *Rand) func(a, b uint32) uint32 { return r.Gaussian }
	randDrawSpecial  randDrawer = func(r *Rand) func(a, b uint32) uint32 { return r.Special }
	randDrawPareto   randDrawer = func(r *Rand) func(a, b uint32) uint32 { return r.Pareto }
	randDrawDefault  randDrawer = func(r *Rand) func(a, b uint32) uint32 { return r.Default }
)

// randDrawDouble draws uniform_double binned into [0, bins).
var randDrawDouble randDrawer = func(r *Rand) func(a, b uint32) uint32 {
	return func(_, b uint32) uint32 { return uint32(r.Double() * float64(b+1)) }
}

// randDrawStringChars draws the characters of ten-character templates
// made of c, as offsets from base, like hist.lua's string_* modes.
func randDrawStringChars(c byte, base byte) randDrawer {
	return func(r *Rand) func(a, b uint32) uint32 {
		tmpl := strings.Repeat(string(c), 10)
		var buf []byte
		return func(_, _ uint32) uint32 {
			if len(buf) == 0 {
				buf = r.String(buf[:0], tmpl)
			}
			v := buf[len(buf)-1] - base
			buf = buf[:len(buf)-1]
			return uint32(v)
		}
	}
}

// randHistRow is one histogram compared with a sysbench reference.
type randHistRow struct {
	name   string
	file   string
	opts   *RandOptions
	draw   randDrawer
	lo, hi uint32
	bins   int
}

// randHistRows mirrors gen.sh: each row draws what its file's command drew.
var randHistRows = []randHistRow{
	{"uniform", "uniform.txt", nil, randDrawUniform, 1, 1000, 20},
	{"gaussian", "gaussian.txt", nil, randDrawGaussian, 1, 1000, 20},
	{"special", "special.txt", nil, randDrawSpecial, 1, 1000, 20},
	{"pareto", "pareto.txt", nil, randDrawPareto, 1, 1000, 20},
	// default follows --rand-type
	{"default uniform", "default_uniform.txt", randWithOpts(func(o *RandOptions) { o.Type = "uniform" }), randDrawDefault, 1, 1000, 20},
	{"default gaussian", "default_gaussian.txt", randWithOpts(func(o *RandOptions) { o.Type = "gaussian" }), randDrawDefault, 1, 1000, 20},
	{"default special", "default_special.txt", randWithOpts(func(o *RandOptions) { o.Type = "special" }), randDrawDefault, 1, 1000, 20},
	{"default pareto", "default_pareto.txt", randWithOpts(func(o *RandOptions) { o.Type = "pareto" }), randDrawDefault, 1, 1000, 20},
	// the hot window sits just below the middle of a wide range, across two bins
	{"special wide range", "special_wide.txt", nil, randDrawSpecial, 1, 100000, 20},
	// the spec options reach special and gaussian, h reaches pareto
	{"special pct 10 res 50", "special_pct10_res50.txt", randWithOpts(func(o *RandOptions) { o.SpecPct, o.SpecRes = 10, 50 }), randDrawSpecial, 1, 1000, 20},
	{"gaussian iter 3", "gaussian_iter3.txt", randWithOpts(func(o *RandOptions) { o.SpecIter = 3 }), randDrawGaussian, 1, 1000, 20},
	{"pareto h 0.5", "pareto_h05.txt", randWithOpts(func(o *RandOptions) { o.ParetoH = 0.5 }), randDrawPareto, 1, 1000, 20},
	// uniform_double in 20 bins of [0,1)
	{"uniform_double", "uniform_double.txt", nil, randDrawDouble, 0, 19, 20},
	// string: '#' gives every digit, '@' every lowercase letter, evenly
	{"string digits", "string_digits.txt", nil, randDrawStringChars('#', '0'), 0, 9, 10},
	{"string letters", "string_letters.txt", nil, randDrawStringChars('@', 'a'), 0, 25, 26},
}

// TestRandShapeMatchesSysbench draws 100 000 values from a seeded generator
// and checks their histogram against sysbench's with a chi-square test.
func TestRandShapeMatchesSysbench(t *testing.T) {
	for i, row := range randHistRows {
		t.Run(row.name, func(t *testing.T) {
			want := randReadCounts(t, row.file)
			if len(want) != row.bins {
				t.Fatalf("%s has %d bins, want %d", row.file, len(want), row.bins)
			}
			r := NewRand(uint64(1000+i), row.opts)
			got := randHistogram(t, randDraws, row.draw(r), row.lo, row.hi, row.bins)
			stat, df := randChiSquareTwoSample(got, want)
			limit := randChiSquareCritical(df)
			t.Logf("chi-square %.1f, limit %.1f (df %d)", stat, limit, df)
			if stat > limit {
				t.Errorf("chi-square %.1f > %.1f (df %d)\n got %v\nwant %v", stat, limit, df, got, want)
			}
		})
	}
}

// TestRandHistogramsIdenticalFromSysbenchState starts from the state of
// sysbench's main thread, which drew the reference figures, so the same
// algorithms must give the very same counts.
func TestRandHistogramsIdenticalFromSysbenchState(t *testing.T) {
	for _, row := range randHistRows {
		t.Run(row.name, func(t *testing.T) {
			want := randReadCounts(t, row.file)
			r := newRandSysbenchMain(row.opts)
			got := randHistogram(t, randDraws, row.draw(r), row.lo, row.hi, row.bins)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("bin %d: got %v, want %v\n got %v\nwant %v", i, got[i], want[i], got, want)
				}
			}
		})
	}
}

// TestRandShapeTestRejectsSwaps shows the chi-square test is tight enough:
// drawing from the wrong distribution, or with a neighbouring parameter,
// fails against the reference.
func TestRandShapeTestRejectsSwaps(t *testing.T) {
	tests := []struct {
		name string
		file string
		opts *RandOptions
		draw randDrawer
	}{
		// gaussian and special are both centred: the hot window tells them apart
		{"gaussian against special", "special.txt", nil, randDrawGaussian},
		{"special against gaussian", "gaussian.txt", nil, randDrawSpecial},
		{"uniform against pareto", "pareto.txt", nil, randDrawUniform},
		// default must follow --rand-type, not stay special
		{"default special against default gaussian", "default_gaussian.txt", nil, randDrawDefault},
		// neighbouring parameters
		{"pareto h 0.25 against h 0.2", "pareto.txt", randWithOpts(func(o *RandOptions) { o.ParetoH = 0.25 }), randDrawPareto},
		{"gaussian iter 4 against iter 3", "gaussian_iter3.txt", randWithOpts(func(o *RandOptions) { o.SpecIter = 4 }), randDrawGaussian},
		{"special res 70 against res 75", "special.txt", randWithOpts(func(o *RandOptions) { o.SpecRes = 70 }), randDrawSpecial},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := randReadCounts(t, tt.file)
			r := NewRand(uint64(2000+i), tt.opts)
			got := randHistogram(t, randDraws, tt.draw(r), 1, 1000, 20)
			stat, df := randChiSquareTwoSample(got, want)
			limit := randChiSquareCritical(df)
			t.Logf("chi-square %.1f, limit %.1f (df %d)", stat, limit, df)
			if stat <= limit {
				t.Errorf("chi-square %.1f <= %.1f (df %d): the swap went unnoticed", stat, limit, df)
			}
		})
	}
}

// TestRandZipfianShape checks zipfian against the closed form P(k) ∝ k^-exp
// (sysbench 1.0.20 has no zipfian to draw a reference from).
func TestRandZipfianShape(t *testing.T) {
	tests := []struct {
		name     string
		exp      float64
		n        uint32
		bins     int
		draws    int
		against  float64 // exponent of the closed form compared with
		mustFail bool
	}{
		{"default exponent 0.8", 0.8, 1000, 20, randDraws, 0.8, false},
		// every bin its own value: the head of the law in detail
		{"exponent 0.8 per value", 0.8, 20, 20, randDraws, 0.8, false},
		// exponent 0 is uniform
		{"exponent 0", 0, 1000, 20, randDraws, 0, false},
		// exponent 1 takes the ln branches of H
		{"exponent 1", 1, 1000, 20, randDraws, 1, false},
		{"exponent 1.5", 1.5, 100, 20, randDraws, 1.5, false},
		// a range wider than the bins can show
		{"exponent 0.8 wide range", 0.8, 1000000, 20, randDraws, 0.8, false},
		// a steep law over few values rejects most often; with a million
		// draws, accepting on the cheap shortcut alone would fail this row
		{"exponent 3 per value", 3, 10, 10, 10 * randDraws, 3, false},
		// tightness: a neighbouring exponent fails
		{"exponent 0.8 against 0.85", 0.8, 1000, 20, randDraws, 0.85, true},
		{"exponent 0 against 0.1", 0, 1000, 20, randDraws, 0.1, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRand(uint64(3000+i), randWithOpts(func(o *RandOptions) { o.ZipfianExp = tt.exp }))
			const lo = 7 // zipfian(a, b) returns a + k - 1
			got := randHistogram(t, tt.draws, r.Zipfian, lo, lo+tt.n-1, tt.bins)
			stat, df := randChiSquareOneSample(got, randZipfExpected(tt.n, tt.against, tt.bins, tt.draws))
			limit := randChiSquareCritical(df)
			t.Logf("chi-square %.1f, limit %.1f (df %d)", stat, limit, df)
			if failed := stat > limit; failed != tt.mustFail {
				t.Errorf("chi-square %.1f, limit %.1f (df %d), want rejected=%v\n got %v", stat, limit, df, tt.mustFail, got)
			}
		})
	}
}

// TestRandMatchesSysbenchSequence replays sysbench's first draws from the
// state its main thread starts with and expects the same numbers.
func TestRandMatchesSysbenchSequence(t *testing.T) {
	tests := []struct {
		file string
		opts *RandOptions
	}{
		// defaults: default is special
		{"sequence.txt", nil},
		// every option changed: default is gaussian with 3 iterations
		{"sequence_opts.txt", randWithOpts(func(o *RandOptions) {
			o.Type, o.SpecIter, o.SpecPct, o.SpecRes, o.ParetoH = "gaussian", 3, 10, 50, 0.35
		})},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := newRandSysbenchMain(tt.opts)
			unique := newRandUniqueSeq(424238335, 1957747793)
			lines := randReadData(t, tt.file)
			if len(lines) < 50 {
				t.Fatalf("%s: only %d lines", tt.file, len(lines))
			}
			for n, line := range lines {
				call, want, _ := strings.Cut(line, " ")
				if got := randReplay(t, r, unique, call); got != want {
					t.Fatalf("line %d: %s = %s, sysbench gave %s", n+1, call, got, want)
				}
			}
		})
	}
}

// randReplay performs one call written as in sequence.lua's output.
func randReplay(t *testing.T, r *Rand, unique *randUniqueSeq, call string) string {
	t.Helper()
	name, args, _ := strings.Cut(strings.TrimSuffix(call, ")"), "(")
	switch name {
	case "uniform_uint64":
		return strconv.FormatUint(r.Uint64(), 10)
	case "uniform_double":
		return strconv.FormatFloat(r.Double(), 'g', 17, 64)
	case "unique":
		return strconv.FormatUint(uint64(unique.next()), 10)
	case "string":
		return string(r.String(nil, args))
	}
	as, bs, _ := strings.Cut(args, ",")
	a, errA := strconv.ParseFloat(as, 64)
	b, errB := strconv.ParseFloat(bs, 64)
	if errA != nil || errB != nil {
		t.Fatalf("bad call %q", call)
	}
	draw := map[string]func(a, b uint32) uint32{
		"uniform": r.Uniform, "gaussian": r.Gaussian, "special": r.Special,
		"pareto": r.Pareto, "default": r.Default,
	}[name]
	if draw == nil {
		t.Fatalf("unknown call %q", call)
	}
	return strconv.FormatUint(uint64(draw(randCUint32(a), randCUint32(b))), 10)
}

// TestRandCUint32 pins the double to uint32 conversion observed in
// sysbench 1.0.20 for FFI arguments, e.g. uniform(x, x) printing x.
func TestRandCUint32(t *testing.T) {
	tests := []struct {
		in   float64
		want uint32
	}{
		{5, 5},
		{1.7, 1},                     // truncated toward zero
		{4294967296 + 5, 5},          // wraps modulo 2^32
		{-1.5, 4294967295},           // truncated to -1, then wraps
		{-2147483651, 2147483645},    // -2^31-3
		{-4294967299, 4294967293},    // -2^32-3
		{1e20, 0},                    // beyond int64: integer indefinite
		{math.Exp2(63), 0},           // just beyond int64
		{-math.Exp2(63), 0},          // int64 minimum, low 32 bits 0
		{math.Inf(1), 0},             // +inf
		{math.Inf(-1), 0},            // -inf
		{math.NaN(), 0},              // NaN
		{math.Exp2(62) + 4097, 4096}, // large but in range: low 32 bits kept
	}
	for _, tt := range tests {
		if got := randCUint32(tt.in); got != tt.want {
			t.Errorf("randCUint32(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestRandDeterminism checks that a seed fixes the whole stream and that
// different seeds give different streams.
func TestRandDeterminism(t *testing.T) {
	stream := func(seed uint64) []uint32 {
		r := NewRand(seed, nil)
		var out []uint32
		for range 200 {
			out = append(out, r.Uniform(1, 1000000), r.Gaussian(1, 1000000), r.Special(1, 1000000),
				r.Pareto(1, 1000000), r.Zipfian(1, 1000000), r.Default(1, 1000000))
		}
		return out
	}
	a, b, c := stream(0), stream(0), stream(1)
	same, differ := true, 0
	for i := range a {
		same = same && a[i] == b[i]
		if a[i] != c[i] {
			differ++
		}
	}
	if !same {
		t.Error("seed 0 gave two different streams")
	}
	if differ < len(a)/2 {
		t.Errorf("seeds 0 and 1 share %d of %d values", len(a)-differ, len(a))
	}
	if r := NewRand(0, nil); r.s0 == 0 && r.s1 == 0 {
		t.Error("seed 0 left the state all zero")
	}
}

// TestRandGoQuirks checks sysbench's uint32 arithmetic on the Go methods.
func TestRandGoQuirks(t *testing.T) {
	r := NewRand(5, nil)
	for range 1000 {
		if v := r.Uniform(0, 4294967295); v != 0 {
			t.Fatalf("Uniform(0, 4294967295) = %d, want 0: the range wraps to 0", v)
		}
		if v := r.Uniform(10, 1); v < 10 && v > 1 {
			t.Fatalf("Uniform(10, 1) = %d, want a wrapped huge value", v)
		}
		if v := r.Gaussian(42, 42); v != 42 {
			t.Fatalf("Gaussian(42, 42) = %d", v)
		}
		if v := r.Special(42, 42); v != 42 {
			t.Fatalf("Special(42, 42) = %d", v)
		}
		if v := r.Pareto(42, 42); v != 42 {
			t.Fatalf("Pareto(42, 42) = %d", v)
		}
		if v := r.Zipfian(42, 42); v != 42 {
			t.Fatalf("Zipfian(42, 42) = %d", v)
		}
		if d := r.Double(); d < 0 || d >= 1 {
			t.Fatalf("Double() = %v", d)
		}
	}
	// --rand-spec-iter=0 makes the multiplier infinite and the sum NaN,
	// which converts to 0, so gaussian returns a.
	r0 := NewRand(5, randWithOpts(func(o *RandOptions) { o.SpecIter = 0 }))
	if v := r0.Gaussian(10, 1000); v != 10 {
		t.Errorf("Gaussian with 0 iterations = %d, want 10", v)
	}
}

func TestRandStringAndVarString(t *testing.T) {
	r := NewRand(9, nil)
	tests := []struct {
		name     string
		template string
		check    func(out string) bool
	}{
		// empty stays empty
		{"empty", "", func(s string) bool { return s == "" }},
		// other characters are copied, the length is kept
		{"literal", "a-b c", func(s string) bool { return s == "a-b c" }},
		{"digits and letters", "#@#", func(s string) bool {
			return len(s) == 3 && s[0] >= '0' && s[0] <= '9' && s[1] >= 'a' && s[1] <= 'z' && s[2] >= '0' && s[2] <= '9'
		}},
		// the C loop stops at a NUL and the zeroed buffer shows through
		{"NUL", "a\x00#b", func(s string) bool { return s == "a\x00\x00\x00" }},
	}
	for _, tt := range tests {
		if out := string(r.String([]byte("prefix:"), tt.template)); !strings.HasPrefix(out, "prefix:") || !tt.check(out[len("prefix:"):]) {
			t.Errorf("%s: String(%q) = %q", tt.name, tt.template, out)
		}
	}

	varTests := []struct {
		name             string
		min, max         uint32
		minLen, maxLen   int
		requireAllLength bool
	}{
		{"range", 3, 8, 3, 8, true},
		{"fixed", 5, 5, 5, 5, true},
		// max 0 writes nothing
		{"max zero", 0, 0, 0, 0, true},
		// min above max falls back to 1
		{"min above max", 9, 4, 1, 4, true},
	}
	for _, tt := range varTests {
		seen := map[int]bool{}
		for range 2000 {
			s := r.VarString(nil, tt.min, tt.max)
			if len(s) < tt.minLen || len(s) > tt.maxLen {
				t.Fatalf("%s: VarString(%d, %d) has length %d", tt.name, tt.min, tt.max, len(s))
			}
			for _, c := range s {
				if c < '0' || c > 'z' {
					t.Fatalf("%s: character %q outside '0'..'z'", tt.name, c)
				}
			}
			seen[len(s)] = true
		}
		if tt.requireAllLength && len(seen) != tt.maxLen-tt.minLen+1 {
			t.Errorf("%s: lengths seen %v", tt.name, seen)
		}
	}

	// The characters are uniform over the 75 values '0'..'z'.
	counts := make([]float64, 'z'-'0'+1)
	for n := 0; n < randDraws; {
		for _, c := range r.VarString(nil, 1, 100) {
			counts[c-'0']++
			n++
		}
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	expected := make([]float64, len(counts))
	for i := range expected {
		expected[i] = total / float64(len(counts))
	}
	stat, df := randChiSquareOneSample(counts, expected)
	if limit := randChiSquareCritical(df); stat > limit {
		t.Errorf("varstring characters: chi-square %.1f > %.1f\n%v", stat, limit, counts)
	}
}

// TestRandUnique checks sysbench's first values and that values never
// repeat, also when threads share the sequence.
func TestRandUnique(t *testing.T) {
	fresh := newRandUniqueSeq(424238335, 1957747793)
	for i, want := range []uint32{2672933100, 2916245674, 2834291422} {
		if got := fresh.next(); got != want {
			t.Errorf("value %d = %d, sysbench 1.0.20 gives %d", i+1, got, want)
		}
	}

	seen := make(map[uint32]bool, randDraws)
	for range randDraws {
		v := randUnique()
		if seen[v] {
			t.Fatalf("unique() repeated %d", v)
		}
		seen[v] = true
	}

	const workers, each = 4, randDraws / 4
	results := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				results[w] = append(results[w], randUnique())
			}
		})
	}
	wg.Wait()
	for _, vs := range results {
		for _, v := range vs {
			if seen[v] {
				t.Fatalf("unique() repeated %d across threads", v)
			}
			seen[v] = true
		}
	}

	// The five integers from the prime up map to themselves.
	for x := uint32(randUniquePrime); x != 0; x++ {
		if randUniquePermute(x) != x {
			t.Errorf("permute(%d) = %d", x, randUniquePermute(x))
		}
	}
}

func TestRandValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(o *RandOptions)
		want   string // "" for valid
	}{
		{"defaults", nil, ""},
		{"uniform", func(o *RandOptions) { o.Type = "uniform" }, ""},
		{"gaussian", func(o *RandOptions) { o.Type = "gaussian" }, ""},
		{"pareto", func(o *RandOptions) { o.Type = "pareto" }, ""},
		{"zipfian", func(o *RandOptions) { o.Type = "zipfian" }, ""},
		{"zipfian exponent 0", func(o *RandOptions) { o.ZipfianExp = 0 }, ""},
		{"unknown type", func(o *RandOptions) { o.Type = "foo" }, "Invalid random numbers distribution: foo."},
		// names are case-sensitive, as strcmp is
		{"upper case", func(o *RandOptions) { o.Type = "Uniform" }, "Invalid random numbers distribution: Uniform."},
		// 1.0.20 crashes on an empty --rand-type; we report it instead
		{"empty type", func(o *RandOptions) { o.Type = "" }, "Invalid random numbers distribution: ."},
		{"negative exponent", func(o *RandOptions) { o.ZipfianExp = -0.1 }, "--rand-zipfian-exp must be >= 0"},
		// sbgo's own: Zipfian would never return
		{"NaN exponent", func(o *RandOptions) { o.ZipfianExp = math.NaN() }, "--rand-zipfian-exp must be a finite number"},
		{"infinite exponent", func(o *RandOptions) { o.ZipfianExp = math.Inf(1) }, "--rand-zipfian-exp must be a finite number"},
	}
	for _, tt := range tests {
		err := randWithOpts(tt.change).Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: Validate() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// randNewState returns a Lua state whose global R is newRandTable(r).
func randNewState(t *testing.T, r *Rand) *lua.LState {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	L.SetGlobal("R", newRandTable(L, r))
	return L
}

// TestRandLuaQuirks runs Lua code against the table; each chunk returns
// true when the quirk holds, as checked on sysbench 1.0.20.
func TestRandLuaQuirks(t *testing.T) {
	tests := []struct {
		name string
		code string
	}{
		{"uniform full range is always 0", `
			for _ = 1, 1000 do if R.uniform(0, 4294967295) ~= 0 then return false end end
			return true`},
		{"negative bounds wrap", `
			local seen, n = {}, 0
			for _ = 1, 2000 do
				local v = R.uniform(-5, 5)
				if not (v >= 4294967291 or v <= 5) then return false end
				if not seen[v] then seen[v] = true; n = n + 1 end
			end
			return n == 11`},
		{"fractions truncate", `
			local seen, n = {}, 0
			for _ = 1, 1000 do
				local v = R.uniform(1.7, 3.2)
				if v < 1 or v > 3 or v % 1 ~= 0 then return false end
				if not seen[v] then seen[v] = true; n = n + 1 end
			end
			return n == 3`},
		{"reversed bounds give huge values", `
			for _ = 1, 100 do local v = R.uniform(10, 1); if v > 1 and v < 10 then return false end end
			return true`},
		{"out-of-range arguments convert like C", `
			return R.uniform(4294967296 + 5, 4294967296 + 5) == 5 and R.uniform(-1.5, -1.5) == 4294967295
				and R.uniform(1e20, 1e20) == 0 and R.uniform(0/0, 0/0) == 0`},
		{"booleans are 0 and 1", `
			return R.uniform(true, true) == 1 and R.uniform(false, false) == 0`},
		{"results are plain numbers", `
			return type(R.uniform(1, 2)) == "number" and type(R.gaussian(1, 2)) == "number"
				and type(R.special(1, 2)) == "number" and type(R.pareto(1, 2)) == "number"
				and type(R.zipfian(1, 2)) == "number" and type(R.default(1, 2)) == "number"
				and type(R.unique()) == "number" and type(R.uniform_double()) == "number"`},
		{"uniform_uint64 is a userdata", `return type(R.uniform_uint64()) == "userdata"`},
		{"extra arguments are ignored", `
			local v = R.uniform(7, 7, "x"); local u = R.unique("x", {}); return v == 7 and u >= 0`},
		{"string keeps length and literals", `
			local s = R.string("ab#@-")
			return #s == 5 and s:sub(1, 2) == "ab" and s:sub(3, 3):match("%d") ~= nil
				and s:sub(4, 4):match("%l") ~= nil and s:sub(5) == "-" and R.string("") == ""`},
		{"string stops at NUL", `return R.string("a\0#b") == "a\0\0\0"`},
		{"varstring within bounds", `
			for _ = 1, 500 do
				local s = R.varstring(2, 6)
				if #s < 2 or #s > 6 or s:find("[^0-z]") then return false end
			end
			return true`},
		// -1 passes the Lua asserts, wraps to 4294967295 > 5, so C takes min as 1
		{"varstring wrapped min", `
			for _ = 1, 200 do local n = #R.varstring(-1, 5); if n < 1 or n > 5 then return false end end
			return true`},
		// 0.7 passes "max_len > 0" but converts to 0: nothing is written
		{"varstring fractional max", `return R.varstring(0.5, 0.7) == ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := randNewState(t, NewRand(11, nil))
			if err := L.DoString(tt.code); err != nil {
				t.Fatal(err)
			}
			if got := L.Get(-1); got != lua.LTrue {
				t.Errorf("got %v", got)
			}
		})
	}
}

// TestRandLuaUint64 checks uniform_uint64 against the Go stream and that a
// uint64 argument converts to its low 32 bits, as a uint64_t cdata does.
func TestRandLuaUint64(t *testing.T) {
	L := randNewState(t, NewRand(13, nil))
	mirror := NewRand(13, nil)
	if err := L.DoString(`local u = R.uniform_uint64(); return u, R.uniform(u, u)`); err != nil {
		t.Fatal(err)
	}
	want := mirror.Uint64()
	mirror.Double() // the uniform call's draw
	ud, ok := L.Get(-2).(*lua.LUserData)
	if !ok || ud.Value != want {
		t.Fatalf("uniform_uint64() = %v, want %d", L.Get(-2), want)
	}
	if got := L.Get(-1); got != lua.LNumber(uint32(want)) {
		t.Errorf("uniform(u, u) = %v, want %d", got, uint32(want))
	}
}

// TestRandLuaErrors pins the error texts of sysbench 1.0.20 (and master's
// for varstring), caught with pcall.
func TestRandLuaErrors(t *testing.T) {
	tests := []struct {
		code string
		want string
	}{
		{`R.uniform("1", 2)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.uniform(1, "2")`, `bad argument #2 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.uniform(1)`, `bad argument #2 to '?' (cannot convert 'nil' to 'unsigned int')`},
		{`R.uniform()`, `bad argument #1 to '?' (cannot convert 'nil' to 'unsigned int')`},
		{`R.uniform({}, 5)`, `bad argument #1 to '?' (cannot convert 'table' to 'unsigned int')`},
		{`R.uniform(print, 5)`, `bad argument #1 to '?' (cannot convert 'function' to 'unsigned int')`},
		{`R.default("x", 5)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.gaussian("x", 5)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.special("x", 5)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.pareto("x", 5)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.zipfian("x", 5)`, `bad argument #1 to '?' (cannot convert 'string' to 'unsigned int')`},
		{`R.string(5)`, `[string "sysbench.rand.lua"]:66: attempt to get length of local 'fmt' (a number value)`},
		{`R.string()`, `[string "sysbench.rand.lua"]:66: attempt to get length of local 'fmt' (a nil value)`},
		{`R.string(true)`, `[string "sysbench.rand.lua"]:66: attempt to get length of local 'fmt' (a boolean value)`},
		{`R.string({})`, `[string "sysbench.rand.lua"]:68: bad argument #1 to 'sb_rand_str' (cannot convert 'table' to 'const char *')`},
		{`R.varstring(6, 5)`, `[string "sysbench.rand.lua"]:74: assertion failed!`},
		{`R.varstring(0, 0)`, `[string "sysbench.rand.lua"]:75: assertion failed!`},
		{`R.varstring(-3, -1)`, `[string "sysbench.rand.lua"]:75: assertion failed!`},
		{`R.varstring(nil, 5)`, `[string "sysbench.rand.lua"]:74: attempt to compare nil with number`},
		{`R.varstring(5)`, `[string "sysbench.rand.lua"]:74: attempt to compare number with nil`},
		{`R.varstring({}, {})`, `[string "sysbench.rand.lua"]:74: attempt to compare two table values`},
		// two strings compare as strings, then "5" > 0 fails
		{`R.varstring("3", "5")`, `[string "sysbench.rand.lua"]:75: attempt to compare number with string`},
	}
	for _, tt := range tests {
		L := randNewState(t, NewRand(17, nil))
		if err := L.DoString(`return pcall(function() ` + tt.code + ` end)`); err != nil {
			t.Fatal(err)
		}
		if ok, msg := L.Get(-2), L.Get(-1); ok != lua.LFalse || msg.String() != tt.want {
			t.Errorf("%s: got %v %q, want error %q", tt.code, ok, msg, tt.want)
		}
	}
}

// TestRandNoAllocation holds the per-event paths to zero allocations.
func TestRandNoAllocation(t *testing.T) {
	for _, typ := range []string{"uniform", "gaussian", "special", "pareto", "zipfian"} {
		r := NewRand(1, randWithOpts(func(o *RandOptions) { o.Type = typ }))
		if n := testing.AllocsPerRun(1000, func() { r.Default(1, 1000000) }); n != 0 {
			t.Errorf("Default with %s allocates %v times", typ, n)
		}
	}
	r := NewRand(1, nil)
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(1000, func() {
		buf = r.String(buf[:0], randOltpCTemplate)
		buf = r.VarString(buf[:0], 1, 200)
	}); n != 0 {
		t.Errorf("String/VarString into a large enough buffer allocate %v times", n)
	}
}

// randOltpCTemplate is the c column template of sysbench's OLTP scripts.
const randOltpCTemplate = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"

func BenchmarkRandDefault(b *testing.B) {
	for _, typ := range []string{"uniform", "gaussian", "special", "pareto", "zipfian"} {
		b.Run(typ, func(b *testing.B) {
			r := NewRand(1, randWithOpts(func(o *RandOptions) { o.Type = typ }))
			b.ReportAllocs()
			var sink uint32
			for b.Loop() {
				sink += r.Default(1, 1000000)
			}
			_ = sink
		})
	}
}

func BenchmarkRandString(b *testing.B) {
	r := NewRand(1, nil)
	buf := make([]byte, 0, len(randOltpCTemplate))
	b.ReportAllocs()
	for b.Loop() {
		buf = r.String(buf[:0], randOltpCTemplate)
	}
}

// TestRandStringMatchesUniform: String's inlined generator draws exactly
// what Uniform('0', '9') and Uniform('a', 'z') draw, character by
// character, and leaves the generator where they would.
func TestRandStringMatchesUniform(t *testing.T) {
	opts := DefaultRandOptions()
	templates := []string{
		"###########-###########-###########-###########-###########-###########-###########-###########-###########-###########",
		"@@@@-####-ab#@", "", "no draws", "##\x00##@@", "\x00",
	}
	for seed := uint64(1); seed <= 50; seed++ {
		for _, tmpl := range templates {
			fast, slow := NewRand(seed, &opts), NewRand(seed, &opts)
			got := fast.String([]byte("prefix"), tmpl)
			want := []byte("prefix")
			for i := 0; i < len(tmpl); i++ {
				switch c := tmpl[i]; c {
				case '#':
					want = append(want, byte(slow.Uniform('0', '9')))
				case '@':
					want = append(want, byte(slow.Uniform('a', 'z')))
				case 0:
					for ; i < len(tmpl); i++ {
						want = append(want, 0)
					}
				default:
					want = append(want, c)
				}
			}
			if string(got) != string(want) {
				t.Fatalf("seed %d, template %q: %q, want %q", seed, tmpl, got, want)
			}
			if fast.Uint64() != slow.Uint64() {
				t.Fatalf("seed %d, template %q: generators differ afterwards", seed, tmpl)
			}
		}
	}
}

// String's loop keeps the generator's state in locals: it must draw what
// one Double per '#' or '@' draws, and leave the generator where they
// leave it.
func TestRandStringDrawsAsDouble(t *testing.T) {
	a, b := NewRand(3, nil), NewRand(3, nil)
	b.s0, b.s1 = a.s0, a.s1
	const template = "###########-@@@@-##\x00#"
	for range 100 {
		got := string(a.String([]byte("p"), template))
		want := []byte("p")
		for i := 0; i < len(template); i++ {
			switch c := template[i]; c {
			case '#':
				want = append(want, byte('0'+b.Double()*10))
			case '@':
				want = append(want, byte('a'+b.Double()*26))
			case 0:
				want = append(want, make([]byte, len(template)-i)...)
				i = len(template)
			default:
				want = append(want, c)
			}
		}
		if got != string(want) {
			t.Fatalf("String = %q, per-character draws give %q", got, want)
		}
	}
	if a.Uint64() != b.Uint64() {
		t.Error("the generators parted after String")
	}
}
