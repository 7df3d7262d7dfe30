package safefile

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBeneath opens name below dir with openat2, which resolves the whole
// path in the kernel under RESOLVE_BENEATH: nothing can be swapped between
// a check and the open, because there is no separate check. Kernels
// before 5.6 (and sandboxes answering ENOSYS for openat2) fall back to the
// walk.
func openBeneath(dir, name string) (*os.File, error) {
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(dfd)
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | nonblockFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	for {
		fd, err = unix.Openat2(dfd, name, &how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	path := filepath.Join(dir, name)
	switch {
	case errors.Is(err, unix.ENOSYS):
		return openInRoot(dir, name)
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		// EXDEV: the path left dir; ELOOP: a magic link, or a symlink
		// loop, which cannot be followed safely either.
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.Join(ErrOutside, err)}
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
