//go:build unix

package dispatch

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTooBroadForDefault: a filesystem root, the home directory, one
// above it and the directory holding every user's home are too broad to
// be argumentsFile's default root; a project directory is not.
func TestTooBroadForDefault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := filepath.Join(home, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{string(filepath.Separator), home, filepath.Dir(home)} {
		if !tooBroadForDefault(dir) {
			t.Errorf("tooBroadForDefault(%s) = false, want true", dir)
		}
	}
	for _, homes := range homesDirs() {
		if _, err := os.Stat(homes); err == nil && !tooBroadForDefault(homes) {
			t.Errorf("tooBroadForDefault(%s) = false, want true: it holds every user's home (root's is elsewhere)", homes)
		}
	}
	if tooBroadForDefault(project) {
		t.Errorf("tooBroadForDefault(%s) = true, want false: a project directory", project)
	}
}

// TestNew_WarnsOfABroadArgsDir: --args-dir naming the home directory is
// honoured (the user named it) but said at start, since an agent may then
// feed any file under it to a tool.
func TestNew_WarnsOfABroadArgsDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	var log bytes.Buffer
	New(nil, Options{ArgumentRoots: []string{home}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if !strings.Contains(log.String(), "--args-dir names a filesystem root or home directory") {
		t.Errorf("log = %q, want a warning about the broad --args-dir", log.String())
	}
	log.Reset()
	New(nil, Options{ArgumentRoots: []string{filepath.Join(home, "project")}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if log.Len() != 0 {
		t.Errorf("log = %q for a project directory, want nothing", log.String())
	}
}
