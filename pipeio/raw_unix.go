//go:build unix && (!linux || race)

package pipeio

import "syscall"

// pipeWrite and pipeRead are write(2) and read(2) for a non-blocking pipe
// end. Only Linux has a variant that skips the runtime's system-call
// bookkeeping (see rawsys_linux.go); elsewhere they are syscall's, and so
// they are under the race detector, which learns from syscall's that a
// write to a pipe happens before the read of what it wrote.
func pipeWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(int(fd), p) }

func pipeRead(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) }
