//go:build !unix && !windows

package safefile

import "os"

// Without FIFOs that block in open, there is nothing to make non-blocking.
const nonblockFlags = 0

func clearNonblock(*os.File) error { return nil }

func openBeneath(dir, name string) (*os.File, error) { return openInRoot(dir, name) }
