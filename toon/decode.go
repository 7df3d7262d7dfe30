package toon

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeError reports malformed TOON input and the 1-based line where it was
// found.
type DecodeError struct {
	Line int
	Msg  string
}

func (e *DecodeError) Error() string { return fmt.Sprintf("toon: line %d: %s", e.Line, e.Msg) }

// Decode parses a TOON document (spec 3.3) into a Value.
//
// Parsing follows the reference decoder @toon-format/toon@2.3.1; see
// [DecodeOptions] for what strict mode checks. Every error is a
// *[DecodeError] naming the offending line, except for invalid options.
// Invalid UTF-8 in data is replaced by U+FFFD. Numbers are decoded to their exact value in
// canonical form (see the package documentation).
func Decode(data []byte, opts DecodeOptions) (Value, error) {
	cfg, err := opts.config()
	if err != nil {
		return Value{}, err
	}
	src := string(data)
	if !utf8.ValidString(src) {
		src = strings.ToValidUTF8(src, "\uFFFD")
	}
	d := decoder{cfg: cfg, sc: scanner{src: src, indent: cfg.indent, strict: cfg.strict}}
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
				s.err = &DecodeError{s.num, "tabs are not allowed in indentation in strict mode"}
				return line{}, false
			}
			if spaces%s.indent != 0 {
				s.err = &DecodeError{s.num, fmt.Sprintf("indentation must be an exact multiple of %d, but found %d spaces", s.indent, spaces)}
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
	cfg decodeConfig
	sc  scanner
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
	return Value{kind: KindArray, c: &container{vals: elems}}, nil
}

// maxPrealloc caps capacity reserved from a declared array length, which is
// untrusted input.
const maxPrealloc = 1024

func (d *decoder) tabularArray(h arrayHeader, baseDepth int, hl line) (Value, error) {
	rowDepth := baseDepth + 1
	elems := make([]Value, 0, min(h.length, maxPrealloc))
	first, last := 0, hl.num
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
		tokens := splitDelimited(l.content, h.delim)
		if err := d.checkCount(len(tokens), len(h.fields), "tabular row values", l.num); err != nil {
			return Value{}, err
		}
		ob := d.newObject()
		ob.rows = true
		for i, tok := range tokens {
			v, err := parsePrimitiveToken(tok)
			if err != nil {
				return Value{}, wrapAt(l.num, err)
			}
			if i < len(h.fields) {
				ob.add(h.fields[i], h.fieldQuoted[i], v, l.num)
			}
		}
		row, err := ob.finish()
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
	return Value{kind: KindArray, c: &container{vals: elems}}, nil
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
	return Value{kind: KindArray, c: &container{vals: elems}}, nil
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

func emptyObject() Value { return Value{kind: KindObject, c: &container{keys: []string{}}} }
func emptyArray() Value  { return Value{kind: KindArray, c: &container{}} }

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
	if s == "" {
		return nil
	}
	tokens := make([]string, 0, 8)
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
