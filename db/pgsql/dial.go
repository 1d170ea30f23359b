package pgsql

import (
	"github.com/jackc/pgx/v5"

	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --pgsql-io-mode: sessions on blocking sockets or on
// Go's own connections (the network poller), or auto, the default:
// blocking sockets while the workers own OS threads (up to
// engine.OSThreadWorkers threads), the poller beyond. Measured side by
// side with sysbench on 2 CPUs: with OS threads, blocking sockets bring
// client CPU per oltp_read_only / oltp_read_write transaction from
// 1.5-2x sysbench's down to 0.95-1.1x at 1 and 4 threads; with many more
// threads than CPUs the two modes measured alike at 16 threads and the
// poller better at 8.
var ioModeOption = engine.Option{Name: "pgsql-io-mode", Desc: sockconn.ModeHelp + "; auto: blocking up to " +
	"2 threads per CPU (each worker then owns an OS thread), poller beyond", Type: engine.ArgString, Default: engine.Default(modeAuto)}

// modeAuto is --pgsql-io-mode=auto.
const modeAuto = "auto"

// readIOMode reads --pgsql-io-mode: whether sessions use blocking
// sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	mode := stringOption(opts, ioModeOption.Name, modeAuto)
	if mode == modeAuto {
		threads := 1
		if v, ok := opts.Lookup("threads"); ok && !v.IsNull() {
			threads = v.Int()
		}
		return threads <= engine.OSThreadWorkers(), nil
	}
	return sockconn.ParseMode(ioModeOption.Name, mode)
}

// useBlockingSockets makes cfg's sessions, and their cancel requests,
// dial with sockconn. pgx still resolves host names itself (LookupFunc)
// and dials each address it finds, so errors name the same addresses.
func useBlockingSockets(cfg *pgx.ConnConfig) {
	cfg.DialFunc = sockconn.Dial
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --pgsql-io-mode=blocking, and with auto up to engine.OSThreadWorkers
// threads.
func (Factory) BlocksThreads(opts *engine.Options) bool {
	blocking, err := readIOMode(opts)
	return err == nil && blocking
}
