package toon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of arrays and objects ParseJSON accepts,
// the same limit encoding/json uses, so hostile input cannot exhaust the
// stack.
const maxJSONDepth = 10000

// ParseJSON reads exactly one JSON value (RFC 8259) from r, keeping object
// key order and the exact text of numbers. Anything but whitespace after the
// value is an error.
//
// As with encoding/json, invalid UTF-8 and unpaired surrogate escapes in
// strings become U+FFFD. When an object repeats a key, the last value wins
// and keeps the position of the key's first appearance, as JSON.parse does.
//
// r is read in chunks, so memory use is the size of the resulting Value, not
// that plus a copy of the input.
func ParseJSON(r io.Reader) (Value, error) {
	p := jsonParser{r: r, buf: make([]byte, 0, readChunk), keys: make(map[string]string)}
	v, err := p.document()
	if err != nil {
		return Value{}, fmt.Errorf("toon: parse json: %w", err)
	}
	return v, nil
}

// jsonParser is a recursive-descent JSON parser over a refillable buffer.
// Scanning code addresses bytes relative to pos, which stays valid when
// more() moves the unread bytes to the front of buf.
type jsonParser struct {
	r   io.Reader
	buf []byte
	pos int   // next unread byte in buf
	off int64 // input offset of buf[0]
	// lines counts the newlines before buf[0], and lineOff is the input
	// offset where the line holding buf[0] starts: an error says where
	// the input is wrong as an editor does.
	lines   int64
	lineOff int64
	eof     bool
	rerr    error
	keys    map[string]string // interned object keys
	stack   []Value           // elements and member values being collected
	kstack  []string          // member keys being collected
	tmp     []byte            // scratch for unescaping strings
	mem     arena
	hints   [keyHints]string // last key seen at each member position
	// keySets holds recent objects' key lists, by length: objects in an
	// array usually have the same keys, and then share one (immutable) list.
	keySets [8][]string
}

// maxInternedKeys bounds the key intern table.
const maxInternedKeys = 1 << 14

// readChunk is the initial size of the input buffer.
const readChunk = 16 << 10

// keyHints is how many member positions remember their last key: objects in
// an array usually repeat the previous object's keys in the same order, so a
// byte comparison finds the interned key without hashing.
const keyHints = 32

var errUnexpectedEOF = errors.New("unexpected end of JSON input")

// more reads more input, keeping buf[pos:]. It reports false at the end of
// the input or on a read error (kept in rerr).
func (p *jsonParser) more() bool {
	if p.eof {
		return false
	}
	if p.pos > 0 {
		gone := p.buf[:p.pos]
		if nl := bytes.Count(gone, []byte{'\n'}); nl > 0 {
			p.lines += int64(nl)
			p.lineOff = p.off + int64(bytes.LastIndexByte(gone, '\n')) + 1
		}
		n := copy(p.buf, p.buf[p.pos:])
		p.off += int64(p.pos)
		p.buf = p.buf[:n]
		p.pos = 0
	}
	if len(p.buf) == cap(p.buf) { // one token fills the buffer
		nb := make([]byte, len(p.buf), 2*cap(p.buf))
		copy(nb, p.buf)
		p.buf = nb
	}
	for {
		n, err := p.r.Read(p.buf[len(p.buf):cap(p.buf)])
		p.buf = p.buf[:len(p.buf)+n]
		if err != nil {
			p.eof = true
			if err != io.EOF {
				p.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// peekAt returns the byte i positions after pos, reading more if needed.
func (p *jsonParser) peekAt(i int) (byte, bool) {
	for p.pos+i >= len(p.buf) {
		if !p.more() {
			return 0, false
		}
	}
	return p.buf[p.pos+i], true
}

func (p *jsonParser) fail(format string, args ...any) error {
	if p.rerr != nil {
		return fmt.Errorf("read: %w", p.rerr)
	}
	return fmt.Errorf("%s: %s", p.where(p.pos), fmt.Sprintf(format, args...))
}

// where describes the input position of buf[at]: line and column (1-based,
// the column in bytes) and the byte offset.
func (p *jsonParser) where(at int) string {
	before := p.buf[:at]
	line := p.lines + int64(bytes.Count(before, []byte{'\n'})) + 1
	start := p.lineOff
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		start = p.off + int64(i) + 1
	}
	off := p.off + int64(at)
	return fmt.Sprintf("line %d, column %d (offset %d)", line, off-start+1, off)
}

func (p *jsonParser) eofError() error {
	if p.rerr != nil {
		return fmt.Errorf("read: %w", p.rerr)
	}
	return fmt.Errorf("%s: %w", p.where(len(p.buf)), errUnexpectedEOF)
}

// skipSpace skips JSON whitespace and returns the next byte without
// consuming it.
func (p *jsonParser) skipSpace() (byte, bool) {
	for {
		for p.pos < len(p.buf) {
			switch c := p.buf[p.pos]; c {
			case ' ', '\t', '\n', '\r':
				p.pos++
			default:
				return c, true
			}
		}
		if !p.more() {
			return 0, false
		}
	}
}

func (p *jsonParser) document() (Value, error) {
	if _, ok := p.skipSpace(); !ok {
		if p.rerr != nil {
			return Value{}, p.eofError()
		}
		return Value{}, errors.New("empty input")
	}
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if c, ok := p.skipSpace(); ok {
		return Value{}, p.fail("invalid character %q after top-level value", c)
	}
	if p.rerr != nil {
		return Value{}, p.eofError()
	}
	return v, nil
}

// value parses the value starting at the next non-space byte.
func (p *jsonParser) value(depth int) (Value, error) {
	c, ok := p.skipSpace()
	if !ok {
		return Value{}, p.eofError()
	}
	switch {
	case c == '"':
		s, err := p.str(-1)
		return Value{kind: KindString, s: s}, err
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return Value{}, p.fail("nesting deeper than %d levels", maxJSONDepth)
		}
		p.pos++
		if c == '[' {
			return p.array(depth + 1)
		}
		return p.object(depth + 1)
	case c == '-' || isDigit(c):
		return p.number()
	case c == 't':
		return Bool(true), p.literal("true")
	case c == 'f':
		return Bool(false), p.literal("false")
	case c == 'n':
		return Value{}, p.literal("null")
	}
	return Value{}, p.fail("invalid character %q looking for beginning of value", c)
}

func (p *jsonParser) literal(word string) error {
	for i := 0; i < len(word); i++ {
		c, ok := p.peekAt(i)
		if !ok {
			return p.eofError()
		}
		if c != word[i] {
			p.pos += i
			return p.fail("invalid character %q in literal %s", c, word)
		}
	}
	p.pos += len(word)
	return nil
}

func (p *jsonParser) number() (Value, error) {
	n := 0
	for {
		c, ok := p.peekAt(n)
		if !ok || !(isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			break
		}
		n++
	}
	text := p.buf[p.pos : p.pos+n]
	if !isJSONNumber(string(text)) { // no allocation: the conversion does not escape
		return Value{}, p.fail("invalid number %q", text)
	}
	p.pos += n
	return Value{kind: KindNumber, s: p.mem.str(text)}, nil
}

func (p *jsonParser) array(depth int) (Value, error) {
	base := len(p.stack)
	c, ok := p.skipSpace()
	if !ok {
		return Value{}, p.eofError()
	}
	if c == ']' {
		p.pos++
		return emptyArray(), nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		p.stack = append(p.stack, v)
		c, ok := p.skipSpace()
		if !ok {
			return Value{}, p.eofError()
		}
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			p.pos--
			return Value{}, p.fail("invalid character %q after array element", c)
		}
	}
	ct := p.mem.container()
	ct.vals = p.mem.values(len(p.stack) - base)
	copy(ct.vals, p.stack[base:])
	clear(p.stack[base:])
	p.stack = p.stack[:base]
	return Value{kind: KindArray, c: ct}, nil
}

func (p *jsonParser) object(depth int) (Value, error) {
	// Members are collected on the shared stacks: keys on kstack from kbase,
	// values on stack from vbase, in step.
	kbase, vbase := len(p.kstack), len(p.stack)
	var index map[string]int // for large objects: key -> member number
	c, ok := p.skipSpace()
	if !ok {
		return Value{}, p.eofError()
	}
	if c == '}' {
		p.pos++
		return emptyObject(), nil
	}
	for {
		c, ok := p.skipSpace()
		if !ok {
			return Value{}, p.eofError()
		}
		if c != '"' {
			return Value{}, p.fail("invalid character %q looking for object key", c)
		}
		key, err := p.str(len(p.kstack) - kbase)
		if err != nil {
			return Value{}, err
		}
		c, ok = p.skipSpace()
		if !ok {
			return Value{}, p.eofError()
		}
		if c != ':' {
			return Value{}, p.fail("invalid character %q after object key", c)
		}
		p.pos++
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		// A repeated key keeps its first position and takes the new value.
		members := p.kstack[kbase:]
		dup := -1
		if len(members) < indexThreshold {
			for i, k := range members {
				if k == key {
					dup = i
					break
				}
			}
		} else {
			if index == nil {
				index = make(map[string]int, 2*len(members))
				for i := len(members) - 1; i >= 0; i-- {
					index[members[i]] = i
				}
			}
			if i, ok := index[key]; ok {
				dup = i
			}
		}
		if dup >= 0 {
			p.stack[vbase+dup] = v
		} else {
			if index != nil {
				index[key] = len(members)
			}
			p.kstack = append(p.kstack, key)
			p.stack = append(p.stack, v)
		}
		c, ok = p.skipSpace()
		if !ok {
			return Value{}, p.eofError()
		}
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			p.pos--
			return Value{}, p.fail("invalid character %q after object member", c)
		}
	}
	ct := p.mem.container()
	ct.keys = p.keyList(p.kstack[kbase:])
	ct.vals = p.mem.values(len(p.stack) - vbase)
	copy(ct.vals, p.stack[vbase:])
	clear(p.stack[vbase:])
	p.stack = p.stack[:vbase]
	p.kstack = p.kstack[:kbase]
	return Value{kind: KindObject, c: ct}, nil
}

// str parses the string at pos (which holds its opening quote). Keys, for
// which member is their position in the object (-1 for values), are
// interned: large documents repeat the same keys many times.
func (p *jsonParser) str(member int) (string, error) {
	n := 1
	plain := true // no escapes and only ASCII so far
	for {
		for p.pos+n < len(p.buf) {
			c := p.buf[p.pos+n]
			if c == '"' {
				raw := p.buf[p.pos+1 : p.pos+n]
				if !plain {
					s, err := p.slowStr(n)
					if err == nil && member >= 0 {
						s = p.intern(s)
					}
					return s, err
				}
				p.pos += n + 1
				if member < 0 {
					return p.mem.str(raw), nil
				}
				return p.key(raw, member), nil
			}
			if c == '\\' || c >= utf8.RuneSelf {
				plain = false
				if c == '\\' {
					n++ // skip the escaped byte; validated in slowStr
				}
			} else if c < 0x20 {
				p.pos += n
				return "", p.fail("invalid control character %q in string", c)
			}
			n++
		}
		if !p.more() {
			return "", p.eofError()
		}
	}
}

// keyList returns an immutable copy of keys, shared with an earlier object
// that had the same keys in the same order when there is one.
func (p *jsonParser) keyList(keys []string) []string {
	slot := &p.keySets[len(keys)%len(p.keySets)]
	if prev := *slot; len(prev) == len(keys) {
		same := true
		for i, k := range keys {
			if prev[i] != k {
				same = false
				break
			}
		}
		if same {
			return prev
		}
	}
	list := p.mem.strings(len(keys))
	copy(list, keys)
	*slot = list
	return list
}

// key returns the interned string for the key bytes b at member position i.
func (p *jsonParser) key(b []byte, i int) string {
	if i < keyHints && p.hints[i] == string(b) {
		return p.hints[i]
	}
	s, ok := p.keys[string(b)]
	if !ok {
		s = p.mem.str(b)
		if len(p.keys) < maxInternedKeys {
			p.keys[s] = s
		}
	}
	if i < keyHints {
		p.hints[i] = s
	}
	return s
}

// intern returns the interned copy of an unescaped key.
func (p *jsonParser) intern(s string) string {
	if k, ok := p.keys[s]; ok {
		return k
	}
	if len(p.keys) < maxInternedKeys {
		p.keys[s] = s
	}
	return s
}

// slowStr decodes a string with escapes or non-ASCII bytes; the closing
// quote is n bytes after pos and the whole string is in buf.
func (p *jsonParser) slowStr(n int) (string, error) {
	raw := p.buf[p.pos+1 : p.pos+n]
	out := p.tmp[:0]
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			if i+1 >= len(raw) {
				return "", p.fail("invalid escape at end of string")
			}
			switch e := raw[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(raw[i+2:])
				if !ok {
					return "", p.fail("invalid \\u escape in string")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2, ok = hex4(raw[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", p.fail("invalid escape %q in string", "\\"+string(e))
			}
			i += 2
		case c < 0x20:
			return "", p.fail("invalid control character %q in string", c)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, raw[i:i+size]...)
			}
			i += size
		}
	}
	p.tmp = out
	p.pos += n + 1
	return p.mem.str(out), nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		d := unhex(c)
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
