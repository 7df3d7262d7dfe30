package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

var (
	// ErrNotRegular is returned for a path that names a FIFO, a device, a
	// socket or a directory: something that may block or never end.
	ErrNotRegular = errors.New("not a regular file")

	// ErrOutside is returned by OpenIn when the name leads out of the
	// directory: "..", an absolute symlink, a symlink out, a magic link
	// such as /proc/self/fd/N.
	ErrOutside = errors.New("leads outside the directory")
)

// Open opens path for reading, following symlinks wherever they go: for a
// person at a shell, who may read any file. It still refuses anything but
// a regular file, without blocking on a FIFO.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblockFlags, 0)
	if err != nil {
		return nil, err
	}
	return finish(f)
}

// OpenIn opens name, relative to dir, for reading, refusing (ErrOutside)
// any path that resolves outside dir at the moment of the open. Symlinks
// that stay inside dir are followed. The returned file's Name is dir
// joined with name.
func OpenIn(dir, name string) (*os.File, error) {
	return openIn(dir, name, openBeneath)
}

// openIn is OpenIn with the confined open given, so that tests can hold
// each implementation to the same rule.
func openIn(dir, name string, open func(dir, name string) (*os.File, error)) (*os.File, error) {
	if filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, name), Err: ErrOutside}
	}
	f, err := open(dir, name)
	if err != nil {
		return nil, err
	}
	return finish(f)
}

// openInRoot is the portable OpenIn: os.Root walks the path one component
// at a time with openat and O_NOFOLLOW, resolving symlinks itself and
// refusing those that leave the root.
func openInRoot(dir, name string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open directory: %w", err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|nonblockFlags, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil, err
		}
		// os.Root's "path escapes from parent" is not exported; any other
		// failure to resolve inside the root is treated as leaving it.
		return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, name), Err: errors.Join(ErrOutside, err)}
	}
	return f, nil
}

// finish refuses an opened f that is not a regular file and makes it
// blocking again: O_NONBLOCK only had to cover the open itself.
func finish(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.Join(&os.PathError{Op: "open", Path: f.Name(), Err: ErrNotRegular}, f.Close())
	}
	if err := clearNonblock(f); err != nil {
		return nil, errors.Join(fmt.Errorf("open %s: %w", f.Name(), err), f.Close())
	}
	return f, nil
}
