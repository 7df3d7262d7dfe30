//go:build unix

package connections

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkTokenDir refuses a token directory that another user owns or can
// write: whoever can write it can replace the token file, or read the
// tokens of the next login. It is checked where it leads (a symbolic link
// to a shared directory is as shared as its target).
func checkTokenDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("token directory: %w", err)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("token directory %s belongs to another user (uid %d): OAuth tokens are kept only in your own directory; set DISPATCH_STATE_DIR or XDG_STATE_HOME to one", dir, st.Uid)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("token directory %s is writable by others (mode %04o): run chmod 700 %s, or set DISPATCH_STATE_DIR or XDG_STATE_HOME to a private directory", dir, perm, dir)
	}
	return nil
}

// checkTokenFile refuses a token file that others can read or write, or
// that is a symbolic link (dispatch replaces it by renaming, and would
// not write where the link points).
func checkTokenFile(path string, info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("token file %s is a symbolic link: remove it (dispatch auth login writes a new one)", path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("token file %s is open to others (mode %04o): its tokens may have been read; run chmod 600 %s, and dispatch auth logout and login again to replace them", path, perm, path)
	}
	return nil
}
