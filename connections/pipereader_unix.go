//go:build unix

package connections

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// newPipeReader returns a reader of f, a pipe end dispatch opened, that
// reads with pipeRead and waits for data in Go's poller, as f.Read does,
// without f.Read's system-call bookkeeping (see rawsys_linux.go): the
// reader of a server's stdout makes that read once per answer, first thing
// after the process has idled waiting for it. A file the poller cannot
// wait on (its reads would block the thread) is returned as it is.
func newPipeReader(f *os.File) io.Reader {
	// Only a file in the poller has deadlines: the cheapest way to ask.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		return f
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return &pipeReader{name: f.Name(), raw: raw}
}

type pipeReader struct {
	name string
	raw  syscall.RawConn
}

func (r *pipeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	err := r.raw.Read(func(fd uintptr) bool {
		for {
			n, rerr = pipeRead(fd, p)
			if !errors.Is(rerr, syscall.EINTR) {
				return !errors.Is(rerr, syscall.EAGAIN) // EAGAIN: wait in the poller, then again
			}
		}
	})
	switch {
	case err != nil:
		// The poller's only answers here are a deadline and a file
		// closed under the read; os.File.Read reports the latter as
		// os.ErrClosed, and so does this.
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("%w (%v)", os.ErrClosed, err)
		}
		return 0, &os.PathError{Op: "read", Path: r.name, Err: err}
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: r.name, Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
