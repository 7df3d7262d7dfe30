//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A result that cannot be written whole (here a file size limit, as a full
// disk would) leaves an existing -o file as it was, not cut short, and no
// file of dispatch's own beside it. Before, the file was truncated and
// written in place: it held the first 4 KiB of the result.
func TestCLI_ResultFileWriteFailureKeepsExisting(t *testing.T) {
	readFile := func(t *testing.T, path string) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.txt")
	writeFile(t, existing, "keep\n")
	if err := os.Chmod(existing, 0o640); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// ulimit -f counts 1 KiB blocks: a 100 KB result cannot be written.
	cmd := exec.CommandContext(ctx, "bash", "-c", `ulimit -f 4 && exec "$@"`, "bash",
		dispatchBin, "--no-cache", "--mcp", fixture("--serial"), "call", "big", "bytes:=100000", "-o", existing)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("the call succeeded with nowhere to write its result; stderr: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "write result file "+existing) {
		t.Errorf("stderr does not say the result file could not be written:\n%s", stderr.String())
	}
	if got := readFile(t, existing); got != "keep\n" {
		t.Errorf("existing file now holds %d bytes (%.20q...), want it as it was", len(got), got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files left beside the result: %v", entries)
	}

	// Written whole, the result replaces the file and keeps its mode.
	_, stderrOK, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--serial"), "call", "big", "bytes:=100000", "-o", existing)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderrOK)
	}
	if got := readFile(t, existing); len(got) < 100000 {
		t.Errorf("result file holds %d bytes, want the whole result", len(got))
	}
	if info, err := os.Stat(existing); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("result file's mode: %v (%v), want 0640 as before", info.Mode().Perm(), err)
	}
	// Through a symbolic link, the file it points to is written.
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(existing, link); err != nil {
		t.Fatal(err)
	}
	if _, stderrLink, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "call", "echo", "message=via link", "-o", link); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderrLink)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if got := readFile(t, existing); !strings.Contains(got, "via link") {
		t.Errorf("the linked file holds %.40q, want the result", got)
	}
}
