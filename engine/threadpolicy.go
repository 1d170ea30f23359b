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
	// (runtime.LockOSThread): only while a spare P is left beside them
	// (see spareProcWorkersPerCPU). Beyond, a worker keeps its thread all
	// the same, since its raw reads never leave it and its yields put it
	// back on its own P's queue, but the lock costs more than it keeps: a
	// worker waiting its turn for a CPU can pass 10 ms without a yield,
	// and sysmon's preemption of a locked goroutine is a hand-off between
	// two threads (64 workers on 2 CPUs, oltp_read_only: 0.88 -> 1.06
	// times sysbench's tps without the lock; docs/performance.md, "Locked
	// workers and the spare processor").
	Locked bool
	// Procs is GOMAXPROCS for the run: Threads, plus the spare P while
	// Locked; 0 leaves GOMAXPROCS as it is. The run only raises it.
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

// spareProcWorkersPerCPU bounds the spare P and ThreadPolicy.Locked: up to
// this many workers per CPU GOMAXPROCS is Threads+1, beyond it Threads.
//
// Why: the spare P earns its keep when a worker blocks the way the
// scheduler sees (a read that outlasts quickWait, the runtime's own
// waits): what that worker's P had to run is run at once instead of after
// sysmon takes the P. With more workers an idle P only costs (tps against
// sysbench's on 2 CPUs, no spare P and 50 ms quick waits -> a spare P and
// 5 ms: at 32 workers oltp_point_select 0.97 -> 1.24, at 64 1.06 -> 0.93;
// docs/performance.md, "Locked workers and the spare processor").
const spareProcWorkersPerCPU = 16

// quickWait is how long a worker that owns its OS thread waits for an
// answer before it blocks the way the runtime's scheduler sees: longer
// than nearly every statement of a benchmark, row lock waits included,
// because a fallback costs more than a long raw wait does. A fallback
// re-arms the socket's timeout twice, and a read the scheduler sees for
// 10 ms has its P taken by sysmon, which then polls every 20 µs for a
// while; a raw wait costs a preemption signal every 10 ms, answered with
// a pass through the scheduler (sockconn's quick reads), and a garbage
// collection's signal cuts it short anyway. It used to be 5 ms up to
// spareProcWorkersPerCPU workers per CPU, where the TPC-C-like script's
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
	spare := spareProcWorkersPerCPU * cpus
	p.OwnThreads = true
	p.Locked = threads <= spare
	p.Procs = threads
	if p.Locked {
		p.Procs++
	}
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
