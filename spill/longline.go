package spill

import (
	"bufio"
	"bytes"
	"io"
)

// longFilter decides whether a line too long for the buffer can match
// while the line streams past, at the speed of bytes.Contains: the
// regexp's rune-by-rune reader ran at about 10 MB/s, so one 1 GiB line
// cost 100 s of CPU. For a pattern of ASCII literals (foldLiterals) its
// answer is exact; for one that only requires a literal (prefilter), a
// line without it cannot match, and only a line with it is read again and
// matched by the regexp.
type longFilter struct {
	lits         [][]byte // lower case
	exact        bool     // a line holding one of lits matches
	unicodeFolds bool     // with exact: non-ASCII text needs the regexp
	longest      int

	lower    []byte // carry + the piece being searched, lowered
	carry    []byte // the last longest-1 lowered bytes of the line so far
	found    bool
	nonASCII bool
}

// newLongFilter returns the filter for re's matcher m, or nil when the
// pattern has no literal a match must contain.
func newLongFilter(m lineMatcher, expr string) *longFilter {
	f := &longFilter{}
	switch {
	case isFoldLiterals(m):
		fl := m.(*foldLiterals)
		f.lits, f.exact, f.unicodeFolds = fl.lits, true, fl.unicodeFolds
	default:
		p := newPrefilter(expr)
		if p == nil {
			return nil
		}
		f.lits = [][]byte{p.lit}
	}
	for _, l := range f.lits {
		f.longest = max(f.longest, len(l))
	}
	return f
}

func isFoldLiterals(m lineMatcher) bool { _, ok := m.(*foldLiterals); return ok }

func (f *longFilter) reset() {
	f.carry, f.found, f.nonASCII = f.carry[:0], false, false
}

// feed searches the next piece of the line, joined to the end of the
// previous one so a literal split between pieces is found.
func (f *longFilter) feed(piece []byte) {
	if f.found {
		return
	}
	f.lower = append(f.lower[:0], f.carry...)
	var ascii bool
	f.lower, ascii = lowerASCII(f.lower, piece)
	f.nonASCII = f.nonASCII || !ascii
	for _, lit := range f.lits {
		if bytes.Contains(f.lower, lit) {
			f.found = true
			return
		}
	}
	keep := min(len(f.lower), f.longest-1)
	f.carry = append(f.carry[:0], f.lower[len(f.lower)-keep:]...)
}

// verdict is whether the line matches, if the filter knows.
func (f *longFilter) verdict() (match, known bool) {
	switch {
	case f.found && f.exact:
		return true, true
	case f.found:
		return false, false
	case f.exact && f.unicodeFolds && f.nonASCII:
		return false, false // (?i)k matches U+212A, which lowerASCII leaves
	}
	return false, true
}

// matchLong matches the current line, which is too long for the buffer
// and whose first piece is first, and consumes the rest of it. With a
// filter and a way to read the line again it streams the line through
// the filter and falls back to the regexp only when the filter cannot
// tell; else the regexp reads the line as it streams.
func (lr *lineReader) matchLong(first []byte) bool {
	lr.long.reset(first)
	if lr.quick == nil || lr.reread == nil {
		match := lr.re.MatchReader(&lr.long)
		lr.long.drain()
		return match
	}
	start := lr.start
	lr.quick.reset()
	lr.quick.feed(lr.long.buf)
	lr.long.drainWith(lr.quick.feed)
	if match, known := lr.quick.verdict(); known || lr.long.err != nil {
		return match
	}
	// What the streaming regexp saw: the line up to its "\n".
	return lr.re.MatchReader(bufio.NewReaderSize(lr.reread(start, lr.n), readBufSize))
}

// drainWith consumes what is left of the line, passing each piece to fn.
func (l *longLine) drainWith(fn func([]byte)) {
	for !l.done {
		l.pos = len(l.buf)
		l.fill()
		fn(l.buf)
	}
}

// rereader reads n bytes of a file from off again.
type rereader func(off, n int64) io.Reader
