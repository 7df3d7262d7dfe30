//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dispatch/connections"
	"dispatch/internal/testkit"
)

// A config path swapped for a FIFO or a file over MaxConfigBytes is
// reported as invalid and the running servers kept; the watcher neither
// blocks on the FIFO nor reads without bound (a symlink to /dev/zero made
// dispatch grow to 24 GB), and applies the next good config.
func TestLiveConfig_HostileSwapIsRefused(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	good := fmt.Sprintf("[servers.keep]\ncommand = %q\n", fixtureBin)
	writeFile(t, config, good)
	tc := startDispatch(t, nil, "--config", config, "--config-poll", "100ms", "--cache-dir", t.TempDir(), "--log-level", "info")
	tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "up"}})

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	swap := filepath.Join(dir, "swap")
	if err := os.Symlink(fifo, swap); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(swap, config); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the FIFO to be refused", 30*time.Second, func() bool {
		return strings.Contains(tc.Stderr(), "is not a regular file")
	})

	big := filepath.Join(dir, "big")
	writeFile(t, big, strings.Repeat("#", connections.MaxConfigBytes+1))
	if err := os.Rename(big, config); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the big file to be refused", 30*time.Second, func() bool {
		return strings.Contains(tc.Stderr(), "MaxConfigBytes")
	})

	still := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "still"}})
	checkText(t, "echo after the hostile swaps", still.text(), []string{"still"}, nil)
	writeConfigAtomically(t, config, good+fmt.Sprintf("[servers.fresh]\ncommand = %q\nargs = [\"--name\", \"fresh\"]\n", fixtureBin))
	testkit.WaitFor(t, "the good config after them", 30*time.Second, func() bool { return strings.Contains(tc.Stderr(), "added c2 (fresh)") })
}
