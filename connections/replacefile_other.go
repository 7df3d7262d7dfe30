//go:build !windows

package connections

import "os"

// replaceFile renames from over to: elsewhere an open file does not stop
// a rename over it.
func replaceFile(from, to string) error { return os.Rename(from, to) }
