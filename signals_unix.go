//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// shutdownSignals end dispatch cleanly: servers stopped, result files
// deleted. SIGHUP is the terminal going away.
func shutdownSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
}

// pipeSignals are notified, never read, so that an agent that closes
// dispatch's stdout or stderr does not kill it with SIGPIPE before it stops
// its servers and deletes its result files: such writes fail with EPIPE
// instead (see notifyShutdown).
func pipeSignals() []os.Signal { return []os.Signal{syscall.SIGPIPE} }

// detach makes cmd a session leader: no controlling terminal, so the
// shell's Ctrl-C, hang-up and job control do not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// closeOnExec keeps f from the processes dispatch starts.
func closeOnExec(f *os.File) { syscall.CloseOnExec(int(f.Fd())) }
