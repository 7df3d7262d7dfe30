//go:build unix

package connections

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO put where a cached catalog or a saved search index belongs is
// refused at once: reading it would block the command forever.
func TestCache_FIFOIsNotRead(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 32)
	if err := cache.SaveSearchIndex(key, []byte("x")); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("cd", 16)
	for _, path := range []string{
		filepath.Join(cache.Dir(), searchIndexDir, key+".idx"),
		filepath.Join(cache.Dir(), id+".json"),
	} {
		if err := syscall.Unlink(path); err != nil && err != syscall.ENOENT {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cache.LoadSearchIndex(key); ok {
		t.Error("a FIFO loaded as a search index")
	}
	if _, ok := cache.Load(id); ok {
		t.Error("a FIFO loaded as a catalog")
	}
}
