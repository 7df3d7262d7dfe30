package toon

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// isJSSpace reports whether r is whitespace for JavaScript's String#trim
// (WhiteSpace and LineTerminator in ECMA-262). The reference implementation
// trims with it, so quoting and token trimming use the same set.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim trims isJSSpace characters from both ends of s.
func jsTrim(s string) string {
	for len(s) > 0 {
		c := s[0]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				break
			}
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		c := s[len(s)-1]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				break
			}
			s = s[:len(s)-1]
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s)
		if !isJSSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// hasEdgeSpace reports whether s starts or ends with isJSSpace whitespace.
func hasEdgeSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if isJSSpace(r) {
		return true
	}
	r, _ = utf8.DecodeLastRuneInString(s)
	return isJSSpace(r)
}

// isSafeUnquoted reports whether the string value s may be written without
// quotes where delim is the relevant delimiter (spec §7.2, §11.1).
func isSafeUnquoted(s string, delim byte) bool {
	if s == "" || s[0] == '-' || hasEdgeSpace(s) {
		return false
	}
	if s == "true" || s == "false" || s == "null" || isNumericLike(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ':', '"', '\\', '[', ']', '{', '}', delim:
			return false
		default:
			if c < 0x20 {
				return false
			}
		}
	}
	return true
}

// isValidUnquotedKey reports whether a key may be written without quotes
// (spec §7.3): ^[A-Za-z_][A-Za-z0-9_.]*$.
func isValidUnquotedKey(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}

// isIdentifierSegment reports whether s is an IdentifierSegment (spec §1.9):
// ^[A-Za-z_][A-Za-z0-9_]*$.
func isIdentifierSegment(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a TOON quoted string (spec §7.1): backslash,
// quote, LF, CR and tab get their short escapes, other controls \u00xx.
// Invalid UTF-8 is replaced by U+FFFD so the output is always UTF-8.
func appendQuoted(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// findClosingQuote returns the index of the quote closing the string that
// opens at s[start], skipping backslash escapes, or -1.
func findClosingQuote(s string, start int) int {
	for i := start + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
			}
		case '"':
			return i
		}
	}
	return -1
}

// findUnquoted returns the index of the first c at or after start that is
// outside double quotes, or -1.
func findUnquoted(s string, c byte, start int) int {
	inQuotes := false
	for i := start; i < len(s); i++ {
		switch {
		case s[i] == '\\' && inQuotes && i+1 < len(s):
			i++
		case s[i] == '"':
			inQuotes = !inQuotes
		case s[i] == c && !inQuotes:
			return i
		}
	}
	return -1
}

var errBackslashAtEnd = errors.New("invalid escape sequence: backslash at end of string")

// unescape decodes the §7.1 escapes in the body of a quoted string.
func unescape(s string) (string, error) {
	first := strings.IndexByte(s, '\\')
	if first < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:first])
	for i := first; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := strings.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		if i+1 >= len(s) {
			return "", errBackslashAtEnd
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case 'u':
			if i+6 > len(s) {
				return "", fmt.Errorf("invalid escape sequence: truncated \\u escape %q", s[i:])
			}
			hex := s[i+2 : i+6]
			var r rune
			for k := 0; k < 4; k++ {
				d := unhex(hex[k])
				if d < 0 {
					return "", fmt.Errorf("invalid escape sequence: \\u must be followed by 4 hex digits, got %q", hex)
				}
				r = r<<4 | rune(d)
			}
			if r >= 0xD800 && r <= 0xDFFF {
				return "", fmt.Errorf("invalid escape sequence: \\u%s is a lone surrogate; supplementary code points must appear as literal UTF-8", hex)
			}
			b.WriteRune(r)
			i += 6
			continue
		default:
			r, _ := utf8.DecodeRuneInString(s[i+1:])
			return "", fmt.Errorf("invalid escape sequence: \\%c", r)
		}
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
