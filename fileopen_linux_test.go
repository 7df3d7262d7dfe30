package main

import (
	"bytes"
	"context"
	"dispatch/internal/testkit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Calls that race a swapping loop. Before the open was its own check, 110
// of 3000 argumentsFile calls and 2 to 549 of 2000 readresult reads (their
// window is narrower) read the file outside the root here.
const (
	argsSwapAttempts = 3000
	readSwapAttempts = 5000
)

// swapper exchanges a and b atomically (renameat2 RENAME_EXCHANGE) in a
// tight loop until the test ends.
func swapper(t *testing.T, a, b string) {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2 %s %s: %v", a, b, err)
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
}

// secret is the content of the files outside the roots: an answer holding
// it read one of them.
const secret = "SECRET-FROM-OUTSIDE"

// raceCalls makes n calls of req from two goroutines, each with a generous
// hang detector, and counts the answers holding secret and the other
// successful ones.
func raceCalls(t *testing.T, tc *testClient, req map[string]any, n int) (escaped, ok int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/2; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				r, err := tc.call(ctx, req, nil)
				cancel()
				if err != nil {
					t.Errorf("call %v: %v (a call that never answers: open blocked?)", req, err)
					return
				}
				mu.Lock()
				switch {
				case strings.Contains(r.text(), secret):
					escaped++
				case !r.IsError:
					ok++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return escaped, ok
}

// Swapping a directory for a symlink out of the root while calls read
// argumentsFile through it must never forward the outside file.
func TestServe_ArgumentsFileSwapRace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "d", "args.json"), `{"message":"inside"}`)
	writeFile(t, filepath.Join(outside, "args.json"), `{"message":"`+secret+`"}`)
	if err := os.Symlink(outside, filepath.Join(root, "s")); err != nil {
		t.Fatal(err)
	}
	tc, _ := startDispatchProc(t, root, nil, "--no-cache", "--mcp", fixture())
	swapper(t, filepath.Join(root, "d"), filepath.Join(root, "s"))
	escaped, ok := raceCalls(t, tc, map[string]any{"action": "call", "tool": "echo", "argumentsFile": "d/args.json"}, argsSwapAttempts)
	t.Logf("%d calls: %d read the file inside, %d escaped", argsSwapAttempts, ok, escaped)
	if escaped > 0 {
		t.Errorf("%d of %d calls forwarded the file outside the root", escaped, argsSwapAttempts)
	}
	if ok == 0 {
		t.Error("no call read the file: the race proved nothing")
	}
}

// Swapping a result file with a symlink out of the spill directory while
// readresult reads it must never read the outside file.
func TestServe_ReadresultSwapRace(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.json")
	writeFile(t, outside, `{"message":"`+secret+`"}`)
	tc, _ := startDispatchProc(t, "", nil, "--no-cache", "--spill-dir", t.TempDir(), "--mcp", fixture())
	file := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "inside"}, "resultToFile": true})).Spill.ResultFile
	link := filepath.Join(filepath.Dir(file), "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	swapper(t, file, link)
	escaped, ok := raceCalls(t, tc, map[string]any{"action": "readresult", "resultFile": file, "op": "read"}, readSwapAttempts)
	t.Logf("%d reads: %d read the result file, %d escaped", readSwapAttempts, ok, escaped)
	if escaped > 0 {
		t.Errorf("%d of %d reads read the file outside the spill directory", escaped, readSwapAttempts)
	}
	if ok == 0 {
		t.Error("no read succeeded: the race proved nothing")
	}
}

// A FIFO swapped in for an argumentsFile gets a prompt, clear error (never
// a call stuck in open), and dispatch still shuts down on stdin EOF or
// SIGTERM, deleting its result files.
func TestServe_ArgumentsFileFIFOSwap(t *testing.T) {
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM} {
		name := "stdin EOF"
		if sig != 0 {
			name = sig.String()
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "args.json"), `{"message":"regular"}`)
			if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			tc, cmd := startDispatchProc(t, root, nil, "--no-cache", "--spill-dir", parent, "--mcp", fixture())
			dir := filepath.Dir(spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo",
				"arguments": map[string]any{"message": "m"}, "resultToFile": true})).Spill.ResultFile)

			r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "argumentsFile": "fifo"})
			if !r.IsError || !strings.Contains(r.text(), "not a regular file") {
				t.Errorf("argumentsFile naming a FIFO: %s, want an error saying it is not a regular file", r.text())
			}
			swapper(t, filepath.Join(root, "args.json"), filepath.Join(root, "fifo"))
			_, ok := raceCalls(t, tc, map[string]any{"action": "call", "tool": "echo", "argumentsFile": "args.json"}, argsSwapAttempts)
			if ok == 0 {
				t.Error("no call read the regular file: the race proved nothing")
			}

			if sig == 0 {
				if err := tc.tr.Close(); err != nil {
					t.Logf("close: %v", err)
				}
			} else if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			testkit.WaitFor(t, "dispatch to exit", 30*time.Second, func() bool { return !processAlive(cmd.Process.Pid) })
			if exists(dir) {
				t.Errorf("spill directory %s left behind", dir)
			}
		})
	}
}

// From the shell any file may be named, but a FIFO or a device is refused
// at once, by readresult, call -f, run and toon alike.
func TestCLI_RefusesFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"readresult FIFO", []string{"readresult", fifo}},
		{"readresult FIFO query", []string{"readresult", fifo, "--op", "query", "--path", "a"}},
		{"readresult device", []string{"readresult", "/dev/zero", "--op", "head"}},
		{"call -f FIFO", []string{"--no-cache", "--mcp", fixture(), "call", "echo", "-f", fifo}},
		{"call -f device", []string{"--no-cache", "--mcp", fixture(), "call", "echo", "-f", "/dev/zero"}},
		{"run steps FIFO", []string{"--no-cache", "--mcp", fixture(), "run", fifo}},
		{"toon FIFO", []string{"toon", fifo}},
		{"toon device", []string{"toon", "--decode", "/dev/zero"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, dispatchBin, tt.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("dispatch %v hung (hang detector: 20 s)", tt.args)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("dispatch %v: exit %d (%v), stderr %q; want exit %d saying it is not a regular file", tt.args, code, err, stderr.String(), exitUsage)
			}
		})
	}
}

// What argumentsFile says for each kind of path under the working
// directory: regular files are read (also through symlinks that stay
// inside), anything else gets an error saying what is wrong with it, and
// "does not exist" is said only inside the root.
func TestServe_ArgumentsFileKinds(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "args.json"), `{"message":"regular"}`)
	writeFile(t, filepath.Join(outside, "args.json"), `{"message":"`+secret+`"}`)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"inside.json":  "args.json",
		"subdir":       "dir",
		"out.json":     filepath.Join(outside, "args.json"),
		"outdir":       outside,
		"relout.json":  "../" + filepath.Base(outside) + "/args.json",
		"magic.json":   "/proc/self/fd/0",
		"devnull.json": "/dev/null",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tc, _ := startDispatchProc(t, root, nil, "--no-cache", "--mcp", fixture())
	tests := []struct {
		path string
		want string // the echoed message, or the error's telling part
		ok   bool
	}{
		{"args.json", "regular", true},
		{"inside.json", "regular", true},
		{"subdir/../args.json", "regular", true},
		{"fifo", "not a regular file", false},
		{"dir", "not a regular file", false},
		{"devnull.json", "outside the directories", false},
		{"/dev/null", "outside the directories", false},
		{"out.json", "outside the directories", false},
		{"outdir/args.json", "outside the directories", false},
		{"relout.json", "outside the directories", false},
		{"magic.json", "outside the directories", false},
		{"/proc/self/environ", "outside the directories", false},
		{"missing.json", "does not exist", false},
		{"args.json/x", "does not exist", false},
		{"outdir/missing.json", "outside the directories", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "argumentsFile": tt.path})
			if r.IsError == tt.ok || !strings.Contains(r.text(), tt.want) || strings.Contains(r.text(), secret) {
				t.Errorf("argumentsFile %s: isError=%v %q; want isError=%v with %q", tt.path, r.IsError, r.text(), !tt.ok, tt.want)
			}
		})
	}
}
