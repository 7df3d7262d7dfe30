package toon

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// WriteJSON writes v to w as JSON: compact when indent is "", otherwise one
// member or element per line indented by indent per level (like
// json.MarshalIndent with an empty prefix). Object order and number text are
// written as stored; strings escape only what JSON requires (quote,
// backslash, control characters), as JSON.stringify does, and invalid UTF-8
// becomes U+FFFD. No trailing newline is written.
func WriteJSON(w io.Writer, v Value, indent string) error {
	jw := jsonWriter{w: w, indent: indent, buf: make([]byte, 0, 4096)}
	jw.value(v, 0)
	jw.flush()
	if jw.err != nil {
		return fmt.Errorf("toon: write json: %w", jw.err)
	}
	return nil
}

type jsonWriter struct {
	w      io.Writer
	indent string
	buf    []byte
	err    error
}

func (j *jsonWriter) flush() {
	if j.err == nil && len(j.buf) > 0 {
		_, j.err = j.w.Write(j.buf)
	}
	j.buf = j.buf[:0]
}

func (j *jsonWriter) newline(depth int) {
	if j.indent == "" {
		return
	}
	j.buf = append(j.buf, '\n')
	for i := 0; i < depth; i++ {
		j.buf = append(j.buf, j.indent...)
	}
}

func (j *jsonWriter) value(v Value, depth int) {
	if len(j.buf) >= flushSize {
		j.flush()
	}
	switch v.kind {
	case KindNull:
		j.buf = append(j.buf, "null"...)
	case KindBool:
		if v.b {
			j.buf = append(j.buf, "true"...)
		} else {
			j.buf = append(j.buf, "false"...)
		}
	case KindNumber:
		j.buf = append(j.buf, v.s...)
	case KindString:
		j.buf = appendJSONString(j.buf, v.s)
	case KindArray, KindObject:
		open, closing := byte('['), byte(']')
		if v.kind == KindObject {
			open, closing = '{', '}'
		}
		j.buf = append(j.buf, open)
		n := v.Len()
		for i := 0; i < n; i++ {
			if i > 0 {
				j.buf = append(j.buf, ',')
			}
			j.newline(depth + 1)
			if v.kind == KindObject {
				j.buf = appendJSONString(j.buf, v.c.keys[i])
				j.buf = append(j.buf, ':')
				if j.indent != "" {
					j.buf = append(j.buf, ' ')
				}
			}
			j.value(v.c.vals[i], depth+1)
		}
		if n > 0 {
			j.newline(depth)
		}
		j.buf = append(j.buf, closing)
	}
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
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
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
