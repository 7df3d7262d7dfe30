package spill

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"dispatch/safefile"
)

// readBufSize is the buffer of every streaming reader: lines up to this
// length are handled in one piece; longer ones are streamed.
const readBufSize = 64 << 10

// regularInfo describes the opened f, refusing anything but a regular
// file (a FIFO or device could block or never end). Files are opened with
// safefile, which refuses them already; this keeps the readers safe with a
// file from anywhere else.
func regularInfo(op string, f *os.File) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s: %w", op, f.Name(), safefile.ErrNotRegular)
	}
	return fi, nil
}

// fromStart reads f from its first byte, wherever its offset is.
func fromStart(f *os.File) io.Reader { return io.NewSectionReader(f, 0, math.MaxInt64) }

// lineReader reads lines one at a time, keeping at most keep bytes of each
// (cut on a rune boundary) so memory stays flat whatever the line length.
// A trailing "\r" (CRLF files) is not part of a line. With re set, each
// line is matched against it in full, streaming the lines too long for the
// buffer through regexp's RuneReader interface.
type lineReader struct {
	r    *bufio.Reader
	keep int
	re   lineMatcher

	num int64 // number of the current line (1-based)
	off int64 // offset of the next line

	// The current line.
	start int64  // offset of its first byte
	n     int64  // its length, without "\n" (and, once finished, "\r")
	buf   []byte // its first keep+1 bytes
	last  byte   // its last byte before "\n"
	nl    bool   // it ended with "\n" (the file's last line may not)
	cr    bool   // finish dropped its trailing "\r"
	match bool   // whether re matches it

	long longLine
	err  error

	// quick and reread, when set (Grep), match long lines fast.
	quick  *longFilter
	reread rereader
}

func newLineReader(r io.Reader, keep int, re lineMatcher, startOffset int64) *lineReader {
	lr := &lineReader{r: bufio.NewReaderSize(r, readBufSize), keep: keep, re: re, off: startOffset}
	lr.long.lr = lr
	return lr
}

// next reads the next line; false at the end of input or on error (see Err).
func (lr *lineReader) next() bool {
	if lr.err != nil {
		return false
	}
	lr.start, lr.n, lr.buf, lr.last, lr.nl, lr.cr, lr.match = lr.off, 0, lr.buf[:0], 0, false, false, false
	chunk, err := lr.r.ReadSlice('\n')
	switch {
	case err == nil || (err == io.EOF && len(chunk) > 0):
		nl := err == nil
		lr.account(chunk, nl)
		if lr.re != nil {
			content := chunk
			if nl {
				content = content[:len(content)-1]
			}
			if len(content) > 0 && content[len(content)-1] == '\r' {
				content = content[:len(content)-1]
			}
			lr.match = lr.re.Match(content)
		}
	case err == io.EOF:
		return false
	case errors.Is(err, bufio.ErrBufferFull):
		lr.account(chunk, false)
		if lr.re != nil {
			lr.match = lr.matchLong(chunk)
		} else {
			lr.long.reset(chunk)
			lr.long.drain()
		}
		if lr.long.err != nil {
			lr.err = lr.long.err
			return false
		}
	default:
		lr.err = err
		return false
	}
	lr.num++
	lr.finish()
	return true
}

// account counts a piece of the current line and keeps its first bytes.
func (lr *lineReader) account(chunk []byte, nl bool) {
	lr.off += int64(len(chunk))
	if nl {
		lr.nl = true
		chunk = chunk[:len(chunk)-1]
	}
	if len(chunk) == 0 {
		return
	}
	lr.n += int64(len(chunk))
	lr.last = chunk[len(chunk)-1]
	if room := lr.keep + 1 - len(lr.buf); room > 0 {
		lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
	}
}

// finish drops a trailing "\r" and cuts the kept bytes to keep.
func (lr *lineReader) finish() {
	if lr.last == '\r' {
		lr.cr = true
		lr.n--
		if int64(len(lr.buf)) > lr.n {
			lr.buf = lr.buf[:lr.n]
		}
	}
	if len(lr.buf) > lr.keep {
		lr.buf = lr.buf[:runeCut(lr.buf, lr.keep)]
	}
}

// line returns the current line as a Line.
func (lr *lineReader) line() Line {
	return Line{
		Number: lr.num,
		Offset: lr.start,
		Text:   string(lr.buf),
		Cut:    lr.n - int64(len(lr.buf)),
		End:    lineEnd(lr.cr, lr.nl),
		Match:  lr.match,
	}
}

// lineEnd is what ended a line: its dropped "\r" and its "\n", either of
// which a file's last line may lack.
func lineEnd(cr, nl bool) string {
	switch {
	case cr && nl:
		return "\r\n"
	case nl:
		return "\n"
	case cr:
		return "\r"
	}
	return ""
}

// skip consumes the next line without keeping or matching it.
func (lr *lineReader) skip() bool {
	if lr.err != nil {
		return false
	}
	got := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.off += int64(len(chunk))
		got = got || len(chunk) > 0
		switch {
		case err == nil:
			lr.num++
			return true
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if got {
				lr.num++
			}
			return got
		default:
			lr.err = err
			return false
		}
	}
}

// Err returns the first read error, if any.
func (lr *lineReader) Err() error { return lr.err }

// longLine streams the rest of a line too long for the buffer as runes, for
// regexp.MatchReader, accounting every byte through its lineReader. It ends
// at the line's "\n" (not included) or the end of input.
type longLine struct {
	lr   *lineReader
	buf  []byte // current piece, copied (ReadSlice's data is short-lived)
	pos  int
	done bool
	err  error
}

func (l *longLine) reset(first []byte) {
	l.buf = append(l.buf[:0], first...)
	l.pos, l.done, l.err = 0, false, nil
}

// fill appends the next piece of the line to the unread bytes.
func (l *longLine) fill() {
	chunk, err := l.lr.r.ReadSlice('\n')
	nl := err == nil
	l.lr.account(chunk, nl)
	if nl {
		chunk = chunk[:len(chunk)-1]
	}
	rest := copy(l.buf, l.buf[l.pos:])
	l.buf = append(l.buf[:rest], chunk...)
	l.pos = 0
	switch {
	case nl || err == io.EOF:
		l.done = true
	case errors.Is(err, bufio.ErrBufferFull):
	default:
		l.done, l.err = true, err
	}
}

// ReadRune implements io.RuneReader.
func (l *longLine) ReadRune() (rune, int, error) {
	for {
		rest := l.buf[l.pos:]
		if len(rest) > 0 && (l.done || utf8.FullRune(rest)) {
			r, size := utf8.DecodeRune(rest)
			l.pos += size
			return r, size, nil
		}
		if l.done {
			return 0, 0, io.EOF
		}
		l.fill()
	}
}

// drain consumes what is left of the line.
func (l *longLine) drain() {
	for !l.done {
		l.pos = len(l.buf)
		l.fill()
	}
}
