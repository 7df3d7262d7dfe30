//go:build !unix

package connections

import "os"

// newServerOutPipe returns a pipe for a server's stdout: r, dispatch's
// end, for newServerOutput; w for the child.
func newServerOutPipe() (r, w *os.File, err error) { return os.Pipe() }

// newServerOutput returns the reader of f, newServerOutPipe's r: f
// itself; only unix has cheaper reads (see pipereader_unix.go and
// pipereader_linux.go).
func newServerOutput(f *os.File) (serverOutput, error) {
	return fileOutput{Reader: f, f: f}, nil
}
