package mysql

import (
	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --mysql-io-mode: sessions on blocking sockets (a round
// trip then costs the client about what it costs libmysqlclient), on Go's
// own connections (the network poller), or auto, the default: blocking
// while the workers own OS threads (up to engine.OSThreadWorkers), the
// poller beyond.
//
// Why not blocking sockets at every thread count: beyond
// engine.OSThreadWorkers the workers share Go's processors, and a worker
// blocked in read(2) keeps its processor until the runtime's sysmon takes
// it back (20 µs or more), so only a few sessions have a query at the
// server at any moment. Measured with 64 threads of oltp_point_select on
// 2 CPUs: 1-14 statements running in MariaDB (Threads_running) against
// sysbench's 20-64, and a latency distribution that is not the server's
// (95th percentile 0.11 ms, maximum 623 ms; sysbench: 2.11 ms, 157 ms).
// With the poller every worker's query is in flight as in sysbench, for
// more client CPU per query.
var ioModeOption = engine.Option{Name: "mysql-io-mode", Desc: sockconn.ModeHelp + "; auto: blocking up to " +
	"8 threads per CPU (each worker then owns an OS thread), poller beyond", Type: engine.ArgString, Default: engine.Default(modeAuto)}

// modeAuto is --mysql-io-mode=auto.
const modeAuto = "auto"

// readIOMode reads --mysql-io-mode: whether sessions use blocking
// sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	mode := stringOptionOr(opts, ioModeOption.Name, modeAuto)
	if mode == modeAuto {
		threads := 1
		if v, ok := opts.Lookup("threads"); ok && !v.IsNull() {
			threads = v.Int()
		}
		return threads <= engine.OSThreadWorkers(), nil
	}
	return sockconn.ParseMode(ioModeOption.Name, mode)
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --mysql-io-mode=blocking, and with auto up to engine.OSThreadWorkers.
func (Factory) BlocksThreads(opts *engine.Options) bool {
	blocking, err := readIOMode(opts)
	return err == nil && blocking
}
