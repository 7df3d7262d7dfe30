package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsFile_SystemDirs: /proc, /sys and /dev are never read as
// arguments, even with --args-dir /.
func TestArgumentsFile_SystemDirs(t *testing.T) {
	shm := filepath.Join("/dev/shm", "dispatch-argtest-"+filepath.Base(t.TempDir())+".json")
	if err := os.WriteFile(shm, []byte(`{"message":"shm-s3cret"}`), 0o600); err == nil {
		t.Cleanup(func() { os.Remove(shm) })
	} else {
		shm = ""
	}
	tc, _ := startDispatchProc(t, t.TempDir(), nil, "--no-cache", "--args-dir", "/", "--mcp", fixture())
	files := []string{"/proc/self/environ", "/proc/self/cmdline", "/sys/kernel/uevent_seqnum"}
	if shm != "" {
		files = append(files, shm)
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			text := tc.mustError(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file, "argumentsKey": "message"},
				"which argumentsFile never reads")
			if strings.Contains(text, "shm-s3cret") || strings.Contains(text, "PATH=") {
				t.Errorf("refusal shows the file: %s", text)
			}
		})
	}
	// The rest of / stays readable when the user asked for it.
	ok := filepath.Join(t.TempDir(), "ok.json")
	writeFile(t, ok, `{"message":"fine"}`)
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": ok}); r.text() != "fine" {
		t.Errorf("echo fed %s = %q", ok, r.text())
	}
}
