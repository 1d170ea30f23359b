//go:build linux || darwin || freebsd

package sockconn

import (
	"syscall"
	"unsafe"
)

// rawRecv and rawSend are the raw system calls on a session's socket: the
// goroutine keeps its P, as in a C client (see SetQuickWait and
// PollerConn). b must not be empty.
//
// Why recvfrom(2) and sendto(2) rather than read(2) and write(2): on a
// connected socket they do the same, but read(2) and write(2) first pass
// the file layer (its range check and the security modules' permission
// hook), which a socket does not need; docs/performance.md, "A fourth
// machine", has the cost.
func rawRecv(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0, 0)
	return int(n), errno
}

func rawSend(fd uintptr, b []byte, flags int) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(flags), 0, 0)
	return int(n), errno
}
