//go:build linux

package pipeio

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Stdio returns the process's stdin and stdout for serving an agent over
// them, read and written without blocking a thread (see the package doc)
// when each is a pipe or a socket, as an agent that starts dispatch gives
// it; anything else (a terminal, a file) as os.Stdin and os.Stdout are.
//
// The agent's pipe end may be shared with other processes (a wrapper that
// started dispatch without exec, a shell), and its mode with it: setting
// it non-blocking would change it for them, and one of them setting it
// blocking again would leave a read that must never block waiting in the
// kernel, holding its thread where the runtime cannot stop it, and the
// whole process stalled at the next collection. So nothing shared is
// changed. A pipe is opened anew through /proc/self/fd, which gives a
// description of the pipe of dispatch's own, non-blocking; a socket is
// read and written with recv(2) and send(2) flagged MSG_DONTWAIT, which
// never wait whatever its mode (its duplicate is non-blocking only for
// the moment os.NewFile needs to put it in the poller). restore closes
// what Stdio opened; call it once serving has ended.
func Stdio() (in io.Reader, out io.Writer, restore func()) {
	in, out = os.Stdin, os.Stdout
	var opened []*os.File
	if end, ok := ownEnd(0, syscall.O_RDONLY, "/dev/stdin"); ok {
		opened = append(opened, end.f)
		in = newReader(end.f.Name(), end.raw, end.read)
	}
	if end, ok := ownEnd(1, syscall.O_WRONLY, "/dev/stdout"); ok {
		opened = append(opened, end.f)
		out = newWriter(end.f.Name(), end.raw, end.write)
	}
	return in, out, func() {
		for _, f := range opened {
			f.Close()
		}
	}
}

// agentEnd is a stdio end of dispatch's own, in the poller, and the read
// and write that never block on it: pipeRead and pipeWrite on a pipe's
// own non-blocking description, sockRead and sockWrite on a socket.
type agentEnd struct {
	f           *os.File
	raw         syscall.RawConn
	read, write func(fd uintptr, p []byte) (int, error)
}

// ownEnd opens the pipe or socket fd is, for the access mode, as a file
// of dispatch's own in the poller (see Stdio); ok is false, and nothing is
// open, for anything else or when that cannot be done.
func ownEnd(fd, mode int, name string) (end agentEnd, ok bool) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return agentEnd{}, false
	}
	var (
		own            int
		socket         bool
		wasNonblocking bool
	)
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		var err error
		own, err = syscall.Open(fmt.Sprintf("/proc/self/fd/%d", fd), mode|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return agentEnd{}, false
		}
		var again syscall.Stat_t
		if syscall.Fstat(own, &again) != nil || again.Dev != st.Dev || again.Ino != st.Ino {
			syscall.Close(own) // not the same pipe: /proc is not what it should be
			return agentEnd{}, false
		}
	case syscall.S_IFSOCK:
		var err error
		// Close-on-exec: a server dispatch starts must not inherit the
		// agent's socket.
		own, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return agentEnd{}, false
		}
		flags, err := unix.FcntlInt(uintptr(own), unix.F_GETFL, 0)
		if err != nil || syscall.SetNonblock(own, true) != nil {
			syscall.Close(own)
			return agentEnd{}, false
		}
		socket, wasNonblocking = true, flags&syscall.O_NONBLOCK != 0
	default:
		return agentEnd{}, false
	}
	// os.NewFile puts a non-blocking descriptor in the poller; one the
	// poller refuses is not used (its reads would fail instead of wait).
	f := os.NewFile(uintptr(own), name)
	if socket && !wasNonblocking {
		// In the poller now: the socket's mode goes back as it came.
		syscall.SetNonblock(own, false) //nolint:errcheck // MSG_DONTWAIT does not depend on it
	}
	raw, ok := polled(f)
	if !ok {
		f.Close()
		return agentEnd{}, false
	}
	if socket {
		return agentEnd{f: f, raw: raw, read: sockRead, write: sockWrite}, true
	}
	return agentEnd{f: f, raw: raw, read: pipeRead, write: pipeWrite}, true
}
