package toon

import (
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// flatTree is a parsed JSON document as one slice of pointer-free nodes in
// document order, with text left in the source string: the fast path of
// [EncodeJSON]. Where the [Value] tree costs a 32-byte pointerful value per
// node, a string per key and value and the garbage collector's time to scan
// them, a flatTree is a handful of large allocations the collector never
// looks inside. It is read by flatEncoder only.
type flatTree struct {
	src   string     // the JSON text
	side  string     // unescaped text of strings and keys that had escapes or invalid UTF-8
	nodes []flatNode // nodes[0] is the root
	keys  []string   // distinct object keys; flatNode.key-1 indexes it
}

// flatNode is one value. Its children, if any, follow it directly; b says
// where its subtree ends so an encoder can step over it.
type flatNode struct {
	key    uint16 // for an object member, 1 + its key's index in flatTree.keys; 0 otherwise
	kind   Kind
	side   bool // the text is in flatTree.side, not in src
	nested bool // an array or object with an array or object inside
	// Strings and numbers: the text's offset and length. Booleans: a is 1
	// for true. Arrays and objects: a is the number of elements or members
	// and b the index of the first node after the subtree.
	a, b uint32
}

// maxFlatInput is the largest JSON text the flat path takes: offsets are
// 32-bit. Larger documents go through the Value tree.
const maxFlatInput int64 = math.MaxUint32

// maxFlatKeys bounds the distinct object keys of the flat path (a node
// holds a 16-bit key number, and the key table and duplicate check grow with
// them). Documents with more, such as a map keyed by a million IDs, go
// through the Value tree.
const maxFlatKeys = math.MaxUint16

// nodeBytesGuess is the JSON bytes per node the node slice is first sized
// for: about what a table of short values takes (the benchmark table has one
// node per 14 bytes). Denser documents grow the slice by doubling.
const nodeBytesGuess = 12

// flatParser builds a flatTree. It only accepts or refuses: on any problem
// (invalid JSON, a repeated key, a limit) it reports false and the caller
// parses the text again with [ParseJSON], which keeps the one description of
// what is wrong and where, and the last-wins rule for repeated keys.
type flatParser struct {
	t     flatTree
	pos   int
	side  []byte
	index map[string]uint16 // key text -> 1 + index in t.keys
	// hints holds, by member position, the key last seen there: the objects
	// of a table repeat their keys in order, so one comparison usually finds
	// the key without hashing.
	hints [keyHints]uint16
	seen  []uint32 // by key index: the stamp of the last object holding the key
	stamp uint32
	tmp   []byte // scratch for unescaping keys
}

// parseFlat parses src, reporting false when the flat path cannot take it.
func parseFlat(src string) (*flatTree, bool) {
	if int64(len(src)) > maxFlatInput {
		return nil, false
	}
	p := flatParser{
		t:     flatTree{src: src, nodes: make([]flatNode, 0, len(src)/nodeBytesGuess+16)},
		index: make(map[string]uint16),
	}
	if !p.value(0) {
		return nil, false
	}
	p.space()
	if p.pos != len(src) {
		return nil, false
	}
	p.t.side = string(p.side)
	return &p.t, true
}

func (p *flatParser) space() {
	for p.pos < len(p.t.src) {
		switch p.t.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses one value at pos (after optional space) and appends its
// nodes; an object sets the member key on the first of them afterwards.
func (p *flatParser) value(depth int) bool {
	p.space()
	src := p.t.src
	if p.pos >= len(src) {
		return false
	}
	switch c := src[p.pos]; {
	case c == '"':
		n := flatNode{kind: KindString}
		if !p.str(&n) {
			return false
		}
		p.push(n)
		return true
	case c == '[' || c == '{':
		if depth >= maxJSONDepth {
			return false
		}
		p.pos++
		if c == '[' {
			return p.array(depth + 1)
		}
		return p.object(depth + 1)
	case c == '-' || isDigit(c):
		start := p.pos
		for p.pos < len(src) {
			c := src[p.pos]
			if !(isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
				break
			}
			p.pos++
		}
		if !isJSONNumber(src[start:p.pos]) {
			return false
		}
		p.push(flatNode{kind: KindNumber, a: uint32(start), b: uint32(p.pos - start)})
		return true
	case c == 't':
		p.push(flatNode{kind: KindBool, a: 1})
		return p.literal("true")
	case c == 'f':
		p.push(flatNode{kind: KindBool})
		return p.literal("false")
	case c == 'n':
		p.push(flatNode{kind: KindNull})
		return p.literal("null")
	}
	return false
}

func (p *flatParser) literal(word string) bool {
	if len(p.t.src)-p.pos < len(word) || p.t.src[p.pos:p.pos+len(word)] != word {
		return false
	}
	p.pos += len(word)
	return true
}

// push appends a node. The slice doubles when full, rather than growing by
// a quarter as append does with large slices: a document denser than
// nodeBytesGuess then costs three or four copies, not a dozen, and far less
// garbage.
func (p *flatParser) push(n flatNode) {
	if len(p.t.nodes) == cap(p.t.nodes) {
		grown := make([]flatNode, len(p.t.nodes), 2*cap(p.t.nodes))
		copy(grown, p.t.nodes)
		p.t.nodes = grown
	}
	p.t.nodes = append(p.t.nodes, n)
}

// open appends a container node and returns its index.
func (p *flatParser) open(kind Kind) int {
	p.push(flatNode{kind: kind})
	return len(p.t.nodes) - 1
}

// noteChild marks the container at index at as nested when its child at
// index child is a container.
func (p *flatParser) noteChild(at, child int) {
	if k := p.t.nodes[child].kind; k == KindArray || k == KindObject {
		p.t.nodes[at].nested = true
	}
}

// close records a container's size and the end of its subtree.
func (p *flatParser) close(at int, count uint32) {
	p.t.nodes[at].a = count
	p.t.nodes[at].b = uint32(len(p.t.nodes))
}

func (p *flatParser) array(depth int) bool {
	at := p.open(KindArray)
	p.space()
	if p.pos < len(p.t.src) && p.t.src[p.pos] == ']' {
		p.pos++
		p.close(at, 0)
		return true
	}
	var count uint32
	for {
		child := len(p.t.nodes)
		if !p.value(depth) {
			return false
		}
		p.noteChild(at, child)
		count++
		p.space()
		if p.pos >= len(p.t.src) {
			return false
		}
		c := p.t.src[p.pos]
		p.pos++
		if c == ']' {
			p.close(at, count)
			return true
		}
		if c != ',' {
			return false
		}
	}
}

func (p *flatParser) object(depth int) bool {
	at := p.open(KindObject)
	p.space()
	if p.pos < len(p.t.src) && p.t.src[p.pos] == '}' {
		p.pos++
		p.close(at, 0)
		return true
	}
	var count uint32
	for {
		p.space()
		if p.pos >= len(p.t.src) || p.t.src[p.pos] != '"' {
			return false
		}
		key, ok := p.key(int(count))
		if !ok {
			return false
		}
		p.space()
		if p.pos >= len(p.t.src) || p.t.src[p.pos] != ':' {
			return false
		}
		p.pos++
		member := len(p.t.nodes)
		if !p.value(depth) {
			return false
		}
		p.t.nodes[member].key = key
		p.noteChild(at, member)
		count++
		p.space()
		if p.pos >= len(p.t.src) {
			return false
		}
		c := p.t.src[p.pos]
		p.pos++
		if c == '}' {
			p.close(at, count)
			return count < 2 || p.distinctKeys(at)
		}
		if c != ',' {
			return false
		}
	}
}

// distinctKeys reports whether the members of the object at index at all
// have different keys, in one pass: each key's slot is stamped with this
// object's number.
func (p *flatParser) distinctKeys(at int) bool {
	p.stamp++
	if p.stamp == 0 { // wrapped: old stamps could collide
		clear(p.seen)
		p.stamp = 1
	}
	nodes := p.t.nodes
	for i := at + 1; i < len(nodes); i = nodes[i].next(i) {
		k := nodes[i].key - 1
		if p.seen[k] == p.stamp {
			return false
		}
		p.seen[k] = p.stamp
	}
	return true
}

// next returns the index of the node after n's subtree, n being nodes[i].
func (n *flatNode) next(i int) int {
	if n.kind == KindArray || n.kind == KindObject {
		return int(n.b)
	}
	return i + 1
}

// key parses the member key at pos (its opening quote) for member position
// member and returns 1 + its index in the key table.
func (p *flatParser) key(member int) (uint16, bool) {
	var n flatNode
	if !p.str(&n) {
		return 0, false
	}
	var k string
	if n.side {
		p.tmp = append(p.tmp[:0], p.side[n.a:n.a+n.b]...)
		p.side = p.side[:n.a] // the key is kept in the key table instead
		if id, ok := p.index[string(p.tmp)]; ok {
			return id, true
		}
		k = string(p.tmp)
	} else {
		k = p.t.src[n.a : n.a+n.b]
		if member < keyHints {
			if id := p.hints[member]; id != 0 && p.t.keys[id-1] == k {
				return id, true
			}
		}
		if id, ok := p.index[k]; ok {
			if member < keyHints {
				p.hints[member] = id
			}
			return id, true
		}
	}
	if len(p.t.keys) >= maxFlatKeys {
		return 0, false
	}
	p.t.keys = append(p.t.keys, k)
	p.seen = append(p.seen, 0)
	id := uint16(len(p.t.keys))
	p.index[k] = id
	if member < keyHints && !n.side {
		p.hints[member] = id
	}
	return id, true
}

// str parses the string at pos (its opening quote) into n's text: a span of
// src when the string is valid UTF-8 without escapes, else its unescaped
// text appended to the side buffer.
func (p *flatParser) str(n *flatNode) bool {
	src := p.t.src
	start := p.pos + 1
	plain := true // no escapes and only ASCII so far
	i := start
	for ; ; i++ {
		if i >= len(src) {
			return false
		}
		c := src[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			continue
		}
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			plain = false
			i++ // the escaped byte; checked by unescape
		case c >= utf8.RuneSelf:
			plain = false
		default: // a control character
			return false
		}
	}
	p.pos = i + 1
	raw := src[start:i]
	if plain || (!hasByte(raw, '\\') && utf8.ValidString(raw)) {
		n.a, n.b = uint32(start), uint32(len(raw))
		return true
	}
	from := len(p.side)
	var ok bool
	p.side, ok = appendUnescapedJSON(p.side, raw)
	if !ok || int64(len(p.side)) > maxFlatInput {
		return false
	}
	n.side = true
	n.a, n.b = uint32(from), uint32(len(p.side)-from)
	return true
}

func hasByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// appendUnescapedJSON appends the text of the JSON string body raw, as
// ParseJSON decodes it: escapes resolved, unpaired surrogate escapes and
// invalid UTF-8 replaced by U+FFFD. It reports false for an invalid escape
// or a control character.
func appendUnescapedJSON(out []byte, raw string) ([]byte, bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			if i+1 >= len(raw) {
				return out, false
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
				r, ok := hex4String(raw[i+2:])
				if !ok {
					return out, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2, ok = hex4String(raw[i+2:])
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
				return out, false
			}
			i += 2
		case c < 0x20:
			return out, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(raw[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, raw[i:i+size]...)
			}
			i += size
		}
	}
	return out, true
}

func hex4String(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		d := unhex(s[i])
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
