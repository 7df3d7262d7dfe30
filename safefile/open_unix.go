//go:build unix && !linux

package safefile

import "os"

func openBeneath(dir, name string) (*os.File, error) { return openInRoot(dir, name) }
