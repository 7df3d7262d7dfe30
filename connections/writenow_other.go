//go:build !unix

package connections

import "os"

// writeNow reports that nothing could be written without waiting: here
// a pipe offers no write that returns instead of waiting, so every call
// is written by a goroutine that may wait (the caller's slow path), never
// by the agent's reader, which must never wait on a server.
func writeNow(*os.File, []byte) (int, error) { return 0, errWouldBlock }
