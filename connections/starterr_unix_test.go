//go:build unix

package connections

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server named by a bare name that Go finds only through the current
// directory (a "." in PATH here; on Windows the current directory is
// searched first) is refused by Go with exec.ErrDot. It was found: the
// error must say where and how to run it, not "not found in PATH".
func TestStartErr_ProgramInCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.ReadFile(fixtureServer.Path(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fxsrv"), exe, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", ".")
	cfg := stdio("fx", "fxsrv")
	tr := newStdioTransport(cfg, newTailBuffer(0), stdioOptions{})
	startErr := tr.Start(context.Background())
	if startErr == nil {
		tr.Close()
		t.Fatal("Go ran a program found through . in PATH; this test needs exec.ErrDot")
	}
	got := explainStartErr(cfg, startErr).Error()
	if !strings.Contains(got, "found in the current directory") || !strings.Contains(got, "./fxsrv") || strings.Contains(got, "not found in PATH") {
		t.Errorf("starting a program found only through the current directory: %s; want it said where it was found and to give ./fxsrv", got)
	}
}
