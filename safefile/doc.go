// Package safefile opens files for reading so that what is read is the file
// that was checked: one open, then checks on the opened descriptor, never a
// check of a name followed by a second open of the same name.
//
// Every open is non-blocking, so a FIFO or a device named in place of a
// file cannot hang the caller in open(2); the descriptor is then checked
// with fstat and anything but a regular file is refused (ErrNotRegular).
// OpenIn also confines the open to a directory: on Linux with openat2(2)
// and RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS relative to the directory's
// descriptor, elsewhere (and on kernels without openat2) with os.Root's
// component-by-component openat walk, which refuses symlinks leaving the
// directory. A rename or symlink swap racing the open can change which file
// inside the directory is opened, never make it open one outside.
//
// Import rule: the standard library and golang.org/x/sys only. OS-specific
// code lives in files with build tags (_linux, _unix, _other).
package safefile
