package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// FixturePackage is the Go fixture MCP server (testdata/fixture) that
// tests put behind dispatch over real pipes.
const FixturePackage = "dispatch/testdata/fixture"

// Build compiles the Go package pkg (an import path, or a directory
// relative to the current one) with the go build flags into dir/name
// (name.exe on Windows) and returns the binary's path.
func Build(dir, name, pkg string, flags ...string) (string, error) {
	// go build -o adds no .exe, and Windows runs nothing without one.
	if runtime.GOOS == "windows" && !strings.HasSuffix(name, ".exe") {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	args := append(append([]string{"build"}, flags...), "-o", bin, pkg)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

// PinBuildCache sets GOCACHE to the build cache the go command uses now,
// unless it is set already, so that builds keep using it after a test
// points XDG_CACHE_HOME (where the go command looks by default) elsewhere.
func PinBuildCache() error {
	if os.Getenv("GOCACHE") != "" {
		return nil
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOCACHE: %w", err)
	}
	cache := strings.TrimSpace(string(out))
	if cache == "" || cache == "off" {
		return nil // no cache to keep
	}
	return os.Setenv("GOCACHE", cache)
}

// Binary is a Go program built at most once per test binary, on first
// use: building it again for every test would cost seconds each.
// The zero value is not usable; set Package.
type Binary struct {
	Package string // what to build, e.g. FixturePackage

	once sync.Once
	path string
	err  error
}

// Path builds the program the first time and returns its path; a build
// that failed fails every test that asks. The binary's temporary
// directory is left for the system: nothing ends a package's tests that
// could remove it without a TestMain.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "dispatch-testkit-")
		if err != nil {
			b.err = err
			return
		}
		b.path, b.err = Build(dir, filepath.Base(b.Package), b.Package)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}
