package pgsql

import (
	"github.com/jackc/pgx/v5"

	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --pgsql-io-mode: sessions on blocking sockets or on
// Go's own connections (the network poller). The poller is the default
// here: measured side by side with sysbench, blocking sockets cut client
// CPU per PostgreSQL transaction at 2 threads but raised it at 8, until
// the engine schedules blocked workers better; MySQL gains at every
// thread count and defaults to blocking.
var ioModeOption = engine.Option{Name: "pgsql-io-mode", Desc: sockconn.ModeHelp, Type: engine.ArgString, Default: engine.Default(sockconn.ModePoller)}

// readIOMode reads --pgsql-io-mode: whether sessions use blocking
// sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	return sockconn.ParseMode(ioModeOption.Name, stringOption(opts, ioModeOption.Name, sockconn.ModePoller))
}

// useBlockingSockets makes cfg's sessions, and their cancel requests,
// dial with sockconn. pgx still resolves host names itself (LookupFunc)
// and dials each address it finds, so errors name the same addresses.
func useBlockingSockets(cfg *pgx.ConnConfig) {
	cfg.DialFunc = sockconn.Dial
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --pgsql-io-mode=blocking.
func (Factory) BlocksThreads(opts *engine.Options) bool {
	blocking, err := readIOMode(opts)
	return err == nil && blocking
}
