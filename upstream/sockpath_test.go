package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A socket path one byte past what sun_path holds is refused with the
// limit named, not bind's bare "invalid argument"; the longest that fits
// is served.
func TestListen_SocketPathLengthIsNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	pathOf := func(n int) string {
		base := dir + string(filepath.Separator)
		return base + strings.Repeat("x", n-len(base))
	}
	if len(dir)+2 > MaxSocketPathBytes-1 {
		t.Skipf("the temporary directory %s is too long to test with", dir)
	}
	_, err := Listen(UnixPrefix + pathOf(MaxSocketPathBytes))
	if want := fmt.Sprintf("allows at most %d", MaxSocketPathBytes-1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a %d-byte socket path: %v; want an error saying %q", MaxSocketPathBytes, err, want)
	}
	l, err := Listen(UnixPrefix + pathOf(MaxSocketPathBytes-1))
	if err != nil {
		t.Fatalf("a %d-byte socket path, the longest that fits: %v", MaxSocketPathBytes-1, err)
	}
	l.Close()
}
