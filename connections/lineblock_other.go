//go:build !unix

package connections

// newLineBlock reports that this system has no off-heap blocks: a long
// line's blocks come from the Go heap, and its peak while it is joined is
// about twice its size until the next collection.
func newLineBlock(int) ([]byte, bool) { return nil, false }

// freeLineBlock is never called here: no block is off the heap.
func freeLineBlock([]byte) {}
