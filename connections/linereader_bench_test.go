package connections

import (
	"bufio"
	"bytes"
	"testing"
)

// BenchmarkReadLine reads one 20 MiB line with readLine and, as the
// baseline in the same run, by appending chunks to a slice (the reader it
// replaced). allocB/payloadB is what each allocates per byte of the line.
func BenchmarkReadLine(b *testing.B) {
	const size = 20 << 20
	line := append(bytes.Repeat([]byte("x"), size), '\n')
	for _, c := range []struct {
		name string
		read func(r *bufio.Reader) int
	}{
		{"blocks", func(r *bufio.Reader) int { l, _, _ := readLine(r, 1<<30); return len(l) }},
		{"append", func(r *bufio.Reader) int {
			var l []byte
			for {
				chunk, err := r.ReadSlice('\n')
				l = append(l, chunk...)
				if err != bufio.ErrBufferFull {
					return len(l)
				}
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				if n := c.read(bufio.NewReaderSize(bytes.NewReader(line), 64<<10)); n < size {
					b.Fatalf("read %d bytes", n)
				}
			}
		})
	}
}
