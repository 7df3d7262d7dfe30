//go:build !unix

package pipeio

import (
	"io"
	"os"
)

// NewReader and NewWriter return f: only unix has the cheaper reads and
// writes (see pipe_unix.go).
func NewReader(f *os.File) io.Reader { return f }

func NewWriter(f *os.File) io.Writer { return f }

// WriteNow reports that nothing could be written without waiting: here a
// pipe offers no write that returns instead of waiting, so every write is
// made by a goroutine that may wait.
func WriteNow(*os.File, []byte) (int, error) { return 0, ErrWouldBlock }
