package spill

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// processStart returns the start time of pid in microseconds since the
// epoch, from the kernel's process table (macOS has no /proc). The error
// wraps fs.ErrNotExist when the process does not exist.
func processStart(pid int) (uint64, error) {
	// The slice form, because for a pid no process has the kernel answers
	// with no record at all, which the single-record form reports as EIO.
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pid", pid)
	if err != nil {
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	if len(kps) == 0 || int(kps[0].Proc.P_pid) != pid {
		return 0, fmt.Errorf("read process start time of pid %d: %w", pid, fs.ErrNotExist)
	}
	tv := kps[0].Proc.P_starttime
	return uint64(tv.Sec)*1_000_000 + uint64(tv.Usec), nil
}
