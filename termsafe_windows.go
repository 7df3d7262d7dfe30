package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// isCygwinPty reports whether f is a pipe that Cygwin or MSYS2 (Git
// Bash's mintty) uses as a terminal (see isCygwinPtyName).
func isCygwinPty(f *os.File) bool {
	h := windows.Handle(f.Fd())
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_PIPE {
		return false
	}
	// FILE_NAME_INFO: the name's length in bytes, then the name.
	var info struct {
		Length uint32
		Name   [windows.MAX_PATH]uint16
	}
	if err := windows.GetFileInformationByHandleEx(h, windows.FileNameInfo, (*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return false
	}
	n := min(int(info.Length)/2, len(info.Name))
	return isCygwinPtyName(windows.UTF16ToString(info.Name[:n]))
}
