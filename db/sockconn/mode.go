package sockconn

import (
	"fmt"
	"runtime"
)

// How a database driver's sessions wait for their server, the values of
// its --<driver>-io-mode option.
const (
	// ModeBlocking is Dial's blocking socket.
	ModeBlocking = "blocking"
	// ModePoller is Go's own connection, waited on by the runtime's
	// network poller.
	ModePoller = "poller"
)

// ModeHelp describes the option, the same for every driver.
const ModeHelp = "how sessions wait for the server: blocking (read/write on a blocking socket, one thread per waiting session, the least client CPU) or poller (Go's network poller)"

// ParseMode reads the option's value: whether sessions use Dial. option
// names it in the error for any other value, and for blocking where the
// system has no blocking sockets (Supported).
func ParseMode(option, value string) (blocking bool, err error) {
	switch value {
	case ModeBlocking:
		if !Supported {
			return false, fmt.Errorf("Invalid value for --%s: '%s' (no blocking sockets on %s: use %s)", option, value, runtime.GOOS, ModePoller)
		}
		return true, nil
	case ModePoller:
		return false, nil
	}
	return false, fmt.Errorf("Invalid value for --%s: '%s'", option, value)
}
