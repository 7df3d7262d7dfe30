//go:build unix && !linux && !darwin

package spill

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// processStart only tells whether pid exists on the BSDs and other Unix
// systems dispatch is not released for: the start time is always 0, so a
// reused pid looks alive and its directory is kept, never wrongly deleted.
func processStart(pid int) (uint64, error) {
	err := unix.Kill(pid, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return 0, fmt.Errorf("read process start time: %w", fs.ErrNotExist)
	case err != nil && !errors.Is(err, unix.EPERM):
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	return 0, nil
}
