//go:build windows

package upstream

import (
	"fmt"
	"io/fs"

	"dispatch/internal/winacl"
)

// withUmask runs f: Windows has no umask; a unix socket there takes the
// directory's ACL.
func withUmask(_ int, f func()) { f() }

// ownedByMe: Windows file owners are SIDs, not uids; checkDirPrivate
// reads the directory's ACL instead.
func ownedByMe(fs.FileInfo) (owner int, mine bool) { return -1, true }

// makeDirPrivate gives a directory dispatch created a protected ACL for
// the user alone (as spill does for result files): Windows ignores the
// 0700 mode, and reports every directory as 0777.
func makeDirPrivate(dir string) error {
	if err := winacl.MakePrivate(dir); err != nil {
		return fmt.Errorf("make the socket's directory private: %w", err)
	}
	return nil
}

// checkDirPrivate refuses a socket directory whose ACL lets in anyone
// but the user, SYSTEM and Administrators. An existing directory's ACL
// is the user's: dispatch does not change it.
func checkDirPrivate(dir string, _ fs.FileInfo) error {
	other, err := winacl.OthersAllowed(dir)
	if err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	if other != "" {
		return fmt.Errorf("socket directory %s lets others in (its ACL allows %s): use a new directory, which dispatch creates with an ACL for you alone, or one under your profile (%%LocalAppData%%)", dir, other)
	}
	return nil
}
