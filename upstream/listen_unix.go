//go:build unix

package upstream

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// withUmask runs f with the process umask set to mask. The umask is
// process-wide: a file another goroutine creates meanwhile comes out more
// private than asked, never less.
func withUmask(mask int, f func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

// ownedByMe says whether info's file belongs to this process's user, and
// whose it is.
func ownedByMe(info fs.FileInfo) (owner int, mine bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), int(st.Uid) == os.Getuid()
}

// makeDirPrivate makes a directory dispatch created exactly 0700: MkdirAll
// honours the umask.
func makeDirPrivate(dir string) error {
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("make the socket's directory %s private (0700): %w", dir, err)
	}
	return nil
}

// checkDirPrivate refuses a socket directory others can enter.
func checkDirPrivate(dir string, info fs.FileInfo) error {
	if perm := info.Mode().Perm(); perm != 0o700 {
		return fmt.Errorf("socket directory %s has mode %#o, which lets others in: run chmod 700 %s, or use a new directory (dispatch creates it 0700)", dir, perm, dir)
	}
	return nil
}
