package spill

import (
	"os"

	"dispatch/internal/winacl"
)

// noFollow is 0 on Windows: O_CREATE|O_EXCL is CREATE_NEW there, which
// fails on any existing name, a symlink or junction included.
const noFollow = 0

// makePrivate gives dir a protected ACL granting the current user alone
// full control, inherited by every file created in it: Windows ignores
// the 0700 and 0600 modes, and a --spill-dir outside the per-user temp
// directory would otherwise pass on its parent's ACL.
func makePrivate(dir string) error { return winacl.MakePrivate(dir) }

// createSpillFile creates a new spill file. In the store's own directory
// it inherits the directory's private ACL; a kept file, in a directory of
// the user's that dispatch does not change, is created with a private ACL
// of its own (the 0600 of Unix).
func createSpillFile(path string, kept bool) (*os.File, error) {
	if kept {
		return winacl.CreatePrivateFile(path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
}
