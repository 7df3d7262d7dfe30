//go:build unix

package connections

import (
	"errors"
	"os"
	"syscall"
)

// writeNow writes what of data the pipe f takes at once, with one write
// system call that never waits: a pipe with no room gives errWouldBlock
// (n == 0) instead of parking the caller until the reader makes room.
// The agent's reader writes calls to servers itself (sendAsync), and it
// must never wait on a server: one that stops reading would otherwise
// stop dispatch from reading cancellations and other servers' calls.
func writeNow(f *os.File, data []byte) (n int, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, errWouldBlock
	}
	var werr error
	if err := raw.Write(func(fd uintptr) bool {
		n, werr = pipeWrite(fd, data)
		return true // done either way: EAGAIN is reported, not waited out
	}); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, errWouldBlock // a deadline of writeAll's: the slow path sets its own
		}
		return 0, err // closed
	}
	switch {
	case errors.Is(werr, syscall.EAGAIN), errors.Is(werr, syscall.EINTR):
		return 0, errWouldBlock
	case werr != nil:
		return 0, werr
	}
	return n, nil
}
