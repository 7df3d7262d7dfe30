//go:build linux && !race

package pipeio

import (
	"syscall"
	"unsafe"
)

// pipeWrite and pipeRead are write(2) and read(2) for a pipe end in
// non-blocking mode, which never waits in the kernel. They skip what
// syscall.Write and syscall.Read do around a call that might block
// (entersyscall and exitsyscall): marking the goroutine's P as in a
// system call, and waking the runtime's monitor thread (sysmon), asleep
// whenever the process is idle, so that it could take that P back. The
// first read of a server's answer after waiting for it did that once per
// call: ~3 µs of futex wake-up, ~6% of a hot call's CPU. A call that
// cannot block needs neither. Callers must only pass non-blocking fds.
func pipeWrite(fd uintptr, p []byte) (int, error) { return rawPipeIO(syscall.SYS_WRITE, fd, p) }

func pipeRead(fd uintptr, p []byte) (int, error) { return rawPipeIO(syscall.SYS_READ, fd, p) }

// rawPipeIO is read(2) or write(2), by trap, of p on the non-blocking fd.
func rawPipeIO(trap, fd uintptr, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// sockRead and sockWrite are recv(2) and send(2) that never wait, whatever
// the socket's mode (MSG_DONTWAIT), without the runtime's bookkeeping, as
// pipeRead and pipeWrite; sockWrite never raises SIGPIPE (MSG_NOSIGNAL).
// A socket the agent shares may be set blocking by another process at any
// time; these do not depend on it.
func sockRead(fd uintptr, p []byte) (int, error) {
	return rawSockIO(syscall.SYS_RECVFROM, fd, p, syscall.MSG_DONTWAIT)
}

func sockWrite(fd uintptr, p []byte) (int, error) {
	return rawSockIO(syscall.SYS_SENDTO, fd, p, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
}

// rawSockIO is recvfrom(2) or sendto(2), by trap, of p on fd with flags
// and no address.
func rawSockIO(trap, fd uintptr, p []byte, flags int) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall6(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), uintptr(flags), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
