package engine

import (
	"runtime"
	"time"
)

// ThreadPolicy is how a run's workers use OS threads and Go's processors
// (Ps). It is decided once, from --threads, the driver's io mode and the
// CPU count (DecideThreadPolicy), and handed down as a value: to the run
// (Config.ThreadPolicy), to the drivers (Options.ThreadPolicy) and to the
// quick reads of their sockets. docs/performance.md has the measurements
// behind every bound.
//
// Why own threads: a session that waits for its server in a blocking
// read(2) holds its OS thread. With fewer Ps than such workers, the
// runtime's sysmon takes the P of a blocked worker and wakes another
// thread to run it, and the worker has to win a P back when its answer
// arrives. With a thread and a P each, a worker resumes at once, as a C
// client's thread does, and the kernel shares the CPUs between them.
type ThreadPolicy struct {
	Threads int // --threads
	CPUs    int // CPUs the run shares with everything else (runtime.NumCPU)

	// MayOwnThreads tells that there are few enough workers to own OS
	// threads, should their sessions block: up to osThreadWorkersPerCPU
	// per CPU. A driver's automatic io mode blocks only then.
	MayOwnThreads bool

	// OwnThreads tells that each worker owns an OS thread: the sessions
	// block and MayOwnThreads. The other fields apply only then.
	OwnThreads bool
	// Locked tells that the workers are also locked to their threads
	// (runtime.LockOSThread): up to lockedWorkersPerCPU per CPU. Beyond, a
	// worker keeps its thread all the same, since its raw reads never
	// leave it and its yields put it back on its own P's queue, but the
	// lock costs more than it keeps: a worker waiting its turn for a CPU
	// can pass 10 ms without a yield, and sysmon's preemption of a locked
	// goroutine is a hand-off between two threads (docs/performance.md,
	// "Locked workers and the processor count", has the measurements).
	Locked bool
	// Procs is GOMAXPROCS for the run: a P per worker, none spare; 0
	// leaves GOMAXPROCS as it is. The run only raises it, so with fewer
	// workers than CPUs the runtime's default (a P per CPU) stays.
	Procs int
	// QuickWait is how long a read waits for its answer unseen by the
	// scheduler (sockconn.SetQuickWait) before it blocks the way the
	// scheduler sees: quickWait.
	QuickWait time.Duration
}

// osThreadWorkersPerCPU bounds ThreadPolicy.MayOwnThreads: the workers may
// own OS threads up to this many per CPU, and drivers use Go's network
// poller beyond.
//
// Why: a worker on an OS thread of its own sleeps right after its write,
// as a C client's thread does, so the kernel can run the server's thread
// on the same CPU; on the poller the writing thread goes on running other
// goroutines, and the server's thread is woken on the other CPU (32
// workers of oltp_point_select on 2 CPUs: 0.78 -> 0.92 times sysbench's
// tps, poller -> own threads; docs/performance.md, "Blocking sockets: a
// worker owns an OS thread"). Beyond, the scheduler's own work (idle Ps
// searched, threads woken, a yield per worker every lockedYieldEvery)
// grows with the number of Ps.
const osThreadWorkersPerCPU = 32

// lockedWorkersPerCPU bounds ThreadPolicy.Locked: up to this many workers
// per CPU are locked to their OS threads.
//
// Why: below it, workers that were not locked lost tps: a preempted one
// goes to the global run queue, and a thread woken for an idle P may take
// it away. Beyond it the lock's hand-offs cost more (ThreadPolicy.Locked).
//
// No P is left spare beside the workers. A spare P ran at once what a
// worker's P had to run when the worker blocked the way the scheduler
// sees, which was often while quick waits lasted 5 ms; with quickWait
// such blocks are rare, and beside the spare P the server spent more CPU
// per transaction, and the client got less tps (docs/performance.md,
// "Locked workers and the processor count", "A tenth machine").
const lockedWorkersPerCPU = 16

// quickWait is how long a worker that owns its OS thread waits for an
// answer before it blocks the way the runtime's scheduler sees: longer
// than nearly every statement of a benchmark, row lock waits included,
// because a fallback costs more than a long raw wait does. A fallback
// re-arms the socket's timeout twice, and a read the scheduler sees for
// 10 ms has its P taken by sysmon, which then polls every 20 µs for a
// while; a raw wait costs a preemption signal every 10 ms, answered with
// a pass through the scheduler (sockconn's quick reads), and a garbage
// collection's signal cuts it short anyway. It used to be 5 ms up to
// lockedWorkersPerCPU workers per CPU, where the TPC-C-like script's
// lock waits fell back (docs/performance.md, "Blocking sockets: a worker
// owns an OS thread").
const quickWait = 50 * time.Millisecond

// DecideThreadPolicy decides the policy of threads workers on cpus CPUs.
// sessionsBlock is asked, with the policy so far (Threads, CPUs,
// MayOwnThreads), whether the driver's sessions wait in blocking system
// calls; nil means they do not. It is the only place where the bounds
// above are applied.
func DecideThreadPolicy(threads, cpus int, sessionsBlock func(ThreadPolicy) bool) ThreadPolicy {
	cpus = max(cpus, 1)
	p := ThreadPolicy{Threads: threads, CPUs: cpus, MayOwnThreads: threads <= osThreadWorkersPerCPU*cpus}
	if !p.MayOwnThreads || sessionsBlock == nil || !sessionsBlock(p) {
		return p
	}
	p.OwnThreads = true
	p.Locked = threads <= lockedWorkersPerCPU*cpus
	p.Procs = threads
	p.QuickWait = quickWait
	return p
}

// SetThreadPolicy records the policy decided for the run, for the drivers
// to read when they open sessions (ThreadPolicy). Like the option values,
// it is set before the options are shared.
func (o *Options) SetThreadPolicy(p ThreadPolicy) { o.threadPolicy = &p }

// ThreadPolicy is the policy set with SetThreadPolicy. Until one is set
// (options built by hand, as in tests), it is the policy of --threads on
// this machine with sessions that do not block: what a driver's automatic
// io mode needs (MayOwnThreads), no more.
func (o *Options) ThreadPolicy() ThreadPolicy {
	if o.threadPolicy != nil {
		return *o.threadPolicy
	}
	threads := 1
	if v, ok := o.Lookup("threads"); ok && !v.IsNull() {
		threads = v.Int()
	}
	return DecideThreadPolicy(threads, runtime.NumCPU(), nil)
}
