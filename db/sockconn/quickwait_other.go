//go:build darwin || freebsd

package sockconn

import "time"

// SetQuickWait is a no-op here: reads always block the usual way.
func SetQuickWait(d time.Duration, locked bool) {}

func (c *Conn) quickRead(b []byte) (n int, err error, ok bool) { return 0, nil, false }

func (c *Conn) quickWrite(b []byte) int { return 0 }
