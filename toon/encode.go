package toon

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encode writes v to w as a TOON document (spec 3.3). The document has LF
// line endings and no trailing newline; an empty root object writes nothing.
//
// Layout decisions follow the reference encoder @toon-format/toon@2.3.1
// exactly, so for the same JSON value both produce the same bytes.
func Encode(w io.Writer, v Value, opts EncodeOptions) error {
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	e := encoder{cfg: cfg, w: w, buf: make([]byte, 0, 4096)}
	e.root(v)
	e.flush()
	if e.err != nil {
		return fmt.Errorf("toon: write: %w", e.err)
	}
	return nil
}

// EncodeJSON reads one JSON value from r and writes it to w as TOON. Object
// key order and exact number text are kept (see [ParseJSON]).
//
// The whole input is read first. A document without repeated keys, encoded
// without key folding, then takes a flat path: one pass over the text builds
// a slice of pointer-free nodes that refer back to it, and a second pass
// writes TOON from those, so a large table costs a few allocations instead of
// several per value (see the package documentation, "Memory"). Everything
// else — key folding, repeated keys, invalid JSON (for its error message),
// more than maxFlatKeys distinct keys — goes through [ParseJSON] and
// [Encode], which produce the same bytes.
func EncodeJSON(w io.Writer, r io.Reader, opts EncodeOptions) error {
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	src, complete, err := readJSONText(r)
	if err != nil {
		return fmt.Errorf("toon: parse json: read: %w", err)
	}
	if complete && !cfg.fold {
		if t, ok := parseFlat(src); ok {
			e := flatEncoder{encoder: encoder{cfg: cfg, w: w, buf: make([]byte, 0, flushSize+4096)}, t: t}
			e.root()
			e.flush()
			if e.err != nil {
				return fmt.Errorf("toon: write: %w", e.err)
			}
			return nil
		}
	}
	in := io.Reader(strings.NewReader(src))
	if !complete {
		in = io.MultiReader(in, r)
	}
	v, err := ParseJSON(in)
	if err != nil {
		return err
	}
	return Encode(w, v, opts)
}

// readJSONText reads r to its end into one string, sized up front when r
// says how much it holds, so a large file is read with one allocation. It
// stops early, leaving the rest in r and reporting complete false, when the
// text cannot be JSON (the first byte after leading space cannot start a
// value: binary data or an endless stream of zero bytes is refused at once,
// as the streaming ParseJSON does) or grows past maxFlatInput.
func readJSONText(r io.Reader) (text string, complete bool, err error) {
	var b strings.Builder
	switch s := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		b.Grow(s.Len() + 1)
	case interface{ Stat() (fs.FileInfo, error) }: // *os.File
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 && fi.Size() < maxFlatInput {
			b.Grow(int(fi.Size()) + 1)
		}
	}
	buf := make([]byte, 64<<10)
	checked := false
	for {
		n, err := r.Read(buf)
		if !checked {
			if c, found := firstNonSpace(buf[:n]); found {
				checked = true
				if !canStartJSONValue(c) {
					b.Write(buf[:n])
					return b.String(), false, nil
				}
			}
		}
		b.Write(buf[:n])
		if err == io.EOF {
			return b.String(), true, nil
		}
		if err != nil {
			return "", false, err
		}
		if int64(b.Len()) > maxFlatInput {
			return b.String(), false, nil
		}
	}
}

func firstNonSpace(b []byte) (byte, bool) {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, true
		}
	}
	return 0, false
}

func canStartJSONValue(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return isDigit(c)
}

// flushSize is how much output the encoder buffers before writing it out.
const flushSize = 32 << 10

type encoder struct {
	cfg     encodeConfig
	w       io.Writer
	buf     []byte
	started bool // a line has been written, so the next one needs "\n"
	err     error
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// line starts a new output line at the given depth.
func (e *encoder) line(depth int) {
	if len(e.buf) >= flushSize {
		e.flush()
	}
	if e.started {
		e.buf = append(e.buf, '\n')
	}
	e.started = true
	for n := depth * e.cfg.indent; n > 0; {
		k := min(n, len(spaces))
		e.buf = append(e.buf, spaces[:k]...)
		n -= k
	}
}

// item starts a new "- " list-item line at the given depth.
func (e *encoder) item(depth int) {
	e.line(depth)
	e.buf = append(e.buf, '-', ' ')
}

const spaces = "                                                                "

func (e *encoder) key(k string) {
	if isValidUnquotedKey(k) {
		e.buf = append(e.buf, k...)
		return
	}
	e.buf = appendQuoted(e.buf, k)
}

// primitive writes a null, boolean, number or string value. Strings are
// quoted as the document delimiter requires; invalid UTF-8 becomes U+FFFD.
func (e *encoder) primitive(v Value) {
	switch v.kind {
	case KindBool:
		if v.b {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case KindNumber:
		e.buf = appendCanonicalNumber(e.buf, v.s)
	case KindString:
		s := v.s
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		if isSafeUnquoted(s, e.cfg.delim) {
			e.buf = append(e.buf, s...)
		} else {
			e.buf = appendQuoted(e.buf, s)
		}
	default:
		e.buf = append(e.buf, "null"...)
	}
}

// header writes [key][N<delim?>][{fields}]: — an array header without the
// line start.
func (e *encoder) header(key string, keyed bool, n int, fields []string) {
	if keyed {
		e.key(key)
	}
	e.buf = append(e.buf, '[')
	e.buf = strconv.AppendInt(e.buf, int64(n), 10)
	if e.cfg.delim != ',' {
		e.buf = append(e.buf, e.cfg.delim)
	}
	e.buf = append(e.buf, ']')
	if fields != nil {
		e.buf = append(e.buf, '{')
		for i, f := range fields {
			if i > 0 {
				e.buf = append(e.buf, e.cfg.delim)
			}
			e.key(f)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ':')
}

// inlineArray writes [key][N]: v1,v2,… for an array of primitives.
func (e *encoder) inlineArray(key string, keyed bool, elems []Value) {
	e.header(key, keyed, len(elems), nil)
	if len(elems) == 0 {
		return
	}
	e.buf = append(e.buf, ' ')
	for i, v := range elems {
		if i > 0 {
			e.buf = append(e.buf, e.cfg.delim)
		}
		e.primitive(v)
	}
}

func (e *encoder) root(v Value) {
	switch v.kind {
	case KindArray:
		e.array("", false, v.c.vals, 0)
	case KindObject:
		var rootLiteral map[string]bool
		if e.cfg.fold {
			for _, k := range v.c.keys {
				if strings.IndexByte(k, '.') >= 0 {
					if rootLiteral == nil {
						rootLiteral = make(map[string]bool)
					}
					rootLiteral[k] = true
				}
			}
		}
		e.object(v.c.keys, v.c.vals, 0, foldScope{rootLiteral: rootLiteral, flatten: e.cfg.flatten})
	default:
		e.line(0)
		e.primitive(v)
	}
}

// foldScope is the key-folding state passed down nested objects: the dotted
// literal keys of the root object, the dotted path to the current object, and
// how many more segments may still be folded.
type foldScope struct {
	rootLiteral map[string]bool
	prefix      string
	flatten     int
}

func (s foldScope) path(key string) string {
	if s.prefix == "" {
		return key
	}
	return s.prefix + "." + key
}

// object writes the members of an object at depth.
func (e *encoder) object(keys []string, vals []Value, depth int, scope foldScope) {
	sib := siblings{keys: keys}
	for i, k := range keys {
		e.member(k, vals[i], depth, &sib, scope)
	}
}

// siblings answers "is this key a sibling?" for folding collision checks,
// with a set once the object is large.
type siblings struct {
	keys []string
	set  map[string]bool
}

func (s *siblings) has(k string) bool {
	if len(s.keys) < indexThreshold {
		for _, x := range s.keys {
			if x == k {
				return true
			}
		}
		return false
	}
	if s.set == nil {
		s.set = make(map[string]bool, len(s.keys))
		for _, x := range s.keys {
			s.set[x] = true
		}
	}
	return s.set[k]
}

func (e *encoder) member(k string, v Value, depth int, sib *siblings, scope foldScope) {
	if e.cfg.fold && v.kind == KindObject && e.tryFold(k, v, depth, sib, scope) {
		return
	}
	switch v.kind {
	case KindArray:
		e.array(k, true, v.c.vals, depth)
	case KindObject:
		e.line(depth)
		e.key(k)
		e.buf = append(e.buf, ':')
		if len(v.c.keys) > 0 {
			scope.prefix = scope.path(k)
			e.object(v.c.keys, v.c.vals, depth+1, scope)
		}
	default:
		e.line(depth)
		e.key(k)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(v)
	}
}

// tryFold writes k: v with the chain of single-key objects starting at v
// folded into a dotted key (spec §13.4, safe mode), and reports whether it
// could.
func (e *encoder) tryFold(k string, v Value, depth int, sib *siblings, scope foldScope) bool {
	// Collect the chain k → k2 → … while the current value is an object with
	// exactly one key, up to scope.flatten segments.
	segments := 1
	leaf := v
	for segments < scope.flatten && leaf.kind == KindObject && len(leaf.c.keys) == 1 {
		leaf = leaf.c.vals[0]
		segments++
	}
	if segments < 2 || !isIdentifierSegment(k) {
		return false
	}
	var b strings.Builder
	b.WriteString(k)
	cur := v
	for i := 1; i < segments; i++ {
		seg := cur.c.keys[0]
		if !isIdentifierSegment(seg) {
			return false
		}
		b.WriteByte('.')
		b.WriteString(seg)
		cur = cur.c.vals[0]
	}
	folded := b.String()
	if sib.has(folded) || (scope.rootLiteral != nil && scope.rootLiteral[scope.path(folded)]) {
		return false
	}
	switch {
	case leaf.kind == KindArray:
		e.array(folded, true, leaf.c.vals, depth)
	case leaf.kind == KindObject && len(leaf.c.keys) > 0:
		// The chain stopped at a multi-key object or at the depth limit.
		e.line(depth)
		e.key(folded)
		e.buf = append(e.buf, ':')
		scope.prefix = scope.path(folded)
		scope.flatten -= segments
		e.object(leaf.c.keys, leaf.c.vals, depth+1, scope)
	case leaf.kind == KindObject:
		e.line(depth)
		e.key(folded)
		e.buf = append(e.buf, ':')
	default:
		e.line(depth)
		e.key(folded)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(leaf)
	}
	return true
}

func isPrimitive(v Value) bool { return v.kind != KindArray && v.kind != KindObject }

func allPrimitives(elems []Value) bool {
	for _, v := range elems {
		if !isPrimitive(v) {
			return false
		}
	}
	return true
}

// array writes an array field (or the root array when !keyed) at depth,
// choosing the inline, array-of-arrays, tabular or list form (spec §9).
func (e *encoder) array(key string, keyed bool, elems []Value, depth int) {
	if len(elems) == 0 {
		e.line(depth)
		if keyed {
			e.key(key)
			e.buf = append(e.buf, ':', ' ')
		}
		e.buf = append(e.buf, '[', ']')
		return
	}
	if allPrimitives(elems) {
		e.line(depth)
		e.inlineArray(key, keyed, elems)
		return
	}
	if fields := tabularFields(elems); fields != nil {
		e.line(depth)
		e.header(key, keyed, len(elems), fields)
		e.rows(elems, fields, depth+1)
		return
	}
	// Arrays of primitive arrays, non-uniform objects and mixed arrays all
	// become list items.
	e.line(depth)
	e.header(key, keyed, len(elems), nil)
	for _, v := range elems {
		e.listItem(v, depth+1)
	}
}

// tabularFields returns the field list when elems can use the tabular form
// (spec §9.3): all non-empty objects with the same keys and only primitive
// values. The fields are in the first object's order.
func tabularFields(elems []Value) []string {
	if len(elems) == 0 || elems[0].kind != KindObject || len(elems[0].c.keys) == 0 {
		return nil
	}
	fields := elems[0].c.keys
	h := newRowHeader(fields)
	for _, row := range elems {
		if row.kind != KindObject || len(row.c.keys) != len(fields) {
			return nil
		}
		cols, ok := h.columns(row.c)
		if !ok {
			return nil
		}
		for _, i := range cols {
			if !isPrimitive(row.c.vals[i]) {
				return nil
			}
		}
	}
	return fields
}

// rowField finds field f of a row, trying its position j in the header first
// since rows usually share the first row's key order.
func rowField(c *container, f string, j int) (int, bool) {
	if j < len(c.keys) && c.keys[j] == f {
		return j, true
	}
	return c.find(f)
}

// rowHeader finds the members of tabular rows in header order. A wide row in
// another order is matched through a map of the header's positions, so a
// hostile table of many keys costs linear time per row, not a search per
// field.
type rowHeader struct {
	fields []string
	pos    map[string]int // field -> header position, for wide headers
	cols   []int
}

func newRowHeader(fields []string) *rowHeader {
	h := &rowHeader{fields: fields, cols: make([]int, len(fields))}
	if len(fields) >= indexThreshold {
		h.pos = make(map[string]int, len(fields))
		for j, f := range fields {
			h.pos[f] = j
		}
	}
	return h
}

// columns returns the index in c of each header field, in header order, and
// false when c lacks one. c has as many members as there are fields, and
// its keys are distinct. The slice is reused by the next call.
func (h *rowHeader) columns(c *container) ([]int, bool) {
	inOrder := true
	for j, f := range h.fields {
		if c.keys[j] != f {
			inOrder = false
			break
		}
		h.cols[j] = j
	}
	if inOrder {
		return h.cols, true
	}
	if h.pos == nil {
		for j, f := range h.fields {
			i, ok := rowField(c, f, j)
			if !ok {
				return nil, false
			}
			h.cols[j] = i
		}
		return h.cols, true
	}
	for i, k := range c.keys {
		j, ok := h.pos[k]
		if !ok {
			return nil, false
		}
		h.cols[j] = i
	}
	return h.cols, true
}

func (e *encoder) rows(elems []Value, fields []string, depth int) {
	h := newRowHeader(fields)
	for _, row := range elems {
		e.line(depth)
		cols, _ := h.columns(row.c)
		for j, i := range cols {
			if j > 0 {
				e.buf = append(e.buf, e.cfg.delim)
			}
			e.primitive(row.c.vals[i])
		}
	}
}

// listItem writes one element of a list-form array at depth (spec §9.4, §10).
func (e *encoder) listItem(v Value, depth int) {
	switch v.kind {
	case KindArray:
		e.item(depth)
		if allPrimitives(v.c.vals) {
			e.inlineArray("", false, v.c.vals)
			return
		}
		e.header("", false, len(v.c.vals), nil)
		for _, x := range v.c.vals {
			e.listItem(x, depth+1)
		}
	case KindObject:
		e.objectItem(v.c, depth)
	default:
		e.item(depth)
		e.primitive(v)
	}
}

// objectItem writes an object as a list item: its first member on the hyphen
// line and the rest one level deeper (spec §10).
func (e *encoder) objectItem(c *container, depth int) {
	if len(c.keys) == 0 {
		e.line(depth)
		e.buf = append(e.buf, '-')
		return
	}
	k, v := c.keys[0], c.vals[0]
	rest := foldScope{flatten: e.cfg.flatten}
	switch v.kind {
	case KindArray:
		elems := v.c.vals
		if fields := tabularFields(elems); fields != nil {
			// Tabular first field: header on the hyphen line, rows two
			// levels deeper, other fields one level deeper.
			e.item(depth)
			e.header(k, true, len(elems), fields)
			e.rows(elems, fields, depth+2)
			break
		}
		e.item(depth)
		if len(elems) == 0 {
			e.key(k)
			e.buf = append(e.buf, ':', ' ', '[', ']')
			break
		}
		if allPrimitives(elems) {
			e.inlineArray(k, true, elems)
			break
		}
		e.header(k, true, len(elems), nil)
		for _, x := range elems {
			e.listItem(x, depth+2)
		}
	case KindObject:
		e.item(depth)
		e.key(k)
		e.buf = append(e.buf, ':')
		if len(v.c.keys) > 0 {
			e.object(v.c.keys, v.c.vals, depth+2, rest)
		}
	default:
		e.item(depth)
		e.key(k)
		e.buf = append(e.buf, ':', ' ')
		e.primitive(v)
	}
	if len(c.keys) > 1 {
		e.object(c.keys[1:], c.vals[1:], depth+1, rest)
	}
}
