package spill

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// skipToCandidate discards the whole lines ahead that p rules out,
// counting them with bytes.Count instead of reading them one by one, and
// stops before the first line that may match, a line too long for the
// buffer, or a last line without "\n" — all left to next. When ring is
// set, the last lines skipped go into it, as next would have put them, to
// be shown as context before the following match.
func (lr *lineReader) skipToCandidate(p *prefilter, ring *lineRing) {
	for lr.err == nil {
		// Search what is buffered first: filling the buffer moves its
		// unread bytes to the front and reads, which per match would cost
		// more than the search.
		data, err := lr.r.Peek(lr.r.Buffered())
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			data, err = lr.r.Peek(readBufSize)
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				lr.err = err
				return
			}
			if last = bytes.LastIndexByte(data, '\n'); last < 0 {
				return
			}
		}
		lines := data[:last+1]
		skip := len(lines)
		if i := p.next(lines, lr.off); i >= 0 {
			skip = bytes.LastIndexByte(lines[:i], '\n') + 1
		}
		if skip == 0 {
			return
		}
		if ring != nil {
			ring.pushLines(lines[:skip], lr.num, lr.off, lr.keep)
		}
		lr.num += int64(bytes.Count(lines[:skip], []byte{'\n'}))
		lr.off += int64(skip)
		if _, err := lr.r.Discard(skip); err != nil {
			lr.err = err // cannot happen: skip bytes are buffered
			return
		}
		if skip < len(lines) || err != nil {
			return
		}
	}
}

// pushLines pushes the last lines of lines (whole lines, each ending in
// "\n", the first numbered num+1 and starting at file offset off) that the
// ring can hold, kept to keep bytes as lineReader keeps them.
func (r *lineRing) pushLines(lines []byte, num, off int64, keep int) {
	if len(r.slots) == 0 || len(lines) == 0 {
		return
	}
	// Walk back over at most len(r.slots) lines to the first one to push.
	start, count := len(lines), 0
	for count < len(r.slots) && start > 0 {
		start = bytes.LastIndexByte(lines[:start-1], '\n') + 1
		count++
	}
	number := num + int64(bytes.Count(lines[:start], []byte{'\n'}))
	for start < len(lines) {
		end := start + bytes.IndexByte(lines[start:], '\n')
		number++
		r.pushText(number, off+int64(start), lines[start:end], keep)
		start = end + 1
	}
}

// pushText pushes one line, given without its "\n" (which it had).
func (r *lineRing) pushText(number, offset int64, content []byte, keep int) {
	cr := false
	if n := len(content); n > 0 && content[n-1] == '\r' {
		content, cr = content[:n-1], true
	}
	kept := content[:min(len(content), keep+1)]
	if len(kept) > keep {
		kept = kept[:runeCut(kept, keep)]
	}
	s := r.slot()
	s.number, s.offset, s.cut = number, offset, int64(len(content)-len(kept))
	s.text = append(s.text[:0], kept...)
	s.end = lineEnd(cr, true)
}
