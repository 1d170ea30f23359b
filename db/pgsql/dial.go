package pgsql

import (
	"github.com/jackc/pgx/v5"

	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --pgsql-io-mode: sessions on blocking sockets (the
// default: a round trip then costs the client about what it costs
// libpq) or on Go's own connections, as a fallback.
var ioModeOption = engine.Option{Name: "pgsql-io-mode", Desc: sockconn.ModeHelp, Type: engine.ArgString, Default: engine.Default(sockconn.ModeBlocking)}

// readIOMode reads --pgsql-io-mode: whether sessions use blocking
// sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	return sockconn.ParseMode(ioModeOption.Name, stringOption(opts, ioModeOption.Name, sockconn.ModeBlocking))
}

// useBlockingSockets makes cfg's sessions, and their cancel requests,
// dial with sockconn. pgx still resolves host names itself (LookupFunc)
// and dials each address it finds, so errors name the same addresses.
func useBlockingSockets(cfg *pgx.ConnConfig) {
	cfg.DialFunc = sockconn.Dial
}
