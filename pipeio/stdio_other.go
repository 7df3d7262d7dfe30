//go:build !unix

package pipeio

import (
	"io"
	"os"
)

// Stdio returns os.Stdin and os.Stdout: only unix has the non-blocking
// pipes of stdio_unix.go.
func Stdio() (in io.Reader, out io.Writer, restore func()) {
	return os.Stdin, os.Stdout, func() {}
}
