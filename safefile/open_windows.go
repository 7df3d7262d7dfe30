package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows opens never block on a pipe or device name (those are refused by
// name below), so there is nothing to make non-blocking.
const nonblockFlags = 0

func clearNonblock(*os.File) error { return nil }

// openBeneath opens name below dir by Windows means. The name must pass
// windowsLocalName (no drive, UNC, \\?\ or device forms, no "..", no
// alternate data streams, no reserved device names). os.Root then walks
// the path a component at a time relative to the directory's handle,
// following links that stay inside as on Unix. The opened handle itself
// is checked afterwards, so no rename racing the walk can get past: it
// must not be a reparse point, must be a disk file, and its final path
// must lie below the directory's final path — a junction or symlink
// anywhere along the way that led out shows there.
func openBeneath(dir, name string) (*os.File, error) {
	path := filepath.Join(dir, name)
	if err := windowsLocalName(name); err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %v", ErrOutside, err)}
	}
	dirFinal, err := finalPathOf(dir)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f, err := openInRoot(dir, name)
	if err != nil {
		return nil, err
	}
	if err := checkBeneath(f, dirFinal); err != nil {
		return nil, errors.Join(&os.PathError{Op: "open", Path: path, Err: err}, f.Close())
	}
	return f, nil
}

// checkBeneath checks the opened f, not its name.
func checkBeneath(f *os.File, dirFinal string) error {
	h := windows.Handle(f.Fd())
	var tag struct{ FileAttributes, ReparseTag uint32 } // FILE_ATTRIBUTE_TAG_INFO
	if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo,
		(*byte)(unsafe.Pointer(&tag)), uint32(unsafe.Sizeof(tag))); err != nil {
		return fmt.Errorf("read file attributes: %w", err)
	}
	if tag.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return fmt.Errorf("%w: a reparse point (symlink or junction)", ErrOutside)
	}
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_DISK {
		return ErrNotRegular
	}
	final, err := finalPath(h)
	if err != nil {
		return err
	}
	if !finalPathWithin(dirFinal, final) {
		return fmt.Errorf("%w: it resolves to %s", ErrOutside, final)
	}
	return nil
}

// finalPathOf returns the final path of the directory dir.
func finalPathOf(dir string) (string, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return "", err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h) //nolint:errcheck // a handle we opened
	return finalPath(h)
}

// Flags of GetFinalPathNameByHandle, which x/sys/windows does not name.
const (
	fileNameNormalized = 0x0
	volumeNameDOS      = 0x0
)

// finalPath is GetFinalPathNameByHandle: the path Windows resolved for h,
// every link followed, in the \\?\C:\... form.
func finalPath(h windows.Handle) (string, error) {
	buf := make([]uint16, windows.MAX_PATH)
	for {
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), fileNameNormalized|volumeNameDOS)
		if err != nil {
			return "", fmt.Errorf("resolve final path: %w", err)
		}
		if int(n) < len(buf) {
			return windows.UTF16ToString(buf[:n]), nil
		}
		if n > windows.MAX_LONG_PATH {
			return "", fmt.Errorf("resolve final path: %d characters, more than %d", n, windows.MAX_LONG_PATH)
		}
		buf = make([]uint16, n)
	}
}
