package spill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"dispatch/internal/winacl"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess gives a running process
// (STATUS_PENDING).
const stillActive = 259

// processStart returns the creation time of pid in 100 ns intervals since
// 1601, which Windows keeps for every process. The error wraps
// fs.ErrNotExist when no process has pid, or it has exited (a handle some
// other process holds keeps an exited process's record alive).
func processStart(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return 0, fmt.Errorf("read process start time of pid %d: %w", pid, fs.ErrNotExist)
	}
	if err != nil {
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err == nil && code != stillActive {
		return 0, fmt.Errorf("read process start time of pid %d: exited: %w", pid, fs.ErrNotExist)
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, fmt.Errorf("read process start time: %w", err)
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// ownedDir reports whether path is a directory, not a reparse point (a
// symlink or junction), whose owner is the current user.
func ownedDir(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() || isReparsePoint(fi) {
		return false
	}
	h, err := openNoReparse(path, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	return ownedByMe(h)
}

// readMarker reads a marker file without following a reparse point and
// only if it is a small regular file owned by the current user.
func readMarker(path string) ([]byte, error) {
	h, err := openNoReparse(path, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(h), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || isReparsePoint(fi) || !ownedByMe(h) {
		return nil, errors.New("owner marker is not a regular file of the current user")
	}
	return io.ReadAll(io.LimitReader(f, maxMarkerBytes))
}

// openNoReparse opens path for reading its data and security descriptor;
// a reparse point at the last component is opened itself, not followed.
func openNoReparse(path string, flags uint32) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	return windows.CreateFile(p, windows.GENERIC_READ|windows.READ_CONTROL,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|flags, 0)
}

// isReparsePoint reports whether fi (from Lstat or Stat of an open
// handle) is a symlink, a junction or any other reparse point.
func isReparsePoint(fi os.FileInfo) bool {
	if fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return true
	}
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	return ok && d.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0
}

// ownedByMe reports whether the object h is owned by the current user:
// the user's own SID, or the default owner of its token (Administrators,
// for an elevated process).
func ownedByMe(h windows.Handle) bool {
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return false
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return false
	}
	for _, sid := range currentUserSIDs() {
		if owner.Equals(sid) {
			return true
		}
	}
	return false
}

// currentUserSIDs returns the SIDs that own what this process creates.
func currentUserSIDs() []*windows.SID { return winacl.CurrentUserSIDs() }
