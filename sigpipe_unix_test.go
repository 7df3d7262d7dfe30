//go:build unix

package main

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// An agent that closes dispatch's stdout must not kill it with SIGPIPE:
// dispatch's next answer fails with EPIPE instead, and it shuts down its
// own way (servers stopped, result files deleted), exiting with a status
// rather than dying of the signal, once its stdin ends too. The signals
// are registered beside the command's start (notifyShutdown); here the
// agent closes stdout at once.
func TestServe_ClosedStdoutIsNoSIGPIPE(t *testing.T) {
	cmd := exec.Command(dispatchBin, "--no-cache", "--mcp", fixture())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	// Its answer to initialize meets the closed pipe; then the agent
	// leaves.
	time.Sleep(time.Second)
	stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("dispatch still runs 30 s after its stdin was closed")
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			t.Fatalf("dispatch died of %v when its answer met a closed stdout", status.Signal())
		}
	}
}

// The same for a one-shot command whose output meets a closed pipe.
func TestCLI_ClosedStdoutIsNoSIGPIPE(t *testing.T) {
	cmd := exec.Command(dispatchBin, "--no-cache", "--mcp", fixture(), "list", "--tools")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("dispatch list with its stdout closed: %v, want a failure exit", err)
	}
	if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		t.Fatalf("dispatch list died of %v writing to a closed stdout", status.Signal())
	}
}
