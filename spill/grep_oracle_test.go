package spill

import (
	"fmt"
	"os"
	"regexp"
)

// oracleGrep is Grep as it was before the chunked search: every line read
// and matched in turn. Tests compare Grep against it. It searches the file f for lines matching opts.Pattern,
// case-insensitively. It reads the whole file once, streaming, and counts
// every matching line, but shows at most MaxMatches of them, MaxLines lines
// in all (context included) and MaxOutputBytes of text; every such cut is
// stated in the notes with how to go on.
func (l Limits) oracleGrep(f *os.File, opts GrepOptions) (*GrepResult, error) {
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

	lr := newLineReader(fromStart(f), l.MaxLineBytes, newLineMatcher(re), 0)
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
	for lr.next() {
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
