//go:build unix

package spill

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// withMapped maps the regular file f read-only and runs fn on its
// bytes, turning a fault on the mapping (the file was truncated while
// mapped, which raises SIGBUS) into an error instead of a crash. fn must
// copy out anything it keeps: the mapping goes when it returns.
func withMapped(op string, f *os.File, fn func(data []byte) error) error {
	path := f.Name()
	size, err := jsonFileSize(op, f)
	if err != nil {
		return err
	}
	if int64(int(size)) != size {
		return fmt.Errorf("%s: %s is too large to map (%s)", op, path, humanBytes(size))
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("%s: map %s: %w", op, path, err)
	}
	ferr := guardFault(op, path, func() error { return fn(data) })
	if err := syscall.Munmap(data); err != nil {
		return errors.Join(ferr, fmt.Errorf("%s: unmap %s: %w", op, path, err))
	}
	return ferr
}
