//go:build unix

package connections

import "golang.org/x/sys/unix"

// newLineBlock returns an empty block of capacity n outside the Go heap,
// mapped from the operating system, so that freeLineBlock gives it back at
// once: a long line's blocks can then be released one by one while they
// are joined, instead of all staying resident until a collection. ok is
// false when the mapping failed; the caller then uses the heap.
func newLineBlock(n int) (block []byte, ok bool) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return b[:0], true
}

// freeLineBlock unmaps a block from newLineBlock; nothing may use it after.
func freeLineBlock(block []byte) {
	// Unmapping memory this process mapped, whole, cannot fail in a way
	// anyone could act on; a failure leaves it mapped, as the heap would.
	unix.Munmap(block[:cap(block)]) //nolint:errcheck // see above
}
