package toon

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds line-level TOON syntax: array headers, keys, delimited
// values and primitive tokens. These helpers know nothing about lines or
// depth; the decoder attaches line numbers to their errors.

// isArrayHeaderContent reports whether content looks like a keyless array
// header such as "[3]: …".
func isArrayHeaderContent(content string) bool {
	return strings.HasPrefix(jsTrim(content), "[") && findUnquoted(content, ':', 0) >= 0
}

// isKeyValueLine reports whether a root line has a colon after its key.
func isKeyValueLine(content string) bool {
	if strings.HasPrefix(content, `"`) {
		end := findClosingQuote(content, 0)
		return end >= 0 && strings.IndexByte(content[end+1:], ':') >= 0
	}
	return strings.IndexByte(content, ':') >= 0
}

// isDataRow tells a tabular row from a key-value line at row depth (spec
// §9.3): a row has no unquoted colon, or its first unquoted delimiter comes
// before the first unquoted colon.
func isDataRow(content string, delim byte) bool {
	colon := findUnquoted(content, ':', 0)
	if colon < 0 {
		return true
	}
	d := findUnquoted(content, delim, 0)
	return d >= 0 && d < colon
}

// arrayHeader is a parsed "key[N<delim>]{fields}: inline" line.
type arrayHeader struct {
	key         string
	hasKey      bool
	keyQuoted   bool
	length      int
	delim       byte
	fields      []string // nil without a fields segment
	fieldQuoted []bool
	inline      string // trimmed text after the colon
}

// parseArrayHeader parses content as an array header (spec §6). ok is false
// when the line is not a header; in strict mode malformed headers are
// errors, otherwise they fall back to key-value parsing.
func parseArrayHeader(content string, strict bool) (h arrayHeader, ok bool, err error) {
	bracketStart := -1
	if strings.HasPrefix(jsTrim(content), `"`) {
		lead := len(content) - len(strings.TrimLeftFunc(content, isJSSpace))
		end := findClosingQuote(content, lead)
		if end < 0 || !strings.HasPrefix(content[end+1:], "[") {
			return h, false, nil
		}
		bracketStart = end + 1
	} else {
		bracketStart = findUnquoted(content, '[', 0)
	}
	if bracketStart < 0 {
		return h, false, nil
	}
	if findUnquoted(content[:bracketStart], ':', 0) >= 0 {
		// An unquoted key cannot contain a colon: the first colon ends the
		// key and "[N]:" after it is value text (a 3.3 fixture case that
		// @toon-format/toon@2.3.1 still gets wrong).
		return h, false, nil
	}
	bracketEnd := findUnquoted(content, ']', bracketStart)
	if bracketEnd < 0 {
		return h, false, nil
	}
	braceEnd := bracketEnd + 1
	braceStart := findUnquoted(content, '{', bracketEnd)
	if braceStart >= 0 && braceStart < findUnquoted(content, ':', bracketEnd) {
		if gap := content[bracketEnd+1 : braceStart]; gap != "" {
			if strict {
				if g := jsTrim(gap); g != "" {
					return h, false, fmt.Errorf("unexpected content %q between bracket and fields segment", g)
				}
				return h, false, fmt.Errorf("unexpected whitespace between bracket and fields segment")
			}
			return h, false, nil
		}
		if end := findUnquoted(content, '}', braceStart); end >= 0 {
			braceEnd = end + 1
		}
	}
	colon := findUnquoted(content, ':', max(bracketEnd, braceEnd))
	if colon < 0 {
		return h, false, nil
	}
	if gap := content[max(bracketEnd+1, braceEnd):colon]; gap != "" {
		if strict {
			if g := jsTrim(gap); g != "" {
				return h, false, fmt.Errorf("unexpected content %q between bracket segment and colon", g)
			}
			return h, false, fmt.Errorf("unexpected whitespace between bracket segment and colon")
		}
		return h, false, nil
	}
	if bracketStart > 0 {
		raw := jsTrim(content[:bracketStart])
		h.hasKey = true
		h.key = raw
		if strings.HasPrefix(raw, `"`) {
			h.keyQuoted = true
			if h.key, err = parseStringLiteral(raw); err != nil {
				return h, false, err
			}
		}
	}
	h.inline = jsTrim(content[colon+1:])
	h.length, h.delim, err = parseBracket(content[bracketStart+1 : bracketEnd])
	if err != nil {
		if strict {
			return h, false, err
		}
		return h, false, nil
	}
	if braceStart >= 0 && braceStart < colon {
		if end := findUnquoted(content, '}', braceStart); end >= 0 && end < colon {
			fields := content[braceStart+1 : end]
			if bad := mismatchedDelimiter(fields, h.delim); bad != 0 {
				if strict {
					return h, false, fmt.Errorf("header delimiter mismatch: bracket declares %q but fields segment contains unquoted %q", h.delim, bad)
				}
				return h, false, nil
			}
			tokens := splitDelimited(fields, h.delim)
			h.fields = make([]string, len(tokens))
			h.fieldQuoted = make([]bool, len(tokens))
			for i, tok := range tokens {
				h.fieldQuoted[i] = strings.HasPrefix(tok, `"`)
				if h.fields[i], err = parseStringLiteral(tok); err != nil {
					return h, false, err
				}
			}
		}
	}
	return h, true, nil
}

// parseBracket parses the inside of "[N<delim?>]".
func parseBracket(seg string) (int, byte, error) {
	delim := byte(',')
	n := seg
	if strings.HasSuffix(n, "\t") || strings.HasSuffix(n, "|") {
		delim = n[len(n)-1]
		n = n[:len(n)-1]
	}
	valid := n != "" && (n == "0" || n[0] != '0')
	for i := 0; valid && i < len(n); i++ {
		valid = isDigit(n[i])
	}
	if !valid {
		return 0, 0, fmt.Errorf("invalid array length %q: want a non-negative integer with no leading zeros", seg)
	}
	length, err := strconv.Atoi(n)
	if err != nil {
		return 0, 0, fmt.Errorf("invalid array length %q: too large", seg)
	}
	return length, delim, nil
}

// mismatchedDelimiter returns a delimiter other than active that appears
// unquoted in a fields segment, or 0.
func mismatchedDelimiter(fields string, active byte) byte {
	for _, c := range []byte{',', '\t', '|'} {
		if c != active && findUnquoted(fields, c, 0) >= 0 {
			return c
		}
	}
	return 0
}

// splitDelimited splits inline values or a row on the active delimiter
// outside quotes, trimming each token (spec §11.2). Empty input has no
// tokens.
func splitDelimited(s string, delim byte) []string {
	return appendSplit(nil, s, delim)
}

// appendSplit is splitDelimited appending to tokens.
func appendSplit(tokens []string, s string, delim byte) []string {
	if s == "" {
		return tokens
	}
	inQuotes := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && inQuotes && i+1 < len(s):
			i++
		case s[i] == '"':
			inQuotes = !inQuotes
		case s[i] == delim && !inQuotes:
			tokens = append(tokens, jsTrim(s[start:i]))
			start = i + 1
		}
	}
	return append(tokens, jsTrim(s[start:]))
}

// parsePrimitiveToken types a value token (spec §4): quoted strings,
// true/false/null, numbers, else an unquoted string.
func parsePrimitiveToken(tok string) (Value, error) {
	t := jsTrim(tok)
	switch {
	case t == "":
		return Value{kind: KindString}, nil
	case t[0] == '"':
		s, err := parseStringLiteral(t)
		if err != nil {
			return Value{}, err
		}
		return Value{kind: KindString, s: s}, nil
	case t == "true":
		return Bool(true), nil
	case t == "false":
		return Bool(false), nil
	case t == "null":
		return Value{}, nil
	case isJSONNumber(t):
		return Value{kind: KindNumber, s: canonicalNumber(t)}, nil
	}
	return Value{kind: KindString, s: t}, nil
}

// parseStringLiteral unquotes a token that starts with a quote; other tokens
// are returned trimmed.
func parseStringLiteral(tok string) (string, error) {
	t := jsTrim(tok)
	if !strings.HasPrefix(t, `"`) {
		return t, nil
	}
	end := findClosingQuote(t, 0)
	if end < 0 {
		return "", fmt.Errorf("unterminated string: missing closing quote")
	}
	if end != len(t)-1 {
		return "", fmt.Errorf("unexpected characters after closing quote")
	}
	return unescape(t[1:end])
}

// parseKey parses the key at the start of a key-value line and returns the
// offset just past its colon.
func parseKey(content string) (key string, quoted bool, end int, err error) {
	if strings.HasPrefix(content, `"`) {
		close := findClosingQuote(content, 0)
		if close < 0 {
			return "", true, 0, fmt.Errorf("unterminated quoted key")
		}
		key, err = unescape(content[1:close])
		if err != nil {
			return "", true, 0, err
		}
		if close+1 >= len(content) || content[close+1] != ':' {
			return "", true, 0, fmt.Errorf("missing colon after key")
		}
		return key, true, close + 2, nil
	}
	colon := strings.IndexByte(content, ':')
	if colon < 0 {
		return "", false, 0, fmt.Errorf("missing colon after key")
	}
	return jsTrim(content[:colon]), false, colon + 1, nil
}
