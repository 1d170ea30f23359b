package luabind

import "sync"

// sysbench 1.0.20 seeds each worker's xoroshiro128+ state with four
// outputs of glibc's random(), which --rand-seed seeds with srandom(): a
// worker takes the next four outputs as it starts. sbgo's workers take
// them in thread id order, one of the orders sysbench's racing threads
// take them in, so that a one-thread run with --rand-seed draws sysbench's
// very numbers (with more threads, sysbench's own order varies from run to
// run).

// glibcRandom is glibc's random() in its default configuration
// (TYPE_3: an additive feedback generator over 31 words, lag 3).
type glibcRandom struct {
	r    [31]uint32
	f, b int // the front and rear positions in r
}

// newGlibcRandom returns the generator srandom(seed) leaves.
func newGlibcRandom(seed uint32) *glibcRandom {
	if seed == 0 {
		seed = 1
	}
	g := &glibcRandom{f: 3}
	g.r[0] = seed
	word := int64(int32(seed)) // glibc keeps it in an int32_t
	for i := 1; i < len(g.r); i++ {
		// 16807 * word % (2^31 - 1) without overflowing 31 bits.
		hi, lo := word/127773, word%127773
		word = 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		g.r[i] = uint32(word)
	}
	for i := 0; i < 10*len(g.r); i++ {
		g.next()
	}
	return g
}

// next is random(): 31 random bits.
func (g *glibcRandom) next() uint32 {
	g.r[g.f] += g.r[g.b]
	v := g.r[g.f] >> 1
	g.f, g.b = (g.f+1)%len(g.r), (g.b+1)%len(g.r)
	return v
}

// workerSeeds hands out the workers' xoroshiro128+ states, drawn from one
// glibc stream in thread id order whatever order the workers start in.
// Workers call it once each, as they start.
type workerSeeds struct {
	mu    sync.Mutex
	g     *glibcRandom
	drawn [][2]uint64 // the states of threads 0..len-1
}

// newWorkerSeeds seeds the stream as srandom does: with seed's low 32
// bits (sysbench passes --rand-seed as an unsigned int).
func newWorkerSeeds(seed uint64) *workerSeeds {
	return &workerSeeds{g: newGlibcRandom(uint32(seed))}
}

// state returns worker tid's xoroshiro128+ state.
func (w *workerSeeds) state(tid int) (uint64, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.drawn) <= tid {
		s0 := uint64(w.g.next())<<32 | uint64(w.g.next())
		s1 := uint64(w.g.next())<<32 | uint64(w.g.next())
		if s0|s1 == 0 {
			s1 = 1 // xoroshiro128+ never leaves the all-zero state
		}
		w.drawn = append(w.drawn, [2]uint64{s0, s1})
	}
	s := w.drawn[tid]
	return s[0], s[1]
}
