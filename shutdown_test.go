//go:build unix

package main

import (
	"bufio"
	"dispatch/internal/testkit"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stubbornServer writes a stdio "server" that never answers initialize,
// ignores SIGTERM and stdin EOF, and keeps a grandchild that ignores them
// too, like a wedged npx. It records both pids in pidFile once running.
func stubbornServer(t *testing.T, dir string) (script, pidFile string) {
	t.Helper()
	script = filepath.Join(dir, "stubborn.sh")
	pidFile = filepath.Join(dir, "pids")
	writeFile(t, script, `#!/bin/sh
trap "" TERM
echo $$ > "$1.tmp"
sleep 300 &
echo $! >> "$1.tmp"
mv "$1.tmp" "$1"
wait
`)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return script, pidFile
}

// readPIDs returns the pids in path, or nil until it has been written.
func readPIDs(path string) []int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := parsePID(f)
		if err != nil {
			return nil
		}
		pids = append(pids, pid)
	}
	return pids
}

// Shutting down while a server is still starting must stop it and its
// whole process group too (stdin closed, SIGTERM, then SIGKILL), before
// dispatch exits: nothing it started may be left running.
func TestShutdown_StopsServersStillStarting(t *testing.T) {
	tests := []struct {
		name    string
		oneShot bool
		sig     syscall.Signal // 0: close stdin
		code    int
	}{
		{"serve, stdin EOF", false, 0, exitOK},
		{"serve, SIGINT", false, syscall.SIGINT, exitSignal},
		{"serve, SIGTERM", false, syscall.SIGTERM, exitOK}, // a service manager's stop
		{"one-shot, SIGINT", true, syscall.SIGINT, exitSignal},
		{"one-shot, SIGTERM", true, syscall.SIGTERM, exitSignal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each takes the few seconds of SIGTERM and SIGKILL grace
			script, pidFile := stubbornServer(t, t.TempDir())
			args := []string{"--no-cache", "--mcp", script + " " + pidFile}
			if tt.oneShot {
				args = append(args, "call", "echo", `{"message":"x"}`)
			} else {
				args = append(args, "--eager")
			}
			cmd := exec.Command(dispatchBin, args...)
			stdin, stderr := startWithStdin(t, cmd)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var pids []int
			t.Cleanup(func() {
				// Only if the test failed: never leave them behind.
				for _, pid := range pids {
					if processAlive(pid) {
						if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
							t.Logf("kill %d: %v", pid, err)
						}
					}
				}
			})
			if !tt.oneShot {
				// Over stdio --eager starts servers at the agent's first
				// request, declaring its capabilities.
				if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			testkit.WaitFor(t, "the server to start", 30*time.Second, func() bool {
				pids = readPIDs(pidFile)
				return len(pids) == 2
			})

			if tt.sig == 0 {
				if err := stdin.Close(); err != nil {
					t.Fatal(err)
				}
			} else if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(time.Minute):
				t.Fatalf("dispatch did not exit\nstderr:\n%s", stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("dispatch exited %d, want %d\nstderr:\n%s", code, tt.code, stderr.String())
			}
			for _, pid := range pids {
				testkit.WaitFor(t, "the server's process group to be gone", 10*time.Second, func() bool { return !processAlive(pid) })
			}
		})
	}
}

// The official MCP SDK clients close dispatch's stdin, wait 2 s, then
// SIGTERM it. dispatch must be gone before that, whatever its servers do:
// this one ignores both stdin EOF and SIGTERM, and has a grandchild.
func TestShutdown_ExitsBeforeTheClientsGrace(t *testing.T) {
	const clientGrace = 2 * time.Second // the SDKs' wait before SIGTERM
	cmd := exec.Command(dispatchBin, "--no-cache", "--mcp", fixture("--ignore-shutdown"))
	// Under go test -race the binary is race-enabled, whose runtime sleeps
	// 1 s at exit by default (atexit_sleep_ms): not dispatch's time.
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, stderr := startWithStdin(t, cmd)
	var pids []int
	t.Cleanup(func() {
		for _, pid := range append(pids, cmd.Process.Pid) {
			if processAlive(pid) {
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Logf("kill %d: %v", pid, err)
				}
			}
		}
	})
	responses := bufio.NewScanner(stdout)
	responses.Buffer(make([]byte, 1<<20), 1<<20)
	exchange := func(request string, id int) string {
		t.Helper()
		if _, err := io.WriteString(stdin, request+"\n"); err != nil {
			t.Fatal(err)
		}
		for responses.Scan() {
			var resp struct {
				ID     int
				Result struct{ Content []struct{ Text string } }
			}
			if json.Unmarshal(responses.Bytes(), &resp) == nil && resp.ID == id {
				if len(resp.Result.Content) > 0 {
					return resp.Result.Content[0].Text
				}
				return ""
			}
		}
		t.Fatalf("no answer to %s; stderr:\n%s", request, stderr.String())
		return ""
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 1)
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	text := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"spawn_grandchild"}}}`, 2)
	grandchild, err := parsePID(strings.TrimSpace(text))
	if err != nil {
		t.Fatalf("spawn_grandchild answered %q", text)
	}
	pids = append(childPIDs(t, cmd.Process.Pid), grandchild)
	if len(pids) != 2 {
		t.Fatalf("want the server and its grandchild, have %v", pids)
	}

	exited := make(chan error, 1)
	began := time.Now()
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(clientGrace):
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(time.Minute):
			t.Fatal("dispatch did not exit even after SIGTERM")
		}
	}
	took := time.Since(began)
	if code := cmd.ProcessState.ExitCode(); code != exitOK || strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("dispatch exited %d after %s (the client SIGTERMs it after %s); want 0 before that\nstderr:\n%s",
			code, took.Round(time.Millisecond), clientGrace, stderr.String())
	}
	t.Logf("dispatch exited %s after stdin EOF", took.Round(time.Millisecond))
	for _, pid := range pids {
		testkit.WaitFor(t, "the server's process group to be gone", 10*time.Second, func() bool { return !processAlive(pid) })
	}
}

// TestServeHTTP_SIGTERMExitsZero: SIGTERM is a service manager's ordinary
// stop; serve --listen shut down cleanly by it exits 0, saying nothing of
// an interruption.
func TestServeHTTP_SIGTERMExitsZero(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	spillOver(t, d.session(t))
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("dispatch did not exit within 20 s of SIGTERM")
	}
	if code := d.cmd.ProcessState.ExitCode(); code != exitOK || strings.Contains(d.stderr.String(), "interrupted") {
		t.Errorf("dispatch exited %d after SIGTERM, want 0 without \"interrupted\"\nstderr:\n%s", code, d.stderr.String())
	}
}
