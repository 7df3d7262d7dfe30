package connections

import (
	"bufio"
	"bytes"
	"errors"
)

// Block sizes of lineBlocks. A line that does not fit the reader's buffer
// is kept in blocks that are never copied while it is read, each at most
// maxLineBlock, so that the waste is at most one block; it is copied once,
// into a buffer of exactly its size, when it ends. Where the system allows
// (see newLineBlock), the blocks past the first offHeapFrom bytes live
// outside the Go heap and each is unmapped as soon as it is copied, so the
// peak of that copy is the line plus one block, not twice the line.
const (
	minLineBlock = 64 << 10
	maxLineBlock = 4 << 20
	// offHeapFrom is how much of a line is held before its blocks come
	// from newLineBlock: fresh pages cost a fault each, which only pays
	// for lines large enough that twice their size matters, while smaller
	// ones reuse warm heap memory.
	offHeapFrom = 1 << 20
)

// readLine returns the next line without its newline. A line longer than
// max is not read to its end: as soon as it crosses max, readLine returns
// its first bytes (so the request it answers can still be found), tooLong
// (how much of it was read, more than max) and errLineGoesOn when the rest
// is still to come, which skipLine then consumes. A line that ended within
// the read that crossed max is returned with tooLong its whole length.
//
// A line that fits r's buffer costs one allocation of its size. A longer
// one is not grown by appending (which copies it again at every growth and
// leaves several times its size to the garbage collector): it is gathered
// in blocks and joined once, so the peak is its size plus one block (twice
// its size, briefly, where blocks come from the heap).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong int, err error) {
	chunk, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		if len(chunk) > max {
			return bytes.Clone(chunk[:min(len(chunk), 4096)]), len(chunk), err
		}
		return bytes.TrimRight(bytes.Clone(chunk), "\r\n"), 0, err
	}
	var blocks lineBlocks
	for {
		if blocks.size+len(chunk) > max {
			tooLong = blocks.size + len(chunk)
			line = blocks.head(4096)
			line = append(line, chunk[:min(len(chunk), 4096-len(line))]...)
			blocks.free()
			if err == bufio.ErrBufferFull {
				err = errLineGoesOn
			}
			return line, tooLong, err
		}
		blocks.write(chunk)
		if err != bufio.ErrBufferFull {
			break
		}
		chunk, err = r.ReadSlice('\n')
	}
	return bytes.TrimRight(blocks.join(), "\r\n"), 0, err
}

// errLineGoesOn says readLine returned the head of a line over the limit
// whose rest is still to be read (by skipLine).
var errLineGoesOn = errors.New("line goes on past the limit")

// errEndlessLine says skipLine gave up on a line that went on past its
// bound without ending.
var errEndlessLine = errors.New("line goes on without end")

// skipLine discards the rest of a line, up to and including its newline,
// and returns how many bytes it discarded. Past bound bytes it stops with
// errEndlessLine: a line that does not end is not read for ever.
func skipLine(r *bufio.Reader, bound int) (int, error) {
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if err != bufio.ErrBufferFull {
			return n, err
		}
		if n > bound {
			return n, errEndlessLine
		}
	}
}

// lineBlocks gathers a long line without moving what it already holds.
// Its blocks may be outside the Go heap, so no slice of them is handed out:
// head and join copy, and join or free gives them back.
type lineBlocks struct {
	blocks []lineBlock
	size   int
}

// lineBlock is one block of a long line; mapped says it came from
// newLineBlock and must be given back with freeLineBlock.
type lineBlock struct {
	buf    []byte
	mapped bool
}

func (b *lineBlocks) write(p []byte) {
	for len(p) > 0 {
		if n := len(b.blocks); n == 0 || len(b.blocks[n-1].buf) == cap(b.blocks[n-1].buf) {
			// Each new block is a quarter of what is held so far, within
			// bounds: few blocks for a large line, little waste for a
			// small one.
			size := min(max(b.size/4, minLineBlock), maxLineBlock)
			var buf []byte
			mapped := false
			if b.size >= offHeapFrom {
				buf, mapped = newLineBlock(size)
			}
			if !mapped {
				buf = make([]byte, 0, size)
			}
			b.blocks = append(b.blocks, lineBlock{buf: buf, mapped: mapped})
		}
		last := &b.blocks[len(b.blocks)-1].buf
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		b.size += k
		p = p[k:]
	}
}

// head copies the first n bytes held, or all if fewer.
func (b *lineBlocks) head(n int) []byte {
	out := make([]byte, 0, n)
	for _, blk := range b.blocks {
		if len(out) == n {
			break
		}
		out = append(out, blk.buf[:min(len(blk.buf), n-len(out))]...)
	}
	return out
}

// join copies the blocks into one buffer of exactly their size, giving
// each back as soon as it is copied.
func (b *lineBlocks) join() []byte {
	out := make([]byte, 0, b.size)
	for i := range b.blocks {
		out = append(out, b.blocks[i].buf...)
		b.blocks[i].release()
	}
	b.blocks, b.size = nil, 0
	return out
}

// free gives every block back without copying it.
func (b *lineBlocks) free() {
	for i := range b.blocks {
		b.blocks[i].release()
	}
	b.blocks, b.size = nil, 0
}

// release gives the block back: unmapped at once if it is off the heap,
// left to the collector otherwise.
func (blk *lineBlock) release() {
	if blk.mapped {
		freeLineBlock(blk.buf)
	}
	*blk = lineBlock{}
}
