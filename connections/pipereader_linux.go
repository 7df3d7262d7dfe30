//go:build linux

package connections

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// On Linux the reader of a server's stdout waits for the server's answer
// in a blocking ppoll(2) of its own, not in Go's network poller. The
// poller's way to an answer is a thread asleep in epoll_wait that wakes,
// finds the reader's goroutine ready, takes a P and only then runs it;
// here the kernel wakes the very thread that reads and writes the answer
// on. In the same SDK runs that was 5–17 µs less from the server's answer
// to the agent's (p50). The cost is a thread per running stdio server,
// asleep in the kernel while its server is quiet.
//
// The read end is not in the poller at all (a registered pipe would wake
// the poller's thread for every answer, for nothing), so closing it does
// not end a wait: Close also writes an eventfd that the wait polls too.

// newServerOutPipe returns a pipe for a server's stdout: r, dispatch's
// end, for newServerOutput; w, blocking as ever, for the child.
func newServerOutPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	// Wrapped while blocking: os.NewFile puts a non-blocking descriptor
	// in the poller. Non-blocking after: reads return EAGAIN, never wait.
	r, w = os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1")
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		closeFiles(r, w)
		return nil, nil, os.NewSyscallError("setnonblock", err)
	}
	return r, w, nil
}

// newServerOutput returns the reader of f, newServerOutPipe's r.
func newServerOutput(f *os.File) (serverOutput, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	wake, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		return nil, os.NewSyscallError("eventfd2", errno)
	}
	return &pollingReader{f: f, raw: raw, wake: int(wake)}, nil
}

// pollingReader reads a non-blocking pipe end, waiting in ppoll(2) for
// data or for Close.
type pollingReader struct {
	f      *os.File
	raw    syscall.RawConn
	closed atomic.Bool

	mu   sync.Mutex // over wake's end, between Close and release
	wake int        // eventfd that Close writes; -1 once released
}

func (r *pollingReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	// Control holds the descriptor open while it runs: a Close meanwhile
	// closes it once the wait has seen the wake and returned.
	err := r.raw.Control(func(fd uintptr) {
		for {
			n, rerr = pipeRead(fd, p)
			switch {
			case errors.Is(rerr, syscall.EINTR):
				continue
			case !errors.Is(rerr, syscall.EAGAIN):
				return
			case r.closed.Load():
				rerr = os.ErrClosed
				return
			}
			if rerr = r.waitReadable(fd); rerr != nil {
				return
			}
		}
	})
	switch {
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: err}
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// waitReadable waits until fd has data (or its writers are gone) or
// Close has been called.
func (r *pollingReader) waitReadable(fd uintptr) error {
	type pollFd struct {
		fd              int32
		events, revents int16
	}
	const pollIn = 0x1
	fds := [2]pollFd{{fd: int32(fd), events: pollIn}, {fd: int32(r.wake), events: pollIn}}
	for {
		// Blocking, so through syscall.Syscall6: the runtime lets
		// another thread run Go code meanwhile.
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return fmt.Errorf("ppoll: %w", errno)
		case r.closed.Load():
			return os.ErrClosed
		}
		return nil
	}
}

// Close ends a Read under way, and every later one, and closes the pipe
// end once no Read holds it.
func (r *pollingReader) Close() error {
	r.closed.Store(true)
	r.mu.Lock()
	if r.wake >= 0 {
		one := uint64(1)
		// Cannot fail short of a counter at its maximum, which one
		// write per Close never reaches.
		_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(r.wake), uintptr(unsafe.Pointer(&one)), 8)
	}
	r.mu.Unlock()
	return r.f.Close()
}

// release frees the eventfd; the reading goroutine calls it once it
// reads no more.
func (r *pollingReader) release() {
	r.mu.Lock()
	if r.wake >= 0 {
		syscall.Close(r.wake) //nolint:errcheck // nothing to do about it
		r.wake = -1
	}
	r.mu.Unlock()
}
