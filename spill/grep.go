package spill

import (
	"fmt"
	"io"
	"os"
	"regexp"
)

// GrepOptions says what Grep looks for.
type GrepOptions struct {
	// Pattern is an RE2 regular expression, matched case-insensitively
	// against each whole line (without its "\n" or "\r\n"). An invalid
	// pattern is an error, never a literal search. Lines longer than 64 KiB
	// are streamed: a pattern of plain words, or one with a literal every
	// match must hold, is decided by searching for the literal; otherwise
	// (and on a line holding such a literal) the regexp reads the line,
	// which is slower (about 10 MB/s) and sees a CRLF line's "\r", so "$"
	// does not match before it there.
	Pattern string

	// Context is how many lines to show before and after each match, like
	// grep -C; at most Limits.MaxContext.
	Context int

	// MaxMatches is how many matching lines to show; 0 means
	// Limits.MaxMatches. All matches are counted regardless.
	MaxMatches int

	// From is the line to start searching at (1-based); 0 means 1. Use it to
	// page through more matches than one call shows.
	From int64
}

// GrepResult is what Grep returns.
type GrepResult struct {
	Path         string
	Pattern      string
	Lines        []Line // matches (Match) and context lines, in file order
	Shown        int    // matching lines in Lines
	TotalMatches int64  // matching lines in the whole searched range
	TotalLines   int64  // lines in the file
	Truncated    bool   // fewer matches than exist are shown, or a line was cut
	Notes        []string
}

// Text returns the agent-facing form, like grep -n: "12:text" for matches,
// "12-text" for context lines, "--" between regions that do not touch, then
// a summary with the total number of matches and the notes.
func (r *GrepResult) Text() string { return r.Body() + notesText(r.Notes) }

// Body is Text without the notes.
func (r *GrepResult) Body() string {
	var b []byte
	for i, l := range r.Lines {
		if i > 0 && l.Number != r.Lines[i-1].Number+1 {
			b = append(b, "--\n"...)
		}
		sep := byte('-')
		if l.Match {
			sep = ':'
		}
		b = l.render(b, sep)
	}
	return string(b)
}

// String is Text.
func (r *GrepResult) String() string { return r.Text() }

// Grep searches the file f for lines matching opts.Pattern,
// case-insensitively. It reads the whole file once, streaming, and counts
// every matching line, but shows at most MaxMatches of them, MaxLines lines
// in all (context included) and MaxOutputBytes of text; every such cut is
// stated in the notes with how to go on.
//
// When every match must contain some literal text (see newPrefilter), the
// buffered lines are searched for it chunk-wise and the lines without it
// are only counted; the others are matched one by one as before.
func (l Limits) Grep(f *os.File, opts GrepOptions) (*GrepResult, error) {
	l = l.withDefaults()
	path := f.Name()
	if opts.Pattern == "" {
		return nil, fmt.Errorf("grep: %w: the pattern is empty", ErrInvalidPattern)
	}
	re, err := regexp.Compile("(?i)" + opts.Pattern)
	if err != nil {
		return nil, fmt.Errorf("grep: %w %q (RE2 syntax; escape special characters such as . ( [ with \\ to search for them literally): %w",
			ErrInvalidPattern, opts.Pattern, err)
	}
	if opts.Context < 0 {
		return nil, badRequest("grep: context must not be negative, got %d", opts.Context)
	}
	if opts.MaxMatches < 0 {
		return nil, badRequest("grep: max matches must not be negative, got %d", opts.MaxMatches)
	}
	if opts.From < 0 {
		return nil, badRequest("grep: from must be at least 1 (lines are numbered from 1), got %d", opts.From)
	}
	res := &GrepResult{Path: path, Pattern: opts.Pattern}
	ctx := opts.Context
	if ctx > l.MaxContext {
		res.Notes = append(res.Notes, fmt.Sprintf("asked for %d context lines; at most %d are shown (clamped)", ctx, l.MaxContext))
		ctx = l.MaxContext
	}
	maxMatches := opts.MaxMatches
	if maxMatches == 0 {
		maxMatches = l.MaxMatches
	}
	from := max(opts.From, 1)

	if _, err := regularInfo("grep", f); err != nil {
		return nil, err
	}

	matcher := newLineMatcher(re)
	lr := newLineReader(l.fromStart(f), l.MaxLineBytes, matcher, 0)
	lr.quick = newLongFilter(matcher, re.String())
	lr.reread = func(off, n int64) io.Reader { return ctxReader{ctx: l.context(), r: io.NewSectionReader(f, off, n)} }
	for lr.num < from-1 && lr.skip() {
	}
	if lr.num < from-1 {
		if err := lr.Err(); err != nil {
			return nil, fmt.Errorf("grep: read %s: %w", path, err)
		}
		return nil, badRequest("grep: fromLine=%d is past the end of the file: it has %d lines", from, lr.num)
	}

	c := &lineCollector{lim: l, sep: ':'}
	var (
		before    = newLineRing(ctx) // context candidates, oldest first
		afterLeft int                // context lines still due after a match
		stopped   string             // why lines stopped being shown
		lastShown int64              // number of the last line shown
	)
	emit := func(ln Line) bool {
		if len(c.lines) >= l.MaxLines {
			stopped = fmt.Sprintf("at most %d lines are shown per call", l.MaxLines)
			return false
		}
		if !c.add(ln) {
			stopped = fmt.Sprintf("output capped at %s", humanBytes(int64(l.MaxOutputBytes)))
			return false
		}
		lastShown = ln.Number
		return true
	}
	skip := newPrefilter(re.String())
	for {
		if skip != nil && (afterLeft == 0 || stopped != "") {
			var ring *lineRing
			if stopped == "" {
				ring = before
			}
			lr.skipToCandidate(skip, ring)
		}
		if !lr.next() {
			break
		}
		if lr.match {
			res.TotalMatches++
		}
		if stopped != "" {
			continue
		}
		switch {
		case lr.match && res.Shown < maxMatches:
			for i := range before.len() {
				if !emit(before.line(i)) {
					break
				}
			}
			before.reset()
			if stopped == "" && emit(lr.line()) {
				res.Shown++
				afterLeft = ctx
			}
		case lr.match:
			stopped = fmt.Sprintf("at most %d matches are shown per call", maxMatches)
		case afterLeft > 0:
			afterLeft--
			emit(lr.line())
		case ctx > 0:
			before.push(lr)
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("grep: read %s: %w", path, err)
	}
	res.TotalLines = lr.num
	res.Lines = c.lines

	scope := ""
	if from > 1 {
		scope = fmt.Sprintf(" from line %d on", from)
	}
	switch {
	case res.TotalMatches == 0:
		res.Notes = append(res.Notes, fmt.Sprintf("no line matches %q (case-insensitive)%s; the file has %d lines", opts.Pattern, scope, res.TotalLines))
	case int64(res.Shown) < res.TotalMatches:
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("%d matching lines in all%s; showing the first %d (%s); continue with fromLine=%d",
			res.TotalMatches, scope, res.Shown, stopped, lastShown+1))
	case stopped != "":
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("%d matching lines in all%s, all shown, but some context lines were left out (%s)", res.TotalMatches, scope, stopped))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("%d matching lines in all%s, all shown", res.TotalMatches, scope))
	}
	if note, ok := c.cutNote(); ok {
		res.Truncated = true
		res.Notes = append(res.Notes, note)
	}
	return res, nil
}

// lineRing keeps the last few lines seen, reusing its buffers, so that
// lines which never get shown as context cost no allocation.
type lineRing struct {
	slots []ringSlot
	start int // index of the oldest slot
	n     int // slots in use
}

type ringSlot struct {
	number, offset, cut int64
	text                []byte
	end                 string
}

func newLineRing(size int) *lineRing { return &lineRing{slots: make([]ringSlot, size)} }

func (r *lineRing) len() int { return r.n }

func (r *lineRing) reset() { r.start, r.n = 0, 0 }

// push copies the current line of lr in, dropping the oldest when full.
func (r *lineRing) push(lr *lineReader) {
	if len(r.slots) == 0 {
		return
	}
	s := r.slot()
	s.number, s.offset, s.cut = lr.num, lr.start, lr.n-int64(len(lr.buf))
	s.text = append(s.text[:0], lr.buf...)
	s.end = lineEnd(lr.cr, lr.nl)
}

// slot returns the slot for a new line, dropping the oldest when full.
func (r *lineRing) slot() *ringSlot {
	i := (r.start + r.n) % len(r.slots)
	if r.n == len(r.slots) {
		r.start = (r.start + 1) % len(r.slots)
	} else {
		r.n++
	}
	return &r.slots[i]
}

// line returns the i-th oldest line.
func (r *lineRing) line(i int) Line {
	s := r.slots[(r.start+i)%len(r.slots)]
	return Line{Number: s.number, Offset: s.offset, Text: string(s.text), Cut: s.cut, End: s.end}
}
