//go:build unix

package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkSessionSocket refuses a session socket that another user could
// have made: one owned by someone else, or in a directory others own or
// may write to (where it could be swapped). A mistyped or planted
// DISPATCH_SESSION must not receive a command's arguments. Root's own
// directories count as safe: root can read everything anyway.
func checkSessionSocket(socket string) error {
	uid := os.Getuid()
	info, err := os.Lstat(socket)
	if err != nil {
		return err // a missing socket is a session that has ended
	}
	if owner, ok := fileOwner(info); !ok || owner != uid {
		return &ForeignSessionError{Socket: socket, Why: fmt.Sprintf("the socket belongs to user %d, not to you (user %d)", owner, uid)}
	}
	dir := filepath.Dir(socket)
	dinfo, err := os.Stat(dir)
	if err != nil {
		return err
	}
	owner, ok := fileOwner(dinfo)
	switch {
	case !ok || (owner != uid && owner != 0):
		return &ForeignSessionError{Socket: socket, Why: fmt.Sprintf("its directory %s belongs to user %d", dir, owner)}
	case dinfo.Mode().Perm()&0o022 != 0:
		return &ForeignSessionError{Socket: socket, Why: fmt.Sprintf("its directory %s is writable by others (mode %04o), so the socket could be replaced", dir, dinfo.Mode().Perm())}
	}
	return nil
}

func fileOwner(info os.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}
