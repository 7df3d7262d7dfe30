package spill

import (
	"bytes"
	"regexp/syntax"
)

// minPrefilterLen is the shortest required literal worth searching for:
// shorter ones occur on nearly every line, so finding them first only adds
// work to matching each line.
const minPrefilterLen = 2

// prefilter finds, in a run of whole lines, the first place where a
// pattern could match: an occurrence of a literal that every match must
// contain, compared ignoring ASCII case. A line without one cannot match,
// so Grep skips it unread; a line with one is still matched in full, so
// the prefilter decides speed, never answers.
//
// It searches for the literal's rarest byte (both cases of a letter) with
// bytes.IndexByte, which is SIMD, and compares the literal around each hit.
type prefilter struct {
	lit   []byte // lower case ASCII
	rare  int    // index in lit of the byte searched for
	cases [2]byteCursor
	both  bool // lit[rare] is a letter: search its upper case too
}

// newPrefilter returns a prefilter for the pattern re was compiled from
// ("(?i)" + the user's pattern), or nil when the pattern has no literal
// that every match contains.
func newPrefilter(expr string) *prefilter {
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	lit := requiredLiteral(parsed.Simplify())
	if len(lit) < minPrefilterLen {
		return nil
	}
	p := &prefilter{lit: lit}
	for i, c := range lit {
		if byteRank(c) < byteRank(lit[p.rare]) {
			p.rare = i
		}
	}
	c := lit[p.rare]
	p.cases[0].b = c
	if 'a' <= c && c <= 'z' {
		p.both = true
		p.cases[1].b = c - 'a' + 'A'
	}
	return p
}

// requiredLiteral returns the longest run of ASCII text, lowered, that
// every match of re contains, or nil. Only runes that match exactly one
// byte, whatever the case rules, go into a run: non-ASCII runes (invalid
// UTF-8 matches U+FFFD), and k and s under (?i), which also match the
// Kelvin sign U+212A and the long s U+017F, end it.
func requiredLiteral(re *syntax.Regexp) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		return longestRun(re)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []byte
		var run []byte // literal children next to each other join up
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture {
				sub = sub.Sub[0]
			}
			if sub.Op == syntax.OpLiteral {
				run = appendLiteral(run, sub)
				continue
			}
			best = longer(best, longestSplit(run))
			run = run[:0]
			best = longer(best, requiredLiteral(sub))
		}
		return longer(best, longestSplit(run))
	}
	return nil
}

// sepByte stands, inside a run being built, for a rune that cannot be
// part of a literal; no lowered pattern byte equals it.
const sepByte = 0xff

// appendLiteral appends the runes of a literal node, lowered, with
// sepByte for the runes that cannot be compared byte for byte.
func appendLiteral(dst []byte, re *syntax.Regexp) []byte {
	fold := re.Flags&syntax.FoldCase != 0
	for _, r := range re.Rune {
		c := byte(r)
		switch {
		case r >= 0x80:
			c = sepByte
		case fold && (c|0x20 == 'k' || c|0x20 == 's'):
			c = sepByte
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func longestRun(re *syntax.Regexp) []byte { return longestSplit(appendLiteral(nil, re)) }

// longestSplit returns a copy of the longest sepByte-free part of s.
func longestSplit(s []byte) []byte {
	var best []byte
	for part := range bytes.SplitSeq(s, []byte{sepByte}) {
		best = longer(best, part)
	}
	return bytes.Clone(best)
}

func longer(a, b []byte) []byte {
	if len(b) > len(a) {
		return b
	}
	return a
}

// next returns the index in lines (whole lines starting at file offset
// base) of the first occurrence of the literal, or -1. Calls must come with
// the same file's bytes at nondecreasing offsets, as the cursors remember
// how far they have searched.
func (p *prefilter) next(lines []byte, base int64) int {
	from := 0
	for {
		hit := p.cases[0].find(lines, base, from)
		if p.both {
			if up := p.cases[1].find(lines, base, from); up >= 0 && (hit < 0 || up < hit) {
				hit = up
			}
		}
		if hit < 0 {
			return -1
		}
		start := hit - p.rare
		if start >= 0 && start+len(p.lit) <= len(lines) && equalFoldASCII(lines[start:start+len(p.lit)], p.lit) {
			return start
		}
		from = hit + 1
	}
}

// equalFoldASCII reports whether s equals the lower-case ASCII lit,
// ignoring the case of ASCII letters.
func equalFoldASCII(s, lit []byte) bool {
	for i, c := range lit {
		if s[i] != c && !('a' <= c && c <= 'z' && s[i] == c-'a'+'A') {
			return false
		}
	}
	return true
}

// byteCursor finds one byte with bytes.IndexByte and remembers the result,
// so that looking for two bytes (both cases of a letter) does not search
// again, for every hit of the frequent one, all the text up to the next
// hit of the rare one. It knows that [lo, hi) in file offsets holds no b,
// and, when found, that b is at hi.
type byteCursor struct {
	b      byte
	lo, hi int64
	found  bool
}

// find returns the index of the first b in lines[from:] (lines starting at
// file offset base), or -1.
func (c *byteCursor) find(lines []byte, base int64, from int) int {
	at := base + int64(from)
	end := base + int64(len(lines))
	start := at
	switch {
	case c.lo <= at && at <= c.hi && c.found:
		if c.hi < end {
			return int(c.hi - base)
		}
		return -1
	case c.lo <= at && at <= c.hi:
		start = c.hi
	default:
		c.lo = at
	}
	if start >= end {
		return -1
	}
	i := bytes.IndexByte(lines[start-base:], c.b)
	if i < 0 {
		c.hi, c.found = end, false
		return -1
	}
	c.hi, c.found = start+int64(i), true
	return int(c.hi - base)
}

// byteRank orders bytes from rare to common in text and JSON (lower is
// rarer), counting both cases of a letter, as the search looks for both.
func byteRank(c byte) int {
	const common = " etaoinsrhldcumfpgwybvkxjqz" // by English frequency
	switch {
	case c >= 0x80:
		return 0
	case 'A' <= c && c <= 'Z':
		c += 'a' - 'A'
	}
	switch c {
	case ' ', '"', '\n', ':', ',':
		return 300
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return 200
	}
	if i := bytes.IndexByte([]byte(common), c); i >= 0 {
		return 200 - 4*i
	}
	return 50 // punctuation and control bytes
}
