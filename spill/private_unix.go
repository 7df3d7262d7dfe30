//go:build unix

package spill

import (
	"os"
	"syscall"
)

// noFollow makes creating a spill file fail on a symlink planted under
// its name.
const noFollow = syscall.O_NOFOLLOW

// makePrivate does nothing on Unix: the directory was created 0700, and
// the files in it are 0600.
func makePrivate(string) error { return nil }

// createSpillFile creates a new spill file, 0600, refusing a symlink
// planted under its name.
func createSpillFile(path string, _ bool) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
}
