package spill

// The package-level operations use the default Limits; call the methods
// of a Limits value to override bounds.

// Stat describes the file at path with the default Limits.
func Stat(path string) (*StatInfo, error) { return Limits{}.Stat(path) }

// Head returns the first n lines of the file with the default Limits.
func Head(path string, n int) (*LinesResult, error) { return Limits{}.Head(path, n) }

// Tail returns the last n lines of the file with the default Limits.
func Tail(path string, n int) (*LinesResult, error) { return Limits{}.Tail(path, n) }

// Slice returns lines from..to (1-based, inclusive) with the default Limits.
func Slice(path string, from, to int64) (*LinesResult, error) {
	return Limits{}.Slice(path, from, to)
}

// Grep searches the file with the default Limits.
func Grep(path string, opts GrepOptions) (*GrepResult, error) { return Limits{}.Grep(path, opts) }

// Read returns bytes from offset with the default Limits.
func Read(path string, offset, maxBytes int64) (*ReadResult, error) {
	return Limits{}.Read(path, offset, maxBytes)
}

// Query runs a gjson path over a JSON file with the default Limits.
func Query(path, gjsonPath string) (*QueryResult, error) { return Limits{}.Query(path, gjsonPath) }
