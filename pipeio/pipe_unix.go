//go:build unix

package pipeio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// NewReader returns a reader of f, a pipe end in non-blocking mode, that
// reads with pipeRead and waits for data in Go's poller, as f.Read does,
// without f.Read's system-call bookkeeping (see raw_linux.go): the reader
// of a server's stdout, or of the agent's stdin, makes that read once per
// message, first thing after the process has idled waiting for it. A file
// the poller cannot wait on (its reads would block the thread) is returned
// as it is.
func NewReader(f *os.File) io.Reader {
	raw, ok := polled(f)
	if !ok {
		return f
	}
	return newReader(f.Name(), raw, pipeRead)
}

// newReader is NewReader's reader of raw, reading with io, which must
// never block (pipeRead, or sockRead on a socket).
func newReader(name string, raw syscall.RawConn, io func(fd uintptr, p []byte) (int, error)) *pipeReader {
	r := &pipeReader{name: name, raw: raw, io: io}
	r.readOnce = r.read
	return r
}

// polled returns f's raw connection if f is in the poller, which only a
// file with deadlines is: the cheapest way to ask.
func polled(f *os.File) (syscall.RawConn, bool) {
	if f.SetDeadline(time.Time{}) != nil {
		return nil, false
	}
	raw, err := f.SyscallConn()
	return raw, err == nil
}

// pollerError is the error of a read or write (op) the poller ended: its
// only answers are a deadline and a file closed under the call, which
// os.File reports as os.ErrClosed, and so does this.
func pollerError(op, name string, err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w (%v)", os.ErrClosed, err)
	}
	return &os.PathError{Op: op, Path: name, Err: err}
}

// pipeReader reads its pipe for one caller at a time (a bufio.Reader's).
// The read in progress is kept in the reader, and handed to the poller as
// a method value made once: a closure made per Read, capturing its
// buffer and results, escaped to the heap at three allocations a message.
type pipeReader struct {
	name     string
	raw      syscall.RawConn
	io       func(fd uintptr, p []byte) (int, error) // one read that never blocks
	readOnce func(fd uintptr) bool                   // r.read

	p   []byte // the read in progress: its buffer
	n   int    // and what read(2) answered
	err error
}

// read is one attempt of the read in progress: done unless the pipe is
// empty (EAGAIN), when the poller waits for data and calls it again.
func (r *pipeReader) read(fd uintptr) bool {
	for {
		r.n, r.err = r.io(fd, r.p)
		if !errors.Is(r.err, syscall.EINTR) {
			return !errors.Is(r.err, syscall.EAGAIN)
		}
	}
}

func (r *pipeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p = p
	err := r.raw.Read(r.readOnce)
	n, rerr := r.n, r.err
	r.p, r.err = nil, nil
	switch {
	case err != nil:
		return 0, pollerError("read", r.name, err)
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: r.name, Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// NewWriter returns a writer of f, a pipe end in non-blocking mode, that
// writes with pipeWrite and, while the pipe is full, waits in Go's poller;
// a write returns once all of p is written or the pipe fails (closed, its
// reader gone: EPIPE). A file the poller cannot wait on is returned as it
// is.
func NewWriter(f *os.File) io.Writer {
	raw, ok := polled(f)
	if !ok {
		return f
	}
	return newWriter(f.Name(), raw, pipeWrite)
}

// newWriter is NewWriter's writer of raw, writing with io, which must
// never block (pipeWrite, or sockWrite on a socket).
func newWriter(name string, raw syscall.RawConn, io func(fd uintptr, p []byte) (int, error)) *pipeWriter {
	w := &pipeWriter{name: name, raw: raw, io: io}
	w.writeOnce = w.write
	return w
}

// pipeWriter writes its pipe for one caller at a time, keeping the write
// in progress as pipeReader keeps its read.
type pipeWriter struct {
	name      string
	raw       syscall.RawConn
	io        func(fd uintptr, p []byte) (int, error) // one write that never blocks
	writeOnce func(fd uintptr) bool                   // w.write

	p   []byte // what is left to write
	n   int    // and what write(2) answered
	err error
}

// write is one attempt: done unless the pipe is full (EAGAIN), when the
// poller waits for room and calls it again.
func (w *pipeWriter) write(fd uintptr) bool {
	for {
		w.n, w.err = w.io(fd, w.p)
		if !errors.Is(w.err, syscall.EINTR) {
			return !errors.Is(w.err, syscall.EAGAIN)
		}
	}
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	defer func() { w.p, w.err = nil, nil }()
	written := 0
	for written < len(p) {
		w.p = p[written:]
		err := w.raw.Write(w.writeOnce)
		switch {
		case err != nil:
			return written, pollerError("write", w.name, err)
		case w.err != nil:
			return written, &os.PathError{Op: "write", Path: w.name, Err: w.err}
		}
		written += w.n
	}
	return written, nil
}

// WriteNow writes what of data the pipe f takes at once, with one write
// system call that never waits: a pipe with no room gives ErrWouldBlock
// (n == 0) instead of parking the caller until the reader makes room.
// The agent's reader writes calls to servers itself (sendAsync), and it
// must never wait on a server: one that stops reading would otherwise
// stop dispatch from reading cancellations and other servers' calls.
func WriteNow(f *os.File, data []byte) (n int, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, ErrWouldBlock
	}
	var werr error
	if err := raw.Write(func(fd uintptr) bool {
		n, werr = pipeWrite(fd, data)
		return true // done either way: EAGAIN is reported, not waited out
	}); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, ErrWouldBlock // a deadline set for a write that may wait, past
		}
		return 0, err // closed
	}
	switch {
	case errors.Is(werr, syscall.EAGAIN), errors.Is(werr, syscall.EINTR):
		return 0, ErrWouldBlock
	case werr != nil:
		return 0, werr
	}
	return n, nil
}
