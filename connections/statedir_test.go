package connections

import (
	"path/filepath"
	"strings"
	"testing"
)

// DISPATCH_STATE_DIR moves the token file on every OS: XDG_STATE_HOME is
// ignored on Windows, which left no way to move it there (nor to keep
// tests off the user's own tokens).
func TestDefaultTokenFile_StateDirEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(StateDirEnv, dir)
	got, err := DefaultTokenFile()
	if want := filepath.Join(dir, TokenFileName); err != nil || got != want {
		t.Errorf("DefaultTokenFile() = %q, %v; want %q", got, err, want)
	}
	t.Setenv(StateDirEnv, "relative/state")
	if _, err := DefaultTokenFile(); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("a relative %s: %v; want it refused", StateDirEnv, err)
	}
}
