//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// nonblockFlags keep open(2) from waiting for a FIFO's writer or a
// device, and a terminal from becoming the controlling one.
const nonblockFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
