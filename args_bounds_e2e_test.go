//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// argumentsPath on a huge or binary file is refused at once, with a clear
// error, not after scanning every byte (a 10 GiB file hung the call past
// its timeout and cancel).
func TestArgumentsPath_HugeFilesRefusedFast(t *testing.T) {
	work := t.TempDir()
	for name, size := range map[string]int64{"huge.json": 10 << 30, "zeros.json": 512 << 20} {
		f, err := os.Create(filepath.Join(work, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tc, _ := startDispatchProc(t, work, nil, "--no-cache", "--timeout", "20s", "--mcp", fixture())
	for _, tt := range []struct{ file, want string }{
		{"huge.json", "argumentsFile huge.json is 10 GiB, larger than the 1.0 GiB argumentsPath reads"},
		{"zeros.json", "zeros.json is not valid JSON"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			tc.mustError(map[string]any{"action": "call", "tool": "echo", "argumentsFile": tt.file,
				"argumentsPath": "a", "argumentsKey": "message"}, tt.want)
		})
	}
}
