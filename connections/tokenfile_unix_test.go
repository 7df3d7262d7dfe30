//go:build unix

package connections

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token file others can read, or a token directory others can write
// (where they could swap the file), is refused with how to fix it, not
// used silently.
func TestTokenFile_RefusesLoosePermissions(t *testing.T) {
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "https://example.com/mcp"}
	fill := func(t *testing.T, tokens *TokenFile) {
		t.Helper()
		if err := tokens.update(cfg, func(e *TokenEntry) { e.ClientID = "c" }); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("file readable by others", func(t *testing.T) {
		tokens := NewTokenFile(filepath.Join(t.TempDir(), "state", TokenFileName), nil)
		fill(t, tokens)
		if err := os.Chmod(tokens.Path(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := tokens.Entry(cfg)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("Entry of a 0644 token file: want an error telling to chmod 600, got %v", err)
		}
	})
	t.Run("directory writable by others", func(t *testing.T) {
		shared := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(shared, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		// Reached through a symbolic link, as a state directory linked to a shared one.
		link := filepath.Join(t.TempDir(), "state")
		if err := os.Symlink(shared, link); err != nil {
			t.Fatal(err)
		}
		tokens := NewTokenFile(filepath.Join(link, TokenFileName), nil)
		err := tokens.update(cfg, func(e *TokenEntry) { e.ClientID = "c" })
		if err == nil || !strings.Contains(err.Error(), "chmod 700") {
			t.Errorf("write into a 0777 directory: want an error telling to chmod 700, got %v", err)
		}
		if _, err := os.Stat(filepath.Join(shared, TokenFileName)); err == nil {
			t.Error("tokens were written into a directory others can write")
		}
	})
}
