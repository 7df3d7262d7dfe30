package spill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Line is one line of a file as returned by Head, Tail, Slice and Grep.
type Line struct {
	Number int64  // 1-based line number; 0 when not known (Tail does not count)
	Offset int64  // byte offset of the line's first byte, for Read
	Text   string // the line without "\n" or "\r\n", at most MaxLineBytes
	End    string // what ends it in the file: "\n", "\r\n", or for a last line without "\n", "\r" or ""
	Cut    int64  // bytes left out at the end of Text; 0 when Text is whole
	Match  bool   // Grep: the line matches (false for context lines)
}

// render appends the agent-facing form of l: "<number><sep><text>", the text
// followed by "…[+N bytes]" when the line was cut.
func (l Line) render(dst []byte, sep byte) []byte {
	if l.Number > 0 {
		dst = strconv.AppendInt(dst, l.Number, 10)
		dst = append(dst, sep)
	}
	dst = append(dst, l.Text...)
	if l.Cut > 0 {
		dst = append(dst, cutMarker(l.Cut)...)
	}
	return append(dst, '\n')
}

// LinesResult is what Head, Tail and Slice return.
type LinesResult struct {
	Path       string
	Op         string // "head", "tail" or "slice"
	Lines      []Line
	TotalLines int64 // lines in the file; -1 when the operation did not count them
	More       bool  // lines follow the last one returned
	Truncated  bool  // a bound cut the output; Notes say which and how to go on
	Notes      []string
}

// Text returns the agent-facing form: one line per Line (numbered "12:"
// except for Tail), then the notes in brackets.
func (r *LinesResult) Text() string { return r.Body() + notesText(r.Notes) }

// Body is Text without the notes.
func (r *LinesResult) Body() string {
	var b []byte
	for _, l := range r.Lines {
		b = l.render(b, ':')
	}
	return string(b)
}

// String is Text.
func (r *LinesResult) String() string { return r.Text() }

func notesText(notes []string) string {
	var sb strings.Builder
	for _, n := range notes {
		sb.WriteString("[")
		sb.WriteString(n)
		sb.WriteString("]\n")
	}
	return sb.String()
}

// lineCollector gathers lines under the line, byte and line-length bounds.
type lineCollector struct {
	lim      Limits
	sep      byte
	lines    []Line
	bytes    int
	full     bool  // the byte bound stopped collection
	cuts     int   // lines cut at MaxLineBytes
	firstCut *Line // the first of them
	scratch  []byte
}

// add keeps l unless the byte bound is reached; it reports whether l was kept.
func (c *lineCollector) add(l Line) bool {
	c.scratch = l.render(c.scratch[:0], c.sep)
	if len(c.lines) > 0 && c.bytes+len(c.scratch) > c.lim.MaxOutputBytes {
		c.full = true
		return false
	}
	c.bytes += len(c.scratch)
	c.lines = append(c.lines, l)
	if l.Cut > 0 {
		c.cuts++
		if c.firstCut == nil {
			first := l
			c.firstCut = &first
		}
	}
	return true
}

// cutNote says which lines were cut and how to read them whole.
func (c *lineCollector) cutNote() (string, bool) {
	if c.cuts == 0 {
		return "", false
	}
	where := fmt.Sprintf("byte offset %d", c.firstCut.Offset)
	if c.firstCut.Number > 0 {
		where = fmt.Sprintf("line %d, byte offset %d", c.firstCut.Number, c.firstCut.Offset)
	}
	return fmt.Sprintf("%d line(s) longer than %s were cut where marked …[+N bytes]; read a whole line with read offset=<its byte offset> (the first is %s)",
		c.cuts, humanBytes(int64(c.lim.MaxLineBytes)), where), true
}

// Head returns the first n lines of the file f, at most MaxLines and
// MaxOutputBytes of them.
func (l Limits) Head(f *os.File, n int) (*LinesResult, error) {
	return l.lines("head", f, 1, int64(n), n < 1)
}

// Slice returns lines from..to of the file f (1-based, inclusive), at
// most MaxLines and MaxOutputBytes of them. from must be at least 1, to at
// least from; a from past the end of the file is an error saying how many
// lines the file has; a to past the end returns up to the last line.
func (l Limits) Slice(f *os.File, from, to int64) (*LinesResult, error) {
	switch {
	case from < 1:
		return nil, badRequest("slice: from must be at least 1 (lines are numbered from 1), got %d", from)
	case to < from:
		return nil, badRequest("slice: to (%d) is before from (%d)", to, from)
	}
	return l.lines("slice", f, from, to-from+1, false)
}

func (l Limits) lines(op string, f *os.File, from, count int64, badCount bool) (*LinesResult, error) {
	if badCount {
		return nil, badRequest("%s: the number of lines must be at least 1, got %d", op, count)
	}
	l = l.withDefaults()
	path := f.Name()
	if _, err := regularInfo(op, f); err != nil {
		return nil, err
	}

	res := &LinesResult{Path: path, Op: op, TotalLines: -1}
	if count > int64(l.MaxLines) {
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("asked for %d lines; at most %d are returned per call (clamped)", count, l.MaxLines))
		count = int64(l.MaxLines)
	}
	lr := newLineReader(l.fromStart(f), l.MaxLineBytes, nil, 0)
	for lr.num < from-1 && lr.skip() {
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", op, path, err)
	}
	if lr.num < from-1 {
		return nil, badRequest("%s: fromLine=%d is past the end of the file: it has %d lines", op, from, lr.num)
	}
	c := &lineCollector{lim: l, sep: ':'}
	ended := false
	for int64(len(c.lines)) < count {
		if !lr.next() {
			ended = true
			break
		}
		if !c.add(lr.line()) {
			break
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", op, path, err)
	}
	res.Lines = c.lines
	if len(c.lines) == 0 && from > 1 {
		return nil, badRequest("%s: fromLine=%d is past the end of the file: it has %d lines", op, from, lr.num)
	}
	if !ended && !c.full {
		// Is there more? Peek without keeping.
		if _, err := lr.r.Peek(1); err == nil {
			res.More = true
		} else if !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: read %s: %w", op, path, err)
		}
	}
	if c.full {
		res.More = true
	}
	if !res.More {
		res.TotalLines = lr.num
	}
	last := from - 1 + int64(len(c.lines))
	switch {
	case len(c.lines) == 0:
		res.Notes = append(res.Notes, "the file is empty")
	case c.full:
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("output capped at %s: stopped after line %d; continue with slice fromLine=%d",
			humanBytes(int64(l.MaxOutputBytes)), last, last+1))
	case res.More:
		res.Notes = append(res.Notes, fmt.Sprintf("lines %d-%d shown; more lines follow: continue with slice fromLine=%d", from, last, last+1))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("lines %d-%d shown; the file ends at line %d", from, last, last))
	}
	if note, ok := c.cutNote(); ok {
		res.Truncated = true
		res.Notes = append(res.Notes, note)
	}
	return res, nil
}

// Tail returns the last n lines of the file f, at most MaxLines and
// MaxOutputBytes of them (the last ones are kept). It reads backwards from
// the end, so it does not know line numbers: Line.Number is 0 and the text
// form is unnumbered; Line.Offset still says where each line starts.
func (l Limits) Tail(f *os.File, n int) (*LinesResult, error) {
	if n < 1 {
		return nil, badRequest("tail: the number of lines must be at least 1, got %d", n)
	}
	l = l.withDefaults()
	path := f.Name()
	fi, err := regularInfo("tail", f)
	if err != nil {
		return nil, err
	}

	res := &LinesResult{Path: path, Op: "tail", TotalLines: -1}
	if n > l.MaxLines {
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("asked for %d lines; at most %d are returned per call (clamped)", n, l.MaxLines))
		n = l.MaxLines
	}
	start, whole, err := tailStart(f, fi.Size(), n)
	if err != nil {
		return nil, fmt.Errorf("tail: read %s: %w", path, err)
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("tail: seek %s: %w", path, err)
	}
	lr := newLineReader(f, l.MaxLineBytes, nil, start)
	var lines []Line
	for lr.next() {
		ln := lr.line()
		ln.Number = 0
		lines = append(lines, ln)
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("tail: read %s: %w", path, err)
	}
	if whole {
		// The whole file was read: the numbers are known after all.
		for i := range lines {
			lines[i].Number = int64(i + 1)
		}
		res.TotalLines = int64(len(lines))
	}
	// Keep the last lines that fit in the byte bound.
	c := &lineCollector{lim: l, sep: ':'}
	first := len(lines)
	size := 0
	for first > 0 {
		c.scratch = lines[first-1].render(c.scratch[:0], ':')
		if first < len(lines) && size+len(c.scratch) > l.MaxOutputBytes {
			c.full = true
			break
		}
		size += len(c.scratch)
		first--
	}
	for _, ln := range lines[first:] {
		c.add(ln)
	}
	res.Lines = c.lines
	res.More = false
	switch {
	case len(res.Lines) == 0:
		res.Notes = append(res.Notes, "the file is empty")
	case first > 0:
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("output capped at %s: showing only the last %d lines, from byte offset %d; use read or slice for earlier ones",
			humanBytes(int64(l.MaxOutputBytes)), len(res.Lines), res.Lines[0].Offset))
	case whole:
		res.Notes = append(res.Notes, fmt.Sprintf("the whole file: %d lines", len(res.Lines)))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("last %d lines, from byte offset %d to the end (tail does not number lines; stat gives the total)", len(res.Lines), res.Lines[0].Offset))
	}
	if note, ok := c.cutNote(); ok {
		res.Truncated = true
		res.Notes = append(res.Notes, note)
	}
	return res, nil
}

// tailStart finds the offset of the first of the last n lines by reading
// backwards from size. whole reports that this is the start of the file
// and the file has at most n lines.
func tailStart(r io.ReaderAt, size int64, n int) (start int64, whole bool, err error) {
	if size == 0 {
		return 0, true, nil
	}
	buf := make([]byte, readBufSize)
	end := size
	// A final "\n" ends the last line; it does not start another.
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return 0, false, err
	}
	if last[0] == '\n' {
		end--
	}
	found := 0
	for end > 0 {
		chunk := buf[:min(int64(len(buf)), end)]
		pos := end - int64(len(chunk))
		if _, err := r.ReadAt(chunk, pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, false, err
		}
		for {
			i := bytes.LastIndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			found++
			if found == n {
				return pos + int64(i) + 1, false, nil
			}
			chunk = chunk[:i]
		}
		end = pos
	}
	return 0, true, nil
}
