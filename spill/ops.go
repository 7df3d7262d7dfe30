package spill

import (
	"fmt"
	"os"

	"dispatch/safefile"
)

// The package-level operations open the file at path (any path: callers
// that confine reads open with (*Store).Open and call the Limits methods)
// and use the default Limits; call the methods of a Limits value to
// override bounds.

// Stat describes the file at path with the default Limits.
func Stat(path string) (*StatInfo, error) {
	return withFile("stat", path, func(f *os.File) (*StatInfo, error) { return Limits{}.Stat(f) })
}

// Head returns the first n lines of the file with the default Limits.
func Head(path string, n int) (*LinesResult, error) {
	return withFile("head", path, func(f *os.File) (*LinesResult, error) { return Limits{}.Head(f, n) })
}

// Tail returns the last n lines of the file with the default Limits.
func Tail(path string, n int) (*LinesResult, error) {
	return withFile("tail", path, func(f *os.File) (*LinesResult, error) { return Limits{}.Tail(f, n) })
}

// Slice returns lines from..to (1-based, inclusive) with the default Limits.
func Slice(path string, from, to int64) (*LinesResult, error) {
	return withFile("slice", path, func(f *os.File) (*LinesResult, error) { return Limits{}.Slice(f, from, to) })
}

// Grep searches the file with the default Limits.
func Grep(path string, opts GrepOptions) (*GrepResult, error) {
	return withFile("grep", path, func(f *os.File) (*GrepResult, error) { return Limits{}.Grep(f, opts) })
}

// Read returns bytes from offset with the default Limits.
func Read(path string, offset, maxBytes int64) (*ReadResult, error) {
	return withFile("read", path, func(f *os.File) (*ReadResult, error) { return Limits{}.Read(f, offset, maxBytes) })
}

// Query runs a gjson path over a JSON file with the default Limits.
func Query(path, gjsonPath string) (*QueryResult, error) {
	return withFile("query", path, func(f *os.File) (*QueryResult, error) { return Limits{}.Query(f, gjsonPath) })
}

// withFile opens path with safefile.Open (so a FIFO or device is refused
// without blocking) and runs op on the opened file.
func withFile[T any](op, path string, fn func(f *os.File) (T, error)) (T, error) {
	var zero T
	f, err := safefile.Open(path)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	defer f.Close()
	return fn(f)
}
