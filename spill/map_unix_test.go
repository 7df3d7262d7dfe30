//go:build unix

package spill

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestLimits_Query_truncatedWhileMapped(t *testing.T) {
	// Map a file, truncate it, then touch the mapping: a fault, not a crash.
	path := writeTemp(t, "f.json", `{"a":`+strings.Repeat(" ", 1<<20)+`1}`)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, 1<<20+7, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err = guardFault("query", path, func() error {
		_, err := Limits{}.query(path, "a", data)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "changed while being read (it was truncated or rewritten)") || strings.Contains(err.Error(), "runtime error") {
		t.Errorf("err = %v, want the file named as the cause, not the runtime's words", err)
	}
}
