//go:build windows

package upstream

import "io/fs"

// withUmask runs f: Windows has no umask; a unix socket there takes the
// directory's ACL.
func withUmask(_ int, f func()) { f() }

// ownedByMe: Windows file owners are SIDs, not uids; the directory's ACL
// is the user's to set.
func ownedByMe(fs.FileInfo) (owner int, mine bool) { return -1, true }
