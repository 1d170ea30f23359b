package mysql

import (
	"fmt"

	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioMode is how a session waits for the server, and whose code carries
// its prepared statements.
type ioMode uint8

const (
	// ioBlocking: sockconn's blocking socket, sbgo's protocol code
	// (wire.go). A round trip costs the client about what it costs
	// libmysqlclient, but every waiting session holds an OS thread.
	ioBlocking ioMode = iota
	// ioPoller: Go's own connection, waited on by the runtime's network
	// poller, sbgo's protocol code.
	ioPoller
	// ioDriver: Go's own connection and go-sql-driver's statements, the
	// fallback should sbgo's protocol code misread a server.
	ioDriver
)

// Values of --mysql-io-mode beyond sockconn's blocking and poller.
const (
	modeAuto   = "auto"
	modeDriver = "go-sql-driver"
)

// ioModeOption is --mysql-io-mode. auto, the default, is blocking while
// the workers may own OS threads (engine.ThreadPolicy.MayOwnThreads: up
// to 32 per CPU), the poller beyond, and always where the system has no
// blocking sockets (sockconn.Supported: Windows).
//
// Why not blocking sockets at every thread count: beyond that the workers
// share Go's processors, and a worker blocked in read(2) keeps its
// processor until the runtime's sysmon takes it back, so only a few
// sessions have a query at the server at any moment (64 threads of
// oltp_point_select on 2 CPUs: 1-14 statements running in MariaDB
// against sysbench's 20-64). With the poller the server sees most of the
// workers' queries at once, for more client CPU per query
// (docs/performance.md, "The poller, beyond 32 threads per CPU").
var ioModeOption = engine.Option{Name: "mysql-io-mode", Desc: sockconn.ModeHelp + "; go-sql-driver: the poller with " +
	"go-sql-driver's own prepared statements (the fallback); auto: blocking up to 32 threads per CPU " +
	"(each worker then owns an OS thread), poller beyond", Type: engine.ArgString, Default: engine.Default(modeAuto)}

// readIOMode reads --mysql-io-mode, auto resolved with the run's thread
// policy as the options carry it.
func readIOMode(opts *engine.Options) (ioMode, error) {
	return resolveIOMode(opts, opts.ThreadPolicy())
}

// resolveIOMode reads --mysql-io-mode, auto resolved with policy p.
func resolveIOMode(opts *engine.Options, p engine.ThreadPolicy) (ioMode, error) {
	switch mode := stringOptionOr(opts, ioModeOption.Name, modeAuto); mode {
	case modeAuto:
		if p.MayOwnThreads && sockconn.Supported {
			return ioBlocking, nil
		}
		return ioPoller, nil
	case sockconn.ModeBlocking, sockconn.ModePoller:
		if blocking, err := sockconn.ParseMode(ioModeOption.Name, mode); err != nil || !blocking {
			return ioPoller, err
		}
		return ioBlocking, nil
	case modeDriver:
		return ioDriver, nil
	default:
		return 0, fmt.Errorf("Invalid value for --%s: '%s'", ioModeOption.Name, mode)
	}
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --mysql-io-mode=blocking, and with auto while p.MayOwnThreads.
func (Factory) BlocksThreads(opts *engine.Options, p engine.ThreadPolicy) bool {
	mode, err := resolveIOMode(opts, p)
	return err == nil && mode == ioBlocking
}
