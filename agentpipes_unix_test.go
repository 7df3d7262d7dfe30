//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Served over blocking pipes, as an agent may give them, dispatch reads
// and writes them non-blocking while it serves (pipeio.Stdio: no thread
// held in a read, see pipeio) and sets them back to blocking when it
// exits, so that whoever shares them finds them as they were. The test
// keeps dispatch's own ends of both pipes open to see their mode.
func TestServe_AgentPipesNonBlockingWhileServing(t *testing.T) {
	pipe := func() (r, w *os.File) {
		var fds [2]int
		if err := syscall.Pipe(fds[:]); err != nil {
			t.Fatal(err)
		}
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
		// Blocking descriptors: os.NewFile leaves them out of the poller.
		return os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	}
	inR, inW := pipe()   // dispatch reads inR
	outR, outW := pipe() // dispatch writes outW
	defer inR.Close()
	defer outW.Close()
	defer outR.Close()
	nonblocking := func(f *os.File) bool {
		flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return flags&syscall.O_NONBLOCK != 0
	}
	cmd := exec.Command(dispatchBin, "--no-cache", "--mcp", fixture())
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	answers := bufio.NewReader(outR)
	send := func(line string) {
		if _, err := inW.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"over pipes"}}}}`)
	if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, `over pipes`) {
		t.Fatalf("call: %q, %v", line, err)
	}
	if !nonblocking(inR) || !nonblocking(outW) {
		t.Errorf("while serving: stdin non-blocking %v, stdout %v; want both", nonblocking(inR), nonblocking(outW))
	}
	inW.Close() // the agent leaves
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("dispatch exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("dispatch still runs 30 s after its stdin was closed")
	}
	if nonblocking(inR) || nonblocking(outW) {
		t.Errorf("after exit: stdin non-blocking %v, stdout %v; want both blocking again", nonblocking(inR), nonblocking(outW))
	}
}
