package spill

import (
	"fmt"
	"io"
	"os"
)

// MaxUnmappedQueryBytes bounds the file query and select read into memory
// where files are not mapped (Windows): the most a private store may hold
// by default (DefaultMaxBytes, 1 GiB). A larger file is refused with an
// error saying to use grep or read, never read in part.
const MaxUnmappedQueryBytes = DefaultMaxBytes

// withRead is withMapped for platforms without mmap: it reads the regular
// file f into memory, at most limit bytes, and runs fn on them. A file
// that grows past its size while being read is refused, as a mapped one
// that shrinks is: the bytes would not be one version of the file.
func withRead(op string, f *os.File, limit int64, fn func(data []byte) error) error {
	path := f.Name()
	size, err := jsonFileSize(op, f)
	if err != nil {
		return err
	}
	if size > limit {
		return tooLarge("%s: %s is %s, more than the %s %s reads into memory on this platform; use grep or read instead",
			op, path, humanBytes(size), humanBytes(limit), op)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return fmt.Errorf("%s: %s changed while being read: %w", op, path, err)
	}
	var extra [1]byte
	if n, _ := f.Read(extra[:]); n > 0 {
		return fmt.Errorf("%s: %s changed while being read: it grew past %s", op, path, humanBytes(size))
	}
	return fn(data)
}

// jsonFileSize is the size of the regular file f, which must hold JSON and
// so cannot be empty: what withMapped and withRead check before they take
// the bytes.
func jsonFileSize(op string, f *os.File) (int64, error) {
	fi, err := regularInfo(op, f)
	if err != nil {
		return 0, err
	}
	if fi.Size() == 0 {
		return 0, badRequest("%s: %s is empty, not JSON", op, f.Name())
	}
	return fi.Size(), nil
}
