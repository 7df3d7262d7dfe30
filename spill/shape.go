package spill

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Shape is the top-level structure of a JSON or TOON file.
type Shape struct {
	Kind     string   // "object", "array", "scalar", or "" (text, empty, unknown)
	Keys     []string // object: its first MaxKeys keys; array: those of its first element
	KeyCount int64    // how many keys there are in all (of the object or first element)
	Length   int64    // array: number of elements
	Notes    []string // anything odd: keys left out, malformed JSON, several values
}

// String describes the shape in one line, e.g.
// "object with 3 keys: a, b, c" or "array of 120 elements; first element keys: id, name".
func (s Shape) String() string {
	keys := func() string {
		list := strings.Join(s.Keys, ", ")
		if int64(len(s.Keys)) < s.KeyCount {
			list += fmt.Sprintf(", … (%d more)", s.KeyCount-int64(len(s.Keys)))
		}
		return list
	}
	var out string
	switch s.Kind {
	case "object":
		out = fmt.Sprintf("object with %d keys", s.KeyCount)
		if s.KeyCount > 0 {
			out += ": " + keys()
		}
	case "array":
		out = fmt.Sprintf("array of %d elements", s.Length)
		if s.KeyCount > 0 {
			out += "; first element keys: " + keys()
		}
	case "scalar":
		out = "a single scalar value"
	default:
		out = "no structure"
	}
	if len(s.Notes) > 0 {
		out += " (" + strings.Join(s.Notes, "; ") + ")"
	}
	return out
}

// maxKeyBytes bounds one key kept by the shape scanners.
const maxKeyBytes = 256

// jsonShaper finds the shape of a JSON document fed to it in pieces, with a
// byte-level scanner: memory stays flat however long a string or how deep
// the nesting is (encoding/json's Decoder.Token would hold a whole string
// token in memory). It does not validate; it notes unbalanced brackets.
type jsonShaper struct {
	maxKeys int
	shape   Shape

	depth     int64
	maxDepth  int64  // deepest nesting seen
	root      byte   // '{', '[' or 's' (scalar) once known
	elemKind  byte   // kind of the root array's first element
	commas    int64  // commas at depth 1 of a root array
	nonEmpty  bool   // the root array has an element
	inString  bool   // inside a string
	escape    bool   // the previous byte was a backslash in a string
	wantKey   bool   // the next string at this depth is a key we track
	keyDepth  int64  // depth whose keys we track (1 for an object, 2 for an array's first element)
	capturing bool   // the current string is such a key
	key       []byte // its raw bytes, at most maxKeyBytes
	keyLen    int64  // its full length
	done      bool   // the root value ended
	bad       string // why it looks malformed
	extra     bool   // something follows the root value
	offset    int64  // bytes seen
}

func newJSONShaper(maxKeys int) *jsonShaper { return &jsonShaper{maxKeys: maxKeys} }

func (j *jsonShaper) write(p []byte) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if j.inString {
			switch {
			case j.escape:
				j.escape = false
			case c == '\\':
				j.escape = true
			case c == '"':
				j.inString = false
				if j.capturing {
					j.endKey()
				}
				if j.depth == 0 {
					j.done = true
				}
				continue
			default:
				if !j.capturing {
					// Skip ahead to the next quote or backslash.
					k := i + 1
					for k < len(p) && p[k] != '"' && p[k] != '\\' {
						k++
					}
					i = k - 1
					continue
				}
			}
			if j.capturing {
				j.keyLen++
				if len(j.key) < maxKeyBytes {
					j.key = append(j.key, c)
				}
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if j.done {
			j.extra = true
			continue
		}
		switch c {
		case '"':
			j.startValue()
			if j.depth == 0 && j.root == 0 {
				j.root, j.shape.Kind = 's', "scalar"
			}
			j.inString = true
			if j.wantKey && j.depth == j.keyDepth {
				j.capturing, j.key, j.keyLen = true, j.key[:0], 0
			}
			j.wantKey = false
		case '{', '[':
			j.startValue()
			j.depth++
			j.maxDepth = max(j.maxDepth, j.depth)
			if j.depth == 1 {
				j.root = c
				if c == '{' {
					j.shape.Kind, j.keyDepth = "object", 1
				} else {
					j.shape.Kind = "array"
				}
			}
			if j.depth == 2 && j.root == '[' && j.commas == 0 {
				j.elemKind = c
				if c == '{' {
					j.keyDepth = 2
				}
			}
			j.wantKey = c == '{' && j.depth == j.keyDepth
		case '}', ']':
			if j.depth == 2 && j.root == '[' && j.keyDepth == 2 {
				j.keyDepth = 0 // the first element ended
			}
			j.depth--
			j.wantKey = false
			if j.depth < 0 {
				j.bad = fmt.Sprintf("unbalanced %q at byte %d", c, j.offset+int64(i))
				j.done = true
			} else if j.depth == 0 {
				j.done = true
			}
		case ',':
			if j.depth == 1 && j.root == '[' {
				j.commas++
			}
			j.wantKey = j.depth == j.keyDepth && j.keyDepth > 0
		case ':':
			j.wantKey = false
		default:
			j.startValue()
			if j.depth == 0 && j.root == 0 {
				j.root, j.shape.Kind = 's', "scalar"
			}
		}
	}
	j.offset += int64(len(p))
}

// startValue notes that a value starts at the current position.
func (j *jsonShaper) startValue() {
	if j.depth == 1 && j.root == '[' {
		j.nonEmpty = true
	}
}

func (j *jsonShaper) endKey() {
	j.capturing = false
	j.shape.KeyCount++
	if len(j.shape.Keys) >= j.maxKeys {
		return
	}
	var k string
	if err := json.Unmarshal(append(append([]byte{'"'}, j.key...), '"'), &k); err != nil {
		k = string(j.key) // a key cut inside an escape; show it raw
	}
	if j.keyLen > int64(len(j.key)) {
		k += cutMarker(j.keyLen - int64(len(j.key)))
	}
	j.shape.Keys = append(j.shape.Keys, printable(k))
}

// result finishes the scan.
func (j *jsonShaper) result() Shape {
	s := j.shape
	if j.root == '[' && j.nonEmpty {
		s.Length = j.commas + 1
	}
	switch {
	case j.bad != "":
		s.Notes = append(s.Notes, "malformed JSON: "+j.bad)
	case j.inString || j.depth > 0:
		s.Notes = append(s.Notes, "malformed JSON: it ends inside a value (truncated?)")
	case j.extra && j.root != 's':
		s.Notes = append(s.Notes, "more than one JSON value (JSON Lines?); this is the shape of the first")
	}
	if int64(len(s.Keys)) < s.KeyCount {
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d keys listed", len(s.Keys), s.KeyCount))
	}
	return s
}

// toonShaper finds the shape of a TOON document from its unindented lines:
// "key: value", "key[N]...:" and "key:" are top-level keys; "[N]...:" is a
// root array of N elements, whose "{a,b}" field list gives the first
// element's keys.
type toonShaper struct {
	maxKeys int
	shape   Shape
	lines   int64
}

func (t *toonShaper) line(text string) {
	t.lines++
	if text == "" || text[0] == ' ' || text[0] == '\t' {
		return
	}
	if text[0] == '[' {
		if t.lines == 1 || t.shape.Kind == "" {
			t.shape.Kind = "array"
			t.shape.Length, t.shape.Keys, t.shape.KeyCount = toonHeader(text, t.maxKeys)
		}
		return
	}
	key, ok := toonKey(text)
	if !ok {
		if t.shape.Kind == "" {
			t.shape.Kind = "scalar"
		}
		return
	}
	if t.shape.Kind == "scalar" || t.shape.Kind == "" {
		t.shape.Kind = "object"
	}
	if t.shape.Kind != "object" {
		return
	}
	t.shape.KeyCount++
	if len(t.shape.Keys) < t.maxKeys {
		t.shape.Keys = append(t.shape.Keys, key)
	}
}

func (t *toonShaper) result() Shape {
	s := t.shape
	if int64(len(s.Keys)) < s.KeyCount {
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d keys listed", len(s.Keys), s.KeyCount))
	}
	return s
}

// toonKey returns the key of an unindented "key...:" line.
func toonKey(text string) (string, bool) {
	if text[0] == '"' {
		// Quoted key: up to the closing unescaped quote.
		for i := 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				k, err := strconv.Unquote(text[:i+1])
				if err != nil {
					k = text[1:i]
				}
				rest := text[i+1:]
				return k, strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "{")
			}
		}
		return "", false
	}
	end := strings.IndexAny(text, ":[{")
	if end <= 0 {
		return "", false
	}
	if text[end] != ':' && !strings.Contains(text[end:], ":") {
		return "", false
	}
	return strings.TrimSpace(text[:end]), true
}

// toonHeader parses a root array header "[N<delim>]{f1,f2}:".
func toonHeader(text string, maxKeys int) (n int64, keys []string, count int64) {
	end := strings.IndexByte(text, ']')
	if end < 0 {
		return 0, nil, 0
	}
	digits := strings.TrimRight(text[1:end], "\t|,")
	digits = strings.TrimPrefix(digits, "#")
	n, _ = strconv.ParseInt(digits, 10, 64)
	rest := text[end+1:]
	if strings.HasPrefix(rest, "{") {
		if close := strings.IndexByte(rest, '}'); close > 0 {
			for _, f := range strings.FieldsFunc(rest[1:close], func(r rune) bool { return r == ',' || r == '|' || r == '\t' }) {
				count++
				if len(keys) < maxKeys {
					keys = append(keys, strings.Trim(f, `" `))
				}
			}
		}
	}
	return n, keys, count
}

// printable escapes control characters in a key so that it stays on one line.
func printable(s string) string {
	isControl := func(r rune) bool { return r < ' ' || r == 0x7f }
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
