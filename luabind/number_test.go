package luabind

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFixedSmallMatchesExact checks appendFixedSmall against strconv's
// exact conversion (appendFixedExact) for both tie rules: wherever the
// quick way answers, it prints what the exact one prints; it declines
// every exact tie (where the two rules differ) and answers for the amounts
// SQL text carries.
func TestFixedSmallMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []float64{0, 5e-324, 1e-300, 0.005, 0.125, 0.375, 2.5, 1.005, 0.995, 9.995, 99.995,
		999999.995, 0.5, 1.5, 1e12, 1 << 40, 1<<40 - 1, 109951162.7775, 1 << 52, 1<<52 - 0.5, 1<<51 + 0.5, 45035996273704.95, 1e-9, 4.35, 0.045}
	for i := 0; i < 20000; i++ {
		values = append(values,
			float64(rng.IntN(500000-100)+100)/100,                                        // payment amounts
			float64(rng.IntN(1000))*1.25,                                                 // products of prices
			rng.Float64()*math.Pow(10, float64(rng.IntN(14)-4)),                          // any magnitude
			(float64(rng.IntN(1<<20))+0.5)/float64(int(1)<<rng.IntN(12)),                 // binary fractions, ties among them
			math.Nextafter(float64(rng.IntN(100000))+0.5, math.Inf(rng.IntN(2)*2-1))/100, // near ties
		)
	}
	answered, ties := 0, 0
	for _, f := range values {
		for prec := 0; prec <= 11; prec++ {
			even := string(appendFixedExact(nil, f, prec, true))
			away := string(appendFixedExact(nil, f, prec, false))
			got, ok := appendFixedSmall([]byte("x"), f, prec)
			if even != away {
				ties++
				if ok {
					t.Fatalf("%%.%df of %v: a tie (%s or %s) answered %q", prec, f, even, away, got)
				}
				continue
			}
			if !ok {
				continue
			}
			answered++
			if string(got) != "x"+even {
				t.Fatalf("%%.%df of %v (%x): got %q, want %q", prec, f, math.Float64bits(f), got[1:], even)
			}
		}
	}
	if ties == 0 {
		t.Error("no exact tie was tried")
	}
	for _, c := range []struct {
		f    float64
		prec int
		want string
	}{{12.34, 2, "12.34"}, {0.05, 2, "0.05"}, {4999.99, 2, "4999.99"}, {7, 0, "7"}, {0.001, 4, "0.0010"}, {3.14159, 3, "3.142"}} {
		got, ok := appendFixedSmall(nil, c.f, c.prec)
		if !ok || string(got) != c.want {
			t.Errorf("%%.%df of %v: got %q, %v; want %q answered", c.prec, c.f, got, ok, c.want)
		}
	}
	t.Logf("%d of %d conversions answered, %d ties declined", answered, len(values)*12, ties)
}
