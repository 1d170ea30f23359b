package luabind

import (
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// commandBarrier lets the threads of one parallel command wait for each
// other between phases: a workload's prepare can create its tables in one
// thread, load them from all, then index them, with every phase over
// before the next begins. It is cyclic, and a thread that ends stops
// counting, so the others are not left waiting for it; a thread that
// fails breaks it, so the others learn that the phase is incomplete.
type commandBarrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	parties int  // threads still running the command
	waiting int  // threads waiting in the current round
	round   int  // rounds released so far
	broken  bool // a thread failed
}

func newCommandBarrier(parties int) *commandBarrier {
	b := &commandBarrier{parties: parties}
	b.cond.L = &b.mu
	return b
}

// wait blocks until every running thread has called it, and reports
// whether the round completed: false once a thread has failed.
func (b *commandBarrier) wait() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken {
		return false
	}
	b.waiting++
	if b.waiting >= b.parties {
		b.release()
		return true
	}
	round := b.round
	for round == b.round && !b.broken {
		b.cond.Wait()
	}
	// Broken while this thread waited: false, even when a thread that
	// ended afterwards released the round.
	return !b.broken
}

// leave takes a thread that has ended out of the count; failed breaks
// the barrier for the others.
func (b *commandBarrier) leave(failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parties--
	switch {
	case failed:
		b.broken = true
		b.cond.Broadcast()
	case !b.broken && b.waiting > 0 && b.waiting >= b.parties:
		b.release()
	}
}

func (b *commandBarrier) release() {
	b.waiting = 0
	b.round++
	b.cond.Broadcast()
}

// luaBarrier is sysbench.cmdline.barrier() -> boolean, an sbgo
// extension: in a thread of a parallel command it waits until every
// other thread of the command has called it too, and returns false when
// one of them failed instead; anywhere else there is no one to wait
// for, and it returns true.
func (st *state) luaBarrier(L *lua.LState) int {
	ok := true
	if st.barrier != nil {
		ok = st.barrier.wait()
	}
	L.Push(lua.LBool(ok))
	return 1
}
