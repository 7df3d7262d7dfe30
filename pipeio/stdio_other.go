//go:build !linux

package pipeio

import (
	"io"
	"os"
)

// Stdio returns os.Stdin and os.Stdout: only Linux has the descriptions
// of a pipe of dispatch's own (/proc/self/fd) and the raw system calls
// that make the non-blocking stdio of stdio_linux.go worth having.
func Stdio() (in io.Reader, out io.Writer, restore func()) {
	return os.Stdin, os.Stdout, func() {}
}
