//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeHTTP_TokenFileMustBePrivate: a token file other users can
// read is refused, as ssh refuses such a key, with the chmod that fixes it.
func TestServeHTTP_TokenFileMustBePrivate(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(strings.Repeat("k", 32)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tokenFile, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile)
	if code != exitUsage || !strings.Contains(stderr, "chmod 600") {
		t.Errorf("exit %d, stderr %q; want %d naming chmod 600", code, stderr, exitUsage)
	}
}
