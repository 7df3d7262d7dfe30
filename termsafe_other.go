//go:build !windows

package main

import "os"

// isCygwinPty is false: Cygwin's pty pipes exist only on Windows.
func isCygwinPty(*os.File) bool { return false }
