package dispatch

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openedFilePath is where the kernel says f is, whatever name it was
// opened by: a link swapped after the checks shows here.
// Without /proc mounted there is nothing to read there either.
func openedFilePath(f *os.File) string {
	where, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return ""
	}
	return where
}

// kernelFS reports whether f is on procfs or sysfs, wherever mounted.
func kernelFS(f *os.File) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	return st.Type == unix.PROC_SUPER_MAGIC || st.Type == unix.SYSFS_MAGIC
}
