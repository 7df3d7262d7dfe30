//go:build unix

package spill

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// ownedDir reports whether path is a directory (not a symlink) owned by the
// current user.
func ownedDir(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// readMarker reads a marker file without following a symlink and only if it
// is a small regular file owned by the current user.
func readMarker(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || !ok || int(st.Uid) != os.Getuid() {
		return nil, errors.New("owner marker is not a regular file of the current user")
	}
	return io.ReadAll(io.LimitReader(f, maxMarkerBytes))
}
