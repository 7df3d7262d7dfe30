//go:build unix

package main

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// shutdownSignals end dispatch cleanly: servers stopped, result files
// deleted. SIGHUP is the terminal going away.
func shutdownSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
}

// catchSigpipe keeps an agent that closes dispatch's stdout or stderr from
// killing it with SIGPIPE before it stops its servers and deletes its
// result files: with SIGPIPE notified, such writes fail with EPIPE
// instead. The returned function undoes it.
func catchSigpipe() (stop func()) {
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	return func() { signal.Stop(sigpipe) }
}

// detach makes cmd a session leader: no controlling terminal, so the
// shell's Ctrl-C, hang-up and job control do not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// closeOnExec keeps f from the processes dispatch starts.
func closeOnExec(f *os.File) { syscall.CloseOnExec(int(f.Fd())) }
