package spill

import (
	"bytes"
	"encoding/binary"
	"io"
	"regexp"
	"regexp/syntax"
)

// lineMatcher decides whether a line matches a grep pattern: Match for a
// line held in memory, MatchReader for one too long to hold.
type lineMatcher interface {
	Match(line []byte) bool
	MatchReader(r io.RuneReader) bool
}

// newLineMatcher returns the fastest exact matcher for re, which was
// compiled from "(?i)" + pattern.
func newLineMatcher(re *regexp.Regexp) lineMatcher {
	if m := newFoldLiterals(re); m != nil {
		return m
	}
	return re
}

// foldLiterals matches lines that contain any of a few ASCII literals,
// ignoring case. Grep patterns are mostly plain words, and regexp cannot use
// its literal-prefix shortcut on a case-insensitive pattern, so it steps
// through every byte; lowering the line and searching with bytes.Index is
// several times faster and gives the same answers.
type foldLiterals struct {
	re    *regexp.Regexp // the same pattern, for the cases below
	lits  [][]byte       // lower case
	lower []byte         // reused buffer for the lowered line

	// (?i)k also matches U+212A KELVIN SIGN and (?i)s U+017F LONG S: with a
	// k or s in a literal, a line with non-ASCII bytes that the literals
	// miss is left to re.
	unicodeFolds bool
}

// newFoldLiterals returns a matcher for re if its pattern is a
// case-insensitive ASCII literal or an alternation of them, else nil.
func newFoldLiterals(re *regexp.Regexp) *foldLiterals {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	parsed = parsed.Simplify()
	subs := []*syntax.Regexp{parsed}
	if parsed.Op == syntax.OpAlternate {
		subs = parsed.Sub
	}
	m := &foldLiterals{re: re}
	for _, sub := range subs {
		if sub.Op != syntax.OpLiteral || len(sub.Rune) == 0 {
			return nil
		}
		lit := make([]byte, 0, len(sub.Rune))
		for _, r := range sub.Rune {
			if r >= 0x80 {
				return nil
			}
			c := byte(r)
			isLetter := 'a' <= c|0x20 && c|0x20 <= 'z'
			if isLetter && sub.Flags&syntax.FoldCase == 0 {
				return nil // (?-i) inside the pattern: case matters here
			}
			if isLetter {
				c |= 0x20
			}
			if c == 'k' || c == 's' {
				m.unicodeFolds = true
			}
			lit = append(lit, c)
		}
		m.lits = append(m.lits, lit)
	}
	return m
}

func (m *foldLiterals) Match(line []byte) bool {
	var ascii bool
	m.lower, ascii = lowerASCII(m.lower[:0], line)
	for _, lit := range m.lits {
		if bytes.Contains(m.lower, lit) {
			return true
		}
	}
	if m.unicodeFolds && !ascii {
		return m.re.Match(line)
	}
	return false
}

// lowerASCII appends s to dst with A-Z lowered, and reports whether s is
// all ASCII. It works on eight bytes at a time (SWAR): a byte-at-a-time loop
// would cost more than the search itself.
func lowerASCII(dst, s []byte) ([]byte, bool) {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	n := len(dst)
	dst = append(dst, s...)
	out := dst[n:]
	var seen uint64 // high bits of every byte
	i := 0
	for ; i+8 <= len(out); i += 8 {
		x := binary.LittleEndian.Uint64(out[i:])
		seen |= x
		low7 := x &^ highs
		geA := low7 + (0x80-'A')*ones // high bit set where byte >= 'A'
		gtZ := low7 + (0x7f-'Z')*ones // high bit set where byte > 'Z'
		upper := (geA &^ gtZ) &^ x & highs
		binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
	}
	for ; i < len(out); i++ {
		c := out[i]
		seen |= uint64(c)
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return dst, seen&highs == 0
}

func (m *foldLiterals) MatchReader(r io.RuneReader) bool { return m.re.MatchReader(r) }
