package spill

import "dispatch/internal/winacl"

// noFollow is 0 on Windows: O_CREATE|O_EXCL is CREATE_NEW there, which
// fails on any existing name, a symlink or junction included.
const noFollow = 0

// makePrivate gives dir a protected ACL granting the current user alone
// full control, inherited by every file created in it: Windows ignores
// the 0700 and 0600 modes, and a --spill-dir outside the per-user temp
// directory would otherwise pass on its parent's ACL.
func makePrivate(dir string) error { return winacl.MakePrivate(dir) }
