package pgsql

import (
	"github.com/jackc/pgx/v5"

	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --pgsql-io-mode: sessions on blocking sockets or on
// Go's own connections (the network poller), or auto, the default:
// blocking sockets (and workers that own OS threads) up to
// autoBlockingPerCPU threads per CPU, the poller beyond and wherever the
// system has no blocking sockets (sockconn.Supported: Windows). Why: blocking
// sockets cost less client CPU per transaction at few threads, the
// poller from 8 threads on 2 CPUs (16 threads of oltp_read_only: 1.10x
// sysbench's on the poller, 1.46x on blocking sockets;
// docs/performance.md, "PostgreSQL sessions").
var ioModeOption = engine.Option{Name: "pgsql-io-mode", Desc: sockconn.ModeHelp + "; auto: blocking up to " +
	"2 threads per CPU (each worker then owns an OS thread), poller beyond", Type: engine.ArgString, Default: engine.Default(modeAuto)}

// modeAuto is --pgsql-io-mode=auto.
const modeAuto = "auto"

// autoBlockingPerCPU is how many threads per CPU --pgsql-io-mode=auto
// runs on blocking sockets (while the workers may own OS threads at all).
const autoBlockingPerCPU = 2

// readIOMode reads --pgsql-io-mode, auto resolved with the run's thread
// policy as the options carry it: whether sessions use blocking sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	return resolveIOMode(opts, opts.ThreadPolicy())
}

// resolveIOMode reads --pgsql-io-mode, auto resolved with policy p.
func resolveIOMode(opts *engine.Options, p engine.ThreadPolicy) (bool, error) {
	mode := stringOption(opts, ioModeOption.Name, modeAuto)
	if mode == modeAuto {
		return sockconn.Supported && p.MayOwnThreads && p.Threads <= autoBlockingPerCPU*p.CPUs, nil
	}
	return sockconn.ParseMode(ioModeOption.Name, mode)
}

// useSockets makes cfg's sessions, and their cancel requests, dial with
// sockconn: its blocking sockets, or Go's own connections with raw reads
// and writes (sockconn.PollerConn). pgx still resolves host names itself
// (LookupFunc) and dials each address it finds, so errors name the same
// addresses.
func useSockets(cfg *pgx.ConnConfig, blocking bool) {
	if blocking {
		cfg.DialFunc = sockconn.Dial
	} else {
		cfg.DialFunc = sockconn.DialPoller
	}
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --pgsql-io-mode=blocking, and with auto up to autoBlockingPerCPU
// threads per CPU.
func (Factory) BlocksThreads(opts *engine.Options, p engine.ThreadPolicy) bool {
	blocking, err := resolveIOMode(opts, p)
	return err == nil && blocking
}
