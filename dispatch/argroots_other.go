//go:build !linux

package dispatch

import (
	"os"
	"path/filepath"
)

// openedFilePath is f's name with its symlinks resolved: without
// /proc/self/fd this is a second look at the name, which the path checks
// before the open already made.
func openedFilePath(f *os.File) string {
	real, err := filepath.EvalSymlinks(f.Name())
	if err != nil {
		return ""
	}
	return real
}

func kernelFS(*os.File) bool { return false }
