package dispatch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"dispatch/rawjson"
	"dispatch/spill"
)

// callResult is a downstream tools/call result, kept raw so that every
// content item reaches the agent exactly as the server sent it.
type callResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
	Meta              json.RawMessage   `json:"_meta,omitempty"`
}

func (r *callResult) hasStructured() bool {
	s := bytes.TrimSpace(r.StructuredContent)
	return len(s) > 0 && string(s) != "null"
}

// textOnly reports whether every content item is text.
func (r *callResult) textOnly() bool {
	for _, item := range r.Content {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(item, &head); err != nil || head.Type != "text" {
			return false
		}
	}
	return true
}

// payloadKind is what a result's payload is.
type payloadKind int

const (
	payloadJSON payloadKind = iota // a JSON value
	payloadText                    // plain text
)

// Which part of a result a file holds, as the answer's "saved" says.
const (
	savedStructured = "structuredContent"
	savedText       = "text"    // the lone text item (or the JSON it holds)
	savedContent    = "content" // the whole content list
	savedResult     = "result"  // the whole result, its _meta too deep for the answer (spillCallResult)
)

// payload picks what a spill file holds, so the file can feed the next
// tool, and names the part it took: structuredContent when present, unless
// it only wraps the text (see textWrapper); else a lone text item that
// parses as a JSON object or array, as that value; else a lone text item as
// text; else the whole content list, so nothing is dropped.
func (r *callResult) payload() (payloadKind, []byte, string) {
	text, isText := r.loneText()
	if r.hasStructured() {
		if isText {
			if key, wrapped, ok := textWrapper(r.StructuredContent, text); ok {
				kind, data := textPayload(wrapped)
				if wrapped == text {
					return kind, data, savedText
				}
				return kind, data, savedStructured + "." + key
			}
		}
		return payloadJSON, bytes.TrimSpace(r.StructuredContent), savedStructured
	}
	if isText {
		kind, data := textPayload(text)
		return kind, data, savedText
	}
	list, err := marshalJSON(r.Content)
	if err != nil { // raw messages that were parsed once cannot fail
		list = []byte("[]")
	}
	return payloadJSON, list, savedContent
}

// loneText returns the text of a result whose content is one text item.
func (r *callResult) loneText() (string, bool) {
	if len(r.Content) != 1 {
		return "", false
	}
	// gjson, not json.Unmarshal: the text is unescaped once, and not
	// copied at all when it has no escapes. The item was checked as JSON
	// when the result was decoded.
	item := gjson.Parse(jsonView(r.Content[0]))
	text := item.Get("text")
	if !item.IsObject() || item.Get("type").String() != "text" || text.Type != gjson.String {
		return "", false
	}
	return text.Str, true
}

// loneTextToken is loneText's text still in its JSON string token.
func (r *callResult) loneTextToken() ([]byte, bool) {
	if len(r.Content) != 1 {
		return nil, false
	}
	item := r.Content[0]
	if t, ok := rawStringMember(item, "type"); !ok || string(t) != `"text"` {
		return nil, false
	}
	return rawStringMember(item, "text")
}

// textWrapper reports whether structured content only wraps the text
// content, as the filesystem server's {"content": "<the text>"} does: an
// object of one string member equal to the text, or holding it whole. Such
// a wrapper saved as JSON is one escaped line that grep, head and slice
// cannot use; its string is the payload. It returns the member's key and
// string.
func textWrapper(structured json.RawMessage, text string) (string, string, bool) {
	needle := strings.TrimSpace(text)
	root := gjson.ParseBytes(structured)
	if needle == "" || !root.IsObject() {
		return "", "", false
	}
	var key, value string
	members, isString := 0, false
	root.ForEach(func(k, v gjson.Result) bool {
		members++
		key, value, isString = k.String(), v.String(), v.Type == gjson.String
		return members == 1
	})
	if members != 1 || !isString {
		return "", "", false
	}
	if value != text && !strings.Contains(value, needle) {
		return "", "", false
	}
	return key, value, true
}

// textPayload is a text's payload: the JSON object or array it holds, or
// the text itself.
//
// The bytes are the text's own, not a copy (a text may be hundreds of
// megabytes): they are only read, by the encoders and describeShape.
func textPayload(text string) (payloadKind, []byte) {
	data := stringBytes(text)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return payloadJSON, trimmed
	}
	return payloadText, data
}

// MaxIndentDepth is how many levels of nesting a result file indents;
// deeper lines keep the deepest indentation (2*MaxIndentDepth spaces).
// Unbounded indentation grows with the square of the depth: 20 KB of
// nested brackets would make a 763 MiB file. With the bound a file is at
// most about 2*MaxIndentDepth+2 bytes a line longer than its JSON.
const MaxIndentDepth = 32

// MaxIndentedNesting is the deepest nesting of arrays and objects a result
// file is indented for. A result nested deeper is saved on one line as the
// server sent it, whole: no tool reads it by structure anyway (query and
// argumentsPath stop at the same 10,000 levels, spill.MaxQueryDepth), while
// grep and read still do.
const MaxIndentedNesting = spill.MaxQueryDepth

// indentLayout is what writeIndented will write for a JSON value: its
// size in bytes and the deepest nesting of arrays and objects in it.
type indentLayout struct {
	size  int64
	depth int
}

// compact reports whether the value is written as it came (see
// MaxIndentedNesting).
func (l indentLayout) compact() bool { return l.depth > MaxIndentedNesting }

// layoutIndented measures, without writing, what writeIndented writes for
// data: one pass, no allocation, whatever the depth. It follows
// writeIndented's rules exactly (TestWriteIndented_layout holds them
// together).
func layoutIndented(data []byte) indentLayout {
	var size int64
	depth, deepest := 0, 0
	inString := false
	newline := func(d int) int64 { return 1 + 2*int64(indentLevels(d)) }
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			j := stringRun(data, i)
			size += int64(j - i)
			if i = j; i >= len(data) {
				break
			}
			if data[i] == '"' {
				size++
				inString = false
				continue
			}
			if _, ok := htmlEscape(data[i:]); ok {
				size++
				i += 5
				continue
			}
			size++
			if i+1 < len(data) {
				i++
				size++
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			size++
		case '{', '[':
			j := skipSpace(data, i+1)
			if j < len(data) && (data[j] == '}' || data[j] == ']') {
				size += 2
				i = j
				deepest = max(deepest, depth+1)
				continue
			}
			depth++
			deepest = max(deepest, depth)
			size += 1 + newline(depth)
		case '}', ']':
			depth--
			size += newline(depth) + 1
		case ',':
			size += 1 + newline(depth)
		case ':':
			size += 2
		default:
			size++
		}
	}
	size++ // the final newline
	l := indentLayout{size: size, depth: deepest}
	if l.compact() {
		l.size = int64(len(data)) + 1
	}
	return l
}

// stringRun returns the index of the first quote or backslash at or after
// i: inside a string, the bytes before it are copied as they are.
func stringRun(data []byte, i int) int {
	for i < len(data) && data[i] != '"' && data[i] != '\\' {
		i++
	}
	return i
}

// indentLevels is how many levels a line at depth d is indented: d, but
// at most MaxIndentDepth, and never below 0 (which JSON that is not valid,
// printed by the command line, could reach).
func indentLevels(d int) int { return max(0, min(d, MaxIndentDepth)) }

// toonFits reports whether JSON data is shallow enough to be written as
// TOON: at most MaxIndentDepth levels. TOON's indentation is its syntax and
// cannot stop growing, so deeper nesting costs the square of the depth (18
// KB of nested arrays made a 77 MiB file) and is never shorter than JSON.
func toonFits(data []byte) bool { return JSONNesting(data) <= MaxIndentDepth }

// JSONNesting returns the deepest nesting of arrays and objects in JSON
// data, in one pass and without recursion however deep it is.
func JSONNesting(data []byte) int { return layoutIndented(data).depth }

// WriteJSONIndented writes JSON data to w as a result file holds it:
// indented at most MaxIndentDepth levels, and as it came past
// MaxIndentedNesting; for the command line, which prints results.
func WriteJSONIndented(w io.Writer, data []byte) error {
	return writeIndented(w, data, layoutIndented(data))
}

// writeIndented writes valid JSON data to w indented by two spaces, one
// value per line, streaming: unlike json.Indent it needs no second copy of
// a result that may be hundreds of megabytes. Indentation stops growing at
// MaxIndentDepth; data nested deeper than MaxIndentedNesting (layout says)
// is written as it is. It stops at the first failed write (a full store, a
// cancelled call), never generating the rest.
func writeIndented(w io.Writer, data []byte, layout indentLayout) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if layout.compact() {
		if _, err := bw.Write(data); err != nil {
			return err
		}
		bw.WriteByte('\n')
		return bw.Flush()
	}
	depth := 0
	inString := false
	indent := strings.Repeat("  ", MaxIndentDepth)
	newline := func(d int) error {
		bw.WriteByte('\n')
		_, err := bw.WriteString(indent[:2*indentLevels(d)])
		return err
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			j := stringRun(data, i)
			bw.Write(data[i:j])
			if i = j; i >= len(data) {
				break
			}
			if data[i] == '"' {
				bw.WriteByte('"')
				inString = false
				continue
			}
			if r, ok := htmlEscape(data[i:]); ok {
				// Go servers write < > & as \u003c \u003e \u0026; the
				// characters themselves are the same JSON and grep as typed.
				bw.WriteByte(r)
				i += 5
				continue
			}
			bw.WriteByte('\\')
			if i+1 < len(data) {
				i++
				bw.WriteByte(data[i])
			}
			continue
		}
		var err error
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			err = bw.WriteByte(c)
		case '{', '[':
			// Keep empty containers on one line.
			j := skipSpace(data, i+1)
			if j < len(data) && (data[j] == '}' || data[j] == ']') {
				bw.WriteByte(c)
				err = bw.WriteByte(data[j])
				i = j
				break
			}
			bw.WriteByte(c)
			depth++
			err = newline(depth)
		case '}', ']':
			depth--
			newline(depth)
			err = bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			err = newline(depth)
		case ':':
			_, err = bw.WriteString(": ")
		default:
			err = bw.WriteByte(c)
		}
		if err != nil {
			return err
		}
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// marshalJSON is json.Marshal without HTML escaping (rawjson.Marshal).
func marshalJSON(v any) ([]byte, error) { return rawjson.Marshal(v) }

// htmlEscape reports whether b starts with the \u escape of '<', '>' or
// '&', and which.
func htmlEscape(b []byte) (byte, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' || string(b[2:4]) != "00" {
		return 0, false
	}
	switch strings.ToLower(string(b[4:6])) {
	case "3c":
		return '<', true
	case "3e":
		return '>', true
	case "26":
		return '&', true
	}
	return 0, false
}

// TextHoldsStructured reports whether the response's text already carries
// its structuredContent, so that a reader shown the text misses nothing:
// there is none, the text is the same JSON value, or the structured
// content only wraps the text. A text summary of richer structured content
// ("3 items, 203 bytes") does not hold it; "5" holds {"sum": 5}.
func (c *CallResponse) TextHoldsStructured() bool {
	r := callResult{Content: c.Content, StructuredContent: c.StructuredContent}
	if !r.hasStructured() {
		return true
	}
	for _, item := range c.Content {
		var t struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(item, &t) != nil || t.Type != "text" {
			continue
		}
		if _, wrapped, ok := textWrapper(c.StructuredContent, t.Text); ok && wrapped == t.Text {
			return true
		}
		if sameJSON([]byte(t.Text), c.StructuredContent) || soleMember(c.StructuredContent, t.Text) {
			return true
		}
	}
	return false
}

// soleMember reports whether structured is an object of one member whose
// value is the text's JSON value, as {"sum": 5} for the text "5".
func soleMember(structured json.RawMessage, text string) bool {
	root := gjson.ParseBytes(structured)
	if !root.IsObject() {
		return false
	}
	var value gjson.Result
	members := 0
	root.ForEach(func(_, v gjson.Result) bool {
		members++
		value = v
		return members == 1
	})
	return members == 1 && sameJSON([]byte(value.Raw), []byte(text))
}

// sameJSON reports whether a and b are the same JSON value, whatever
// their spacing and key order.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// stringBytes is a read-only view of s as bytes, for a text that may be
// hundreds of megabytes: nothing may write to it.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
