package main

import (
	"bytes"
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
		{"serve, SIGTERM", false, syscall.SIGTERM, exitSignal},
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
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
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
			waitFor(t, "the server to start", 30*time.Second, func() bool {
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
				waitFor(t, "the server's process group to be gone", 10*time.Second, func() bool { return !processAlive(pid) })
			}
		})
	}
}
