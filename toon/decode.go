package toon

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// DecodeError reports malformed TOON input and the 1-based line where it was
// found.
type DecodeError struct {
	Line int
	Msg  string
	err  error // what errors.Is finds (ErrTooManyValues), if anything
}

func (e *DecodeError) Error() string { return fmt.Sprintf("toon: line %d: %s", e.Line, e.Msg) }

func (e *DecodeError) Unwrap() error { return e.err }

// Decode parses a TOON document (spec 3.3) into a Value.
//
// Parsing follows the reference decoder @toon-format/toon@2.3.1 except where
// the 3.3 spec or fixtures say otherwise: an unquoted key ends at its first
// colon (so "a: b[2]: x" is a string value, not a header), quoted keys in
// headers and quoted tabular field names stay literal under path expansion,
// and strict mode rejects lines left over after the root value. Path
// expansion may not nest the document deeper than 10000 levels. See
// [DecodeOptions] for what strict mode checks.
//
// Every error is a *[DecodeError] naming the offending line, except for
// invalid options. Invalid UTF-8 in data is replaced by U+FFFD. Numbers are
// decoded to their exact value in canonical form (see the package
// documentation).
func Decode(data []byte, opts DecodeOptions) (Value, error) {
	cfg, err := opts.config()
	if err != nil {
		return Value{}, err
	}
	src := string(data)
	if !utf8.ValidString(src) {
		src = strings.ToValidUTF8(src, "\uFFFD")
	}
	d := decoder{cfg: cfg, sc: scanner{src: src, indent: cfg.indent, strict: cfg.strict}, budget: cfg.maxValues}
	v, err := d.root()
	if d.sc.err != nil {
		// A line that failed the indentation checks stops the scan early;
		// report it rather than the confusion it caused further up.
		return Value{}, d.sc.err
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// DecodeToJSON decodes a TOON document and writes it to w as JSON, compact
// when indent is "" (see [WriteJSON]).
func DecodeToJSON(w io.Writer, data []byte, opts DecodeOptions, indent string) error {
	v, err := Decode(data, opts)
	if err != nil {
		return err
	}
	return WriteJSON(w, v, indent)
}

// line is one non-blank source line.
type line struct {
	num     int    // 1-based line number
	depth   int    // leading spaces / indent size
	content string // the line after its leading spaces
}

// scanner yields the non-blank lines of a document one at a time, recording
// blank lines and, in strict mode, checking indentation as it goes.
type scanner struct {
	src    string
	pos    int
	num    int
	indent int
	strict bool

	blanks []int // line numbers of blank lines seen so far, ascending
	next   line
	has    bool // next holds the peeked line
	last   int  // number of the last line consumed
	err    *DecodeError
}

// peek returns the next non-blank line without consuming it.
func (s *scanner) peek() (line, bool) {
	if s.has {
		return s.next, true
	}
	for s.err == nil && s.pos <= len(s.src) {
		end := strings.IndexByte(s.src[s.pos:], '\n')
		var raw string
		if end < 0 {
			raw = s.src[s.pos:]
			s.pos = len(s.src) + 1
		} else {
			raw = s.src[s.pos : s.pos+end]
			s.pos += end + 1
		}
		s.num++
		spaces := 0
		for spaces < len(raw) && raw[spaces] == ' ' {
			spaces++
		}
		content := raw[spaces:]
		if jsTrim(content) == "" {
			s.blanks = append(s.blanks, s.num)
			continue
		}
		if s.strict {
			ws := spaces
			for ws < len(raw) && (raw[ws] == ' ' || raw[ws] == '\t') {
				ws++
			}
			if strings.IndexByte(raw[:ws], '\t') >= 0 {
				s.err = &DecodeError{Line: s.num, Msg: "tabs are not allowed in indentation in strict mode"}
				return line{}, false
			}
			if spaces%s.indent != 0 {
				s.err = &DecodeError{Line: s.num, Msg: fmt.Sprintf("indentation must be an exact multiple of %d, but found %d spaces", s.indent, spaces)}
				return line{}, false
			}
		}
		s.next = line{num: s.num, depth: spaces / s.indent, content: content}
		s.has = true
		return s.next, true
	}
	return line{}, false
}

// advance consumes the peeked line.
func (s *scanner) advance() {
	if s.has {
		s.has = false
		s.last = s.next.num
	}
}

// nextLine consumes and returns the next non-blank line.
func (s *scanner) nextLine() (line, bool) {
	l, ok := s.peek()
	s.advance()
	return l, ok
}

// blankBetween returns the first blank line strictly between two line
// numbers, or 0.
func (s *scanner) blankBetween(start, end int) int {
	i := sort.SearchInts(s.blanks, start+1)
	if i < len(s.blanks) && s.blanks[i] < end {
		return s.blanks[i]
	}
	return 0
}

type decoder struct {
	cfg    decodeConfig
	sc     scanner
	mem    arena
	tokens []string // scratch for splitting rows
	// budget is how many more values the document may decode to
	// (DecodeOptions.MaxValues), spent before each is made.
	budget int
}

// ErrTooManyValues is wrapped by the DecodeError of a document that would
// decode to more than DecodeOptions.MaxValues values.
var ErrTooManyValues = errors.New("too many values")

// spend takes n values from the budget, or refuses the document.
func (d *decoder) spend(n, num int) error {
	if n > d.budget {
		return &DecodeError{Line: num, err: ErrTooManyValues,
			Msg: fmt.Sprintf("the document decodes to more than %d values (array elements, object members, table cells; the MaxValues bound): each costs tens of bytes of memory however short its text; decode a smaller part, or keep the data as JSON", d.cfg.maxValues)}
	}
	d.budget -= n
	return nil
}

func errAt(num int, format string, args ...any) *DecodeError {
	return &DecodeError{Line: num, Msg: fmt.Sprintf(format, args...)}
}

// wrapAt attaches a line number to an error from a line-level helper.
func wrapAt(num int, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*DecodeError); ok {
		return err
	}
	return &DecodeError{Line: num, Msg: err.Error()}
}

// root decodes the whole document, choosing its root form (spec §5).
func (d *decoder) root() (Value, error) {
	first, ok := d.sc.peek()
	if !ok {
		return emptyObject(), nil
	}
	v, err := d.rootValue(first)
	if err != nil {
		return Value{}, err
	}
	if d.cfg.strict {
		if l, ok := d.sc.peek(); ok {
			return Value{}, errAt(l.num, "line does not belong to any structure; check its indentation")
		}
	}
	return v, nil
}

func (d *decoder) rootValue(first line) (Value, error) {
	if jsTrim(first.content) == "[]" {
		d.sc.advance()
		return emptyArray(), nil
	}
	if isArrayHeaderContent(first.content) {
		h, ok, err := parseArrayHeader(first.content, d.cfg.strict)
		if err != nil {
			return Value{}, wrapAt(first.num, err)
		}
		if ok {
			d.sc.advance()
			return d.arrayFromHeader(h, 0, first)
		}
	}
	d.sc.advance()
	next, more := d.sc.peek()
	if !more && !isKeyValueLine(first.content) {
		v, err := parsePrimitiveToken(jsTrim(first.content))
		return v, wrapAt(first.num, err)
	}
	if !isKeyValueLine(first.content) && more && next.depth == 0 {
		return Value{}, errAt(first.num, "top-level document must start with a key-value or array-header line")
	}
	ob := d.newObject()
	if err := d.keyValue(first, 0, ob); err != nil {
		return Value{}, err
	}
	for {
		l, ok := d.sc.peek()
		if !ok || l.depth != 0 {
			break
		}
		d.sc.advance()
		if err := d.keyValue(l, 0, ob); err != nil {
			return Value{}, err
		}
	}
	return ob.finish()
}

// keyValue decodes one "key: value", "key:" or "key[N]…:" line (and any
// lines nested under it) at baseDepth into ob.
func (d *decoder) keyValue(l line, baseDepth int, ob *decodedObject) error {
	if err := d.spend(1, l.num); err != nil {
		return err
	}
	h, ok, err := parseArrayHeader(l.content, d.cfg.strict)
	if err != nil {
		return wrapAt(l.num, err)
	}
	if ok && h.hasKey {
		if err := ob.checkNew(h.key, l.num); err != nil {
			return err
		}
		v, err := d.arrayFromHeader(h, baseDepth, l)
		if err != nil {
			return err
		}
		ob.add(h.key, h.keyQuoted, v, l.num)
		return nil
	}
	key, quoted, end, err := parseKey(l.content)
	if err != nil {
		return wrapAt(l.num, err)
	}
	if err := ob.checkNew(key, l.num); err != nil {
		return err
	}
	rest := jsTrim(l.content[end:])
	var v Value
	switch {
	case rest == "":
		if next, ok := d.sc.peek(); ok && next.depth > baseDepth {
			v, err = d.objectFields(baseDepth + 1)
			if err != nil {
				return err
			}
		} else {
			v = emptyObject()
		}
	case rest == "[]":
		v = emptyArray()
	default:
		v, err = parsePrimitiveToken(rest)
		if err != nil {
			return wrapAt(l.num, err)
		}
	}
	ob.add(key, quoted, v, l.num)
	return nil
}

// objectFields decodes the fields of a nested object whose lines are at
// baseDepth or deeper; the first line fixes the depth of its siblings.
func (d *decoder) objectFields(baseDepth int) (Value, error) {
	ob := d.newObject()
	depth := -1
	for {
		l, ok := d.sc.peek()
		if !ok || l.depth < baseDepth {
			break
		}
		if depth < 0 {
			depth = l.depth
		}
		if l.depth != depth {
			break
		}
		d.sc.advance()
		if err := d.keyValue(l, depth, ob); err != nil {
			return Value{}, err
		}
	}
	return ob.finish()
}

// arrayFromHeader decodes the body of an array whose header line (at
// baseDepth) has been consumed.
func (d *decoder) arrayFromHeader(h arrayHeader, baseDepth int, hl line) (Value, error) {
	switch {
	case h.inline != "":
		return d.inlineArray(h, hl)
	case len(h.fields) > 0:
		return d.tabularArray(h, baseDepth, hl)
	}
	return d.listArray(h, baseDepth, hl)
}

func (d *decoder) checkCount(got, want int, what string, num int) error {
	if d.cfg.strict && got != want {
		return errAt(num, "expected %d %s, but got %d", want, what, got)
	}
	return nil
}

func (d *decoder) inlineArray(h arrayHeader, hl line) (Value, error) {
	// Counted before the split: the tokens alone cost 16 bytes each.
	if err := d.spend(strings.Count(h.inline, string(h.delim))+1, hl.num); err != nil {
		return Value{}, err
	}
	tokens := splitDelimited(h.inline, h.delim)
	elems := make([]Value, len(tokens))
	for i, tok := range tokens {
		v, err := parsePrimitiveToken(tok)
		if err != nil {
			return Value{}, wrapAt(hl.num, err)
		}
		elems[i] = v
	}
	if err := d.checkCount(len(elems), h.length, "inline array items", hl.num); err != nil {
		return Value{}, err
	}
	return arrayValue(elems), nil
}

// maxPrealloc caps capacity reserved from a declared array length, which is
// untrusted input.
const maxPrealloc = 1024

func (d *decoder) tabularArray(h arrayHeader, baseDepth int, hl line) (Value, error) {
	rowDepth := baseDepth + 1
	elems := make([]Value, 0, min(h.length, maxPrealloc))
	first, last := 0, hl.num
	plain := d.plainFields(h)
	for len(elems) < h.length {
		l, ok := d.sc.peek()
		if !ok || l.depth != rowDepth || !isDataRow(l.content, h.delim) {
			break
		}
		if first == 0 {
			first = l.num
		}
		last = l.num
		d.sc.advance()
		d.tokens = appendSplit(d.tokens[:0], l.content, h.delim)
		tokens := d.tokens
		if err := d.spend(len(tokens)+1, l.num); err != nil {
			return Value{}, err
		}
		if err := d.checkCount(len(tokens), len(h.fields), "tabular row values", l.num); err != nil {
			return Value{}, err
		}
		row, err := d.row(h, tokens, plain, l.num)
		if err != nil {
			return Value{}, err
		}
		elems = append(elems, row)
	}
	if err := d.checkCount(len(elems), h.length, "tabular rows", last); err != nil {
		return Value{}, err
	}
	if d.cfg.strict {
		if first != 0 {
			if b := d.sc.blankBetween(first, last); b != 0 {
				return Value{}, errAt(b, "blank lines inside tabular array are not allowed in strict mode")
			}
		}
		if l, ok := d.sc.peek(); ok && l.depth == rowDepth && !strings.HasPrefix(l.content, "- ") && isDataRow(l.content, h.delim) {
			return Value{}, errAt(l.num, "expected %d tabular rows, but found more", h.length)
		}
	}
	return arrayValue(elems), nil
}

// plainFields reports whether rows of h can share its field list as their
// keys: no field repeats, and none is expanded by path expansion.
func (d *decoder) plainFields(h arrayHeader) bool {
	for i, f := range h.fields {
		for _, g := range h.fields[:i] {
			if f == g {
				return false
			}
		}
		if d.cfg.expand && !h.fieldQuoted[i] && strings.IndexByte(f, '.') >= 0 {
			return false
		}
	}
	return true
}

// row builds the object for one tabular row. Missing cells (possible only
// in non-strict mode) leave their fields out; extra cells are dropped.
func (d *decoder) row(h arrayHeader, tokens []string, plain bool, num int) (Value, error) {
	if plain {
		n := min(len(tokens), len(h.fields))
		c := d.mem.container()
		c.keys = h.fields[:n:n]
		c.vals = d.mem.values(n)
		c.depth = 1
		for i := range c.vals {
			v, err := parsePrimitiveToken(tokens[i])
			if err != nil {
				return Value{}, wrapAt(num, err)
			}
			c.vals[i] = v
		}
		for _, tok := range tokens[n:] { // still reject malformed extra cells
			if _, err := parsePrimitiveToken(tok); err != nil {
				return Value{}, wrapAt(num, err)
			}
		}
		return Value{kind: KindObject, c: c}, nil
	}
	ob := d.newObject()
	ob.rows = true
	for i, tok := range tokens {
		v, err := parsePrimitiveToken(tok)
		if err != nil {
			return Value{}, wrapAt(num, err)
		}
		if i < len(h.fields) {
			ob.add(h.fields[i], h.fieldQuoted[i], v, num)
		}
	}
	return ob.finish()
}

func isListItem(content string) bool {
	return content == "-" || strings.HasPrefix(content, "- ")
}

func (d *decoder) listArray(h arrayHeader, baseDepth int, hl line) (Value, error) {
	itemDepth := baseDepth + 1
	elems := make([]Value, 0, min(h.length, maxPrealloc))
	first, last := 0, hl.num
	for len(elems) < h.length {
		l, ok := d.sc.peek()
		if !ok || l.depth != itemDepth || !isListItem(l.content) {
			break
		}
		if first == 0 {
			first = l.num
		}
		if err := d.spend(1, l.num); err != nil {
			return Value{}, err
		}
		v, err := d.listItem(itemDepth)
		if err != nil {
			return Value{}, err
		}
		last = d.sc.last
		elems = append(elems, v)
	}
	if err := d.checkCount(len(elems), h.length, "list array items", last); err != nil {
		return Value{}, err
	}
	if d.cfg.strict {
		if first != 0 {
			if b := d.sc.blankBetween(first, last); b != 0 {
				return Value{}, errAt(b, "blank lines inside list array are not allowed in strict mode")
			}
		}
		if l, ok := d.sc.peek(); ok && l.depth == itemDepth && strings.HasPrefix(l.content, "- ") {
			return Value{}, errAt(l.num, "expected %d list array items, but found more", h.length)
		}
	}
	return arrayValue(elems), nil
}

// listItem decodes one "- …" item at baseDepth (spec §9.4, §10).
func (d *decoder) listItem(baseDepth int) (Value, error) {
	l, _ := d.sc.nextLine()
	if l.content == "-" {
		return emptyObject(), nil
	}
	after := l.content[2:]
	switch jsTrim(after) {
	case "":
		return emptyObject(), nil
	case "[]":
		return emptyArray(), nil
	}
	item := line{num: l.num, depth: l.depth, content: after}
	h, ok, err := parseArrayHeader(after, d.cfg.strict)
	if err != nil {
		return Value{}, wrapAt(l.num, err)
	}
	if ok && isArrayHeaderContent(after) {
		// "- [M]: …" or "- [M]:" with items below: an array element.
		return d.arrayFromHeader(h, baseDepth, item)
	}
	var ob *decodedObject
	switch {
	case ok && h.hasKey && h.fields != nil:
		// "- key[N]{…}:": a tabular first field, rows at +2 (spec §10).
		ob = d.newObject()
		v, err := d.arrayFromHeader(h, baseDepth+1, item)
		if err != nil {
			return Value{}, err
		}
		ob.add(h.key, h.keyQuoted, v, l.num)
	case findUnquoted(after, ':', 0) >= 0:
		ob = d.newObject()
		if err := d.keyValue(item, baseDepth+1, ob); err != nil {
			return Value{}, err
		}
	default:
		v, err := parsePrimitiveToken(after)
		return v, wrapAt(l.num, err)
	}
	// Further fields of the item's object sit one level below the hyphen.
	for {
		next, ok := d.sc.peek()
		if !ok || next.depth != baseDepth+1 || strings.HasPrefix(next.content, "- ") {
			break
		}
		d.sc.advance()
		if err := d.keyValue(next, baseDepth+1, ob); err != nil {
			return Value{}, err
		}
	}
	return ob.finish()
}

func emptyObject() Value { return Value{kind: KindObject, c: &container{keys: []string{}, depth: 1}} }
func emptyArray() Value  { return Value{kind: KindArray, c: &container{depth: 1}} }

// arrayValue wraps decoded elements, recording their depth.
func arrayValue(elems []Value) Value {
	c := &container{vals: elems}
	c.setDepth()
	return Value{kind: KindArray, c: c}
}
