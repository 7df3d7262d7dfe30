//go:build unix

package spill

import "syscall"

// noFollow makes creating a spill file fail on a symlink planted under
// its name.
const noFollow = syscall.O_NOFOLLOW

// makePrivate does nothing on Unix: the directory was created 0700, and
// the files in it are 0600.
func makePrivate(string) error { return nil }
