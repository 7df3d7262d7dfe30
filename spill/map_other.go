//go:build !unix

package spill

import "os"

// withMapped reads f into memory where there is no mmap: see withRead.
func withMapped(op string, f *os.File, fn func(data []byte) error) error {
	return withRead(op, f, MaxUnmappedQueryBytes, fn)
}
