//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nonblocking reports whether f's description is non-blocking.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// wantBlocking fails the test unless both of dispatch's shared ends are
// blocking, as they came; when says at what point.
func wantBlocking(t *testing.T, when string, stdin, stdout *os.File) {
	t.Helper()
	if in, out := nonblocking(t, stdin), nonblocking(t, stdout); in || out {
		t.Errorf("%s: stdin non-blocking %v, stdout %v; want both as they came, blocking", when, in, out)
	}
}

// servePipes starts dispatch serving over stdin and stdout (dispatch's
// ends; the test keeps them open too, to see their mode), initializes it
// and returns a function that makes an echo call and checks its answer.
func servePipes(t *testing.T, stdin, stdout *os.File, toDispatch *os.File, fromDispatch *os.File) (cmd *exec.Cmd, echo func(string)) {
	t.Helper()
	cmd = exec.Command(dispatchBin, "--no-cache", "--mcp", fixture())
	cmd.Stdin, cmd.Stdout = stdin, stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	answers := bufio.NewReader(fromDispatch)
	send := func(line string) {
		if _, err := toDispatch.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	return cmd, func(message string) {
		t.Helper()
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":%q}}}}`, id, message))
		if line, err := answers.ReadString('\n'); err != nil || !strings.Contains(line, message) {
			t.Fatalf("call: %q, %v", line, err)
		}
	}
}

// waitExit waits for dispatch to exit once its stdin has ended.
func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
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
}

// ownNonblockingDescription reports whether process pid holds a
// descriptor of the pipe f is an end of whose description is
// non-blocking.
func ownNonblockingDescription(t *testing.T, pid int, f *os.File) bool {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pipe:[%d]", st.Ino)
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err != nil || target != want {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if octal, ok := strings.CutPrefix(line, "flags:"); ok {
				if flags, err := strconv.ParseUint(strings.TrimSpace(octal), 8, 64); err == nil && flags&syscall.O_NONBLOCK != 0 {
					return true
				}
			}
		}
	}
	return false
}

// Served over blocking pipes, as an agent may give them, dispatch reads
// and writes each through a description of the pipe of its own, opened
// non-blocking (pipeio.Stdio: no thread held in a read), and changes
// nothing of the ends it shares: they stay blocking for whoever else
// holds them, before, while and after it serves.
func TestServe_AgentPipesOfItsOwn(t *testing.T) {
	pipe := func() (r, w *os.File) {
		var fds [2]int
		if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		// Blocking descriptors: os.NewFile leaves them out of the poller.
		return os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	}
	inR, inW := pipe()   // dispatch reads inR
	outR, outW := pipe() // dispatch writes outW
	defer inR.Close()
	defer outW.Close()
	defer outR.Close()
	cmd, echo := servePipes(t, inR, outW, inW, outR)
	echo("over pipes")
	wantBlocking(t, "while serving, the shared ends", inR, outW)
	for name, f := range map[string]*os.File{"stdin": inR, "stdout": outW} {
		if !ownNonblockingDescription(t, cmd.Process.Pid, f) {
			t.Errorf("dispatch holds no non-blocking description of its %s pipe of its own", name)
		}
	}
	inW.Close() // the agent leaves
	waitExit(t, cmd)
	wantBlocking(t, "after exit", inR, outW)
}

// Over sockets (a Node.js agent's child stdio are socket pairs), dispatch
// reads and writes with calls that never wait whatever the socket's mode:
// the shared socket stays as it came, blocking, and another process
// setting it one way or the other while dispatch serves changes nothing.
func TestServe_AgentSocketsLeftAsTheyCame(t *testing.T) {
	pair := func() (theirs, ours *os.File) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), "dispatch's end"), os.NewFile(uintptr(fds[1]), "agent's end")
	}
	in, agentIn := pair()
	out, agentOut := pair()
	defer in.Close()
	defer out.Close()
	defer agentOut.Close()
	cmd, echo := servePipes(t, in, out, agentIn, agentOut)
	echo("over sockets")
	wantBlocking(t, "while serving", in, out)
	for _, set := range []bool{true, false} {
		for _, f := range []*os.File{in, out} {
			if err := syscall.SetNonblock(int(f.Fd()), set); err != nil {
				t.Fatal(err)
			}
		}
		echo(fmt.Sprintf("with the sockets set non-blocking %v by another process", set))
	}
	agentIn.Close()
	waitExit(t, cmd)
}
