//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSession_OpenBaseDirRefused: a session directory that already
// exists open to other users (another user may have made it in a shared
// /tmp, or a chmod loosened it) is refused, saying how to fix it; no
// session starts in it.
func TestSession_OpenBaseDirRefused(t *testing.T) {
	env := sessionEnv(t)
	var runtimeDir string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok {
			runtimeDir = v
		}
	}
	base := filepath.Join(runtimeDir, "dispatch")
	if err := os.Mkdir(base, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runIn(t, env, "", dispatchBin, "--mcp", fixture(), "session", "start", "--sh")
	if code == 0 || !strings.Contains(errOut, "open to other users") || !strings.Contains(errOut, "chmod 700") {
		t.Fatalf("session start in a 0755 directory: exit %d, stdout %q, stderr %q; want a refusal naming chmod 700", code, out, errOut)
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("a session was made in the open directory: %v", entries)
	}
}
