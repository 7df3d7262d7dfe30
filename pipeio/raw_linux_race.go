//go:build linux && race

package pipeio

import (
	"syscall"
	"unsafe"
)

// sockRead and sockWrite are raw_linux.go's, through syscall's
// bookkeeping, which the race detector learns from (see raw_unix.go).
func sockRead(fd uintptr, p []byte) (int, error) {
	return sockIO(syscall.SYS_RECVFROM, fd, p, syscall.MSG_DONTWAIT)
}

func sockWrite(fd uintptr, p []byte) (int, error) {
	return sockIO(syscall.SYS_SENDTO, fd, p, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
}

func sockIO(trap, fd uintptr, p []byte, flags int) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.Syscall6(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), uintptr(flags), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
