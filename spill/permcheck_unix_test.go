//go:build unix

package spill

import (
	"io/fs"
	"testing"
)

// checkPerm fails t unless fi's permission bits are want: on Unix they
// are what keeps others out.
func checkPerm(t *testing.T, what string, fi fs.FileInfo, want fs.FileMode) {
	t.Helper()
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode = %#o, want %#o", what, got, want)
	}
}
