//go:build unix

package upstream

import (
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
