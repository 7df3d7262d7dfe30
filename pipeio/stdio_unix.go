//go:build unix

package pipeio

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Stdio returns the process's stdin and stdout for serving an agent over
// them: when one is a pipe or a socket (as an agent that starts dispatch
// gives it), a duplicate of its descriptor in non-blocking mode, read by
// NewReader or written by NewWriter; anything else (a terminal, a file)
// as os.Stdin or os.Stdout are. A terminal is never made non-blocking:
// the shell it belongs to would read it so after dispatch has exited.
//
// Non-blocking is a mode of the pipe end, shared with every descriptor of
// it: os.Stdin and os.Stdout see it too (nothing may read or write them
// meanwhile), as does a process that shares the end (a wrapper script that
// started dispatch without exec). restore closes the duplicates and sets
// the ends back to blocking, unless they came non-blocking; call it once
// serving has ended.
func Stdio() (in io.Reader, out io.Writer, restore func()) {
	var undo []func()
	in, out = os.Stdin, os.Stdout
	if f, restore, ok := nonblockingDup(0, "/dev/stdin"); ok {
		in, undo = NewReader(f), append(undo, restore)
	}
	if f, restore, ok := nonblockingDup(1, "/dev/stdout"); ok {
		out, undo = NewWriter(f), append(undo, restore)
	}
	return in, out, func() {
		for _, u := range undo {
			u()
		}
	}
}

// nonblockingDup returns a close-on-exec duplicate of fd, set
// non-blocking and so waited on in the poller, if fd is a pipe or a
// socket; restore closes it and sets fd's end back as it was.
func nonblockingDup(fd int, name string) (f *os.File, restore func(), ok bool) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return nil, nil, false
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, nil, false
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, nil, false
	}
	// Close-on-exec: a server dispatch starts must not inherit the
	// agent's pipe.
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil, false
	}
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return nil, nil, false
	}
	wasNonblocking := flags&syscall.O_NONBLOCK != 0
	restore = func() {
		f.Close()
		if !wasNonblocking {
			syscall.SetNonblock(fd, false) //nolint:errcheck // nothing to do if it fails: the process is ending
		}
	}
	// os.NewFile puts a non-blocking descriptor in the poller. Should the
	// poller refuse it, reads of it would fail with EAGAIN instead of
	// waiting: then the end is left as it came, and used as it is.
	f = os.NewFile(uintptr(dup), name)
	if f.SetDeadline(time.Time{}) != nil {
		restore()
		return nil, nil, false
	}
	return f, restore, true
}
