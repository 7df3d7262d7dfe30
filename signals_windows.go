package main

import (
	"os"
	"os/exec"
	"syscall"
)

// shutdownSignals end dispatch cleanly: servers stopped, result files
// deleted. On Windows the Go runtime delivers Ctrl-C and Ctrl-Break as
// os.Interrupt, and closing the console window, logging off and shutting
// down as SIGTERM; while SIGTERM is notified it holds the console handler
// so that dispatch can finish (Windows allows a few seconds).
func shutdownSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM}
}

// pipeSignals is none: Windows has no SIGPIPE; a write to a closed pipe
// fails with an error.
func pipeSignals() []os.Signal { return nil }

// detach does nothing: shell sessions need a unix system, and session
// start says so before it starts a process.
func detach(*exec.Cmd) {}

// closeOnExec is nothing on Windows, where handles are not inherited
// unless asked for (and shell sessions do not run).
func closeOnExec(*os.File) {}
