package main

import (
	"dispatch/internal/testkit"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// An agent that stops reading dispatch's stdout and then closes stdin
// leaves requests blocked writing their answers, where no context reaches
// them. Shutdown must still complete within its bound: dispatch exits and
// its result files are deleted.
func TestServe_ShutdownWithAnswersUnread(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command(dispatchBin, "--no-cache", "--spill-dir", parent, "--mcp", fixture())
	stdout, err := cmd.StdoutPipe() // never read
	if err != nil {
		t.Fatal(err)
	}
	stdin, stderr := startWithStdin(t, cmd)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			if err := cmd.Process.Kill(); err != nil {
				t.Logf("kill dispatch: %v", err)
			}
			<-exited
		}
	})

	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("write to dispatch: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= 8; i++ {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"large","arguments":{"bytes":30000,"shape":"text"}}}}`, i))
	}
	// Once the pipe is (nearly: writes leave part-filled pages) full, the
	// answers still to come, 8 x 30 KB in all, block in write.
	fd := int(stdout.(*os.File).Fd())
	capacity, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "dispatch's stdout pipe to fill", 60*time.Second, func() bool {
		n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
		return err == nil && n >= capacity-8<<10
	})
	dirs, err := filepath.Glob(filepath.Join(parent, "dispatch-spill-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("private spill directories %v (%v), want one", dirs, err)
	}

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("dispatch did not exit after stdin EOF (hang detector: 30 s)\nstderr:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("dispatch exited %d, want %d\nstderr:\n%s", code, exitOK, stderr.String())
	}
	if exists(dirs[0]) {
		t.Errorf("spill directory %s left behind", dirs[0])
	}
}
