package dispatch

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// writeUnescaped writes the JSON string token quoted (with its quotes,
// already checked as valid JSON) to w unescaped, as gjson would unescape
// it but without holding the text: a large spilled text is unescaped once,
// straight into its file. A lone surrogate becomes U+FFFD.
func writeUnescaped(w io.Writer, quoted []byte) error {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return fmt.Errorf("not a JSON string")
	}
	s := quoted[1 : len(quoted)-1]
	bw := bufio.NewWriterSize(w, 64<<10)
	var r [utf8.UTFMax]byte
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			bw.Write(s) //nolint:errcheck // bufio keeps the first error for Flush
			break
		}
		bw.Write(s[:i]) //nolint:errcheck // as above
		decoded, n, err := decodeEscape(s[i:], &r)
		if err != nil {
			return err
		}
		bw.Write(decoded) //nolint:errcheck // as above
		s = s[i+n:]
	}
	return bw.Flush()
}

// unescapeInPlace unescapes the JSON string token quoted (with its quotes,
// already checked as valid JSON) over its own bytes and returns the text,
// a prefix of quoted: no escape is shorter than what it stands for, so the
// text never overtakes what is still to be read. A large text that must be
// held (to be parsed as JSON) costs no second copy; the token is gone
// after. The text is the same as writeUnescaped's.
func unescapeInPlace(quoted []byte) ([]byte, error) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return nil, fmt.Errorf("not a JSON string")
	}
	out := quoted[:0]
	var r [utf8.UTFMax]byte
	for rd := 1; rd < len(quoted)-1; {
		s := quoted[rd : len(quoted)-1]
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			// append moves overlapping bytes correctly (memmove).
			out = append(out, s...)
			break
		}
		out = append(out, s[:i]...)
		decoded, n, err := decodeEscape(s[i:], &r)
		if err != nil {
			return nil, err
		}
		out = append(out, decoded...)
		rd += i + n
	}
	return out, nil
}

// decodeEscape decodes the escape s starts with (a backslash), a pair of
// \u escapes of a surrogate pair as one character, into r or a static
// byte. It returns the bytes it stands for and how many bytes of s it took.
func decodeEscape(s []byte, r *[utf8.UTFMax]byte) (decoded []byte, n int, err error) {
	if len(s) < 2 {
		return nil, 0, fmt.Errorf("truncated escape in JSON string")
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		r[0] = c
	case 'b':
		r[0] = '\b'
	case 'f':
		r[0] = '\f'
	case 'n':
		r[0] = '\n'
	case 'r':
		r[0] = '\r'
	case 't':
		r[0] = '\t'
	case 'u':
		code, ok := hex4(s[2:])
		if !ok {
			return nil, 0, fmt.Errorf("invalid \\u escape in JSON string")
		}
		n = 6
		if utf16.IsSurrogate(code) {
			rest := s[n:]
			if low, ok := hex4(rest[min(len(rest), 2):]); ok && len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
				if pair := utf16.DecodeRune(code, low); pair != utf8.RuneError {
					code = pair
					n += 6
				}
			}
		}
		return r[:utf8.EncodeRune(r[:], code)], n, nil
	default:
		return nil, 0, fmt.Errorf("invalid escape \\%c in JSON string", c)
	}
	return r[:1], 2, nil
}

// hex4 decodes the four hex digits a \u escape starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}

// rawStringMember returns the raw token (quotes and escapes included) of
// the string member key of the valid JSON object obj, without unescaping
// it (gjson unescapes every string value it passes over). The last
// duplicate wins, as with json.Unmarshal. ok is false when there is no
// such member or it is not a string.
func rawStringMember(obj []byte, key string) (token []byte, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return token, token != nil
		}
		end := stringEnd(obj, i)
		name := obj[i:end]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		i = skipSpace(obj, i+1)
		start := i
		i = valueEnd(obj, i)
		if i <= start {
			return nil, false
		}
		if keyIs(name, key) {
			token = nil
			if obj[start] == '"' {
				token = obj[start:i]
			}
		}
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
}

// keyIs reports whether the quoted key name is key; a name with escapes
// is unquoted first.
func keyIs(name []byte, key string) bool {
	if bytes.IndexByte(name, '\\') < 0 {
		return string(name[1:len(name)-1]) == key
	}
	s, err := strconv.Unquote(string(name))
	return err == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the closing quote of the string at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd is the index after the JSON value at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default:
		for ; i < len(b); i++ {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
		}
		return i
	}
}
