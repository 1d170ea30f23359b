package mysql

import (
	"sbgo/db/sockconn"
	"sbgo/engine"
)

// ioModeOption is --mysql-io-mode: sessions on blocking sockets (the
// default: a round trip then costs the client about what it costs
// libmysqlclient) or on Go's own connections, as a fallback.
var ioModeOption = engine.Option{Name: "mysql-io-mode", Desc: sockconn.ModeHelp, Type: engine.ArgString, Default: engine.Default(sockconn.ModeBlocking)}

// readIOMode reads --mysql-io-mode: whether sessions use blocking
// sockets.
func readIOMode(opts *engine.Options) (bool, error) {
	return sockconn.ParseMode(ioModeOption.Name, stringOptionOr(opts, ioModeOption.Name, sockconn.ModeBlocking))
}

// BlocksThreads is db.ThreadBlocker: sessions block with
// --mysql-io-mode=blocking, the default.
func (Factory) BlocksThreads(opts *engine.Options) bool {
	blocking, err := readIOMode(opts)
	return err == nil && blocking
}
