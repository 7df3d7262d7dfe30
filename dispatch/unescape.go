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
		s = s[i:]
		if len(s) < 2 {
			return fmt.Errorf("truncated escape in JSON string")
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			bw.WriteByte(c) //nolint:errcheck // as above
		case 'b':
			bw.WriteByte('\b') //nolint:errcheck // as above
		case 'f':
			bw.WriteByte('\f') //nolint:errcheck // as above
		case 'n':
			bw.WriteByte('\n') //nolint:errcheck // as above
		case 'r':
			bw.WriteByte('\r') //nolint:errcheck // as above
		case 't':
			bw.WriteByte('\t') //nolint:errcheck // as above
		case 'u':
			code, ok := hex4(s[2:])
			if !ok {
				return fmt.Errorf("invalid \\u escape in JSON string")
			}
			s = s[6:]
			if utf16.IsSurrogate(code) {
				if low, ok := hex4(s[min(len(s), 2):]); ok && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if pair := utf16.DecodeRune(code, low); pair != utf8.RuneError {
						code = pair
						s = s[6:]
					}
				}
			}
			n := utf8.EncodeRune(r[:], code)
			bw.Write(r[:n]) //nolint:errcheck // as above
			continue
		default:
			return fmt.Errorf("invalid escape \\%c in JSON string", c)
		}
		s = s[2:]
	}
	return bw.Flush()
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
