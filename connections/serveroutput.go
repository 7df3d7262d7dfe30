package connections

import (
	"io"
	"os"
)

// serverOutput reads a stdio server's stdout (newServerOutput). Close
// ends a Read under way, and every later one: a grandchild may hold the
// pipe open long after the server exited. release is for the reading
// goroutine, once it reads no more.
type serverOutput interface {
	io.Reader
	Close() error
	release()
}

// fileOutput is a serverOutput whose Read waits in Go's poller, which
// closing the file ends.
type fileOutput struct {
	io.Reader
	f *os.File
}

func (o fileOutput) Close() error { return o.f.Close() }
func (fileOutput) release()       {}
