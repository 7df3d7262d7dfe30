package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestCallResult_Payload(t *testing.T) {
	tests := []struct {
		name     string
		result   string // a tools/call result as a server sends it
		wantKind payloadKind
		want     string
		wantPart string // the answer's "saved"; empty: not checked
	}{
		{
			name:     "structured content wins",
			result:   `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"b":2}}`,
			wantKind: payloadJSON, want: `{"b":2}`,
		},
		{
			name:     "structured content wrapping the text is the text",
			result:   `{"content":[{"type":"text","text":"line one\nline two\n"}],"structuredContent":{"content":"line one\nline two\n"}}`,
			wantKind: payloadText, want: "line one\nline two\n", wantPart: savedText,
		},
		{
			name:     "wrapped text holding JSON is that JSON",
			result:   `{"content":[{"type":"text","text":"[\n  {\"name\": \"a\"}\n]"}],"structuredContent":{"content":"[\n  {\"name\": \"a\"}\n]"}}`,
			wantKind: payloadJSON, want: `[` + "\n" + `  {"name": "a"}` + "\n" + `]`, wantPart: savedText,
		},
		{
			name:     "a wrapper under another key",
			result:   `{"content":[{"type":"text","text":"a\nb"}],"structuredContent":{"result":"a\nb"}}`,
			wantKind: payloadText, want: "a\nb", wantPart: savedText,
		},
		{
			name:     "a wrapper holding more than the text is its string",
			result:   `{"content":[{"type":"text","text":"b\n"}],"structuredContent":{"content":"a\nb\nc\n"}}`,
			wantKind: payloadText, want: "a\nb\nc\n", wantPart: "structuredContent.content",
		},
		{
			name:     "a string member that does not hold the text is data",
			result:   `{"content":[{"type":"text","text":"done"}],"structuredContent":{"status":"ok"}}`,
			wantKind: payloadJSON, want: `{"status":"ok"}`, wantPart: savedStructured,
		},
		{
			name:     "two members are data, even if one is the text",
			result:   `{"content":[{"type":"text","text":"a"}],"structuredContent":{"content":"a","n":1}}`,
			wantKind: payloadJSON, want: `{"content":"a","n":1}`, wantPart: savedStructured,
		},
		{
			name:     "one non-string member is data",
			result:   `{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`,
			wantKind: payloadJSON, want: `{"sum":3}`, wantPart: savedStructured,
		},
		{
			name:     "empty text wraps nothing",
			result:   `{"content":[{"type":"text","text":""}],"structuredContent":{"content":""}}`,
			wantKind: payloadJSON, want: `{"content":""}`, wantPart: savedStructured,
		},
		{
			name:     "a wrapper beside several items is data",
			result:   `{"content":[{"type":"text","text":"a"},{"type":"text","text":"a"}],"structuredContent":{"content":"a"}}`,
			wantKind: payloadJSON, want: `{"content":"a"}`, wantPart: savedStructured,
		},
		{
			name:     "a wrapper beside an image is data",
			result:   `{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"structuredContent":{"content":"aGVsbG8="}}`,
			wantKind: payloadJSON, want: `{"content":"aGVsbG8="}`, wantPart: savedStructured,
		},
		{
			name:     "an array of the text is data",
			result:   `{"content":[{"type":"text","text":"a"}],"structuredContent":["a"]}`,
			wantKind: payloadJSON, want: `["a"]`, wantPart: savedStructured,
		},
		{
			name:     "structured content is trimmed",
			result:   `{"content":[],"structuredContent":  [1, 2] }`,
			wantKind: payloadJSON, want: `[1, 2]`,
		},
		{
			name:     "null structured content is absent",
			result:   `{"content":[{"type":"text","text":"hello"}],"structuredContent":null}`,
			wantKind: payloadText, want: `hello`,
		},
		{
			name:     "text holding an object",
			result:   `{"content":[{"type":"text","text":"{\"rows\":[1,2,3]}"}]}`,
			wantKind: payloadJSON, want: `{"rows":[1,2,3]}`,
		},
		{
			name:     "text holding an array with spaces around",
			result:   `{"content":[{"type":"text","text":"\n  [{\"id\":1}]  \n"}]}`,
			wantKind: payloadJSON, want: `[{"id":1}]`,
		},
		{
			name:     "plain text",
			result:   `{"content":[{"type":"text","text":"line one\nline two\n"}]}`,
			wantKind: payloadText, want: "line one\nline two\n",
		},
		{
			name:     "text that only looks like JSON",
			result:   `{"content":[{"type":"text","text":"{not json}"}]}`,
			wantKind: payloadText, want: "{not json}",
		},
		{
			name:     "text holding a JSON scalar stays text",
			result:   `{"content":[{"type":"text","text":"42"}]}`,
			wantKind: payloadText, want: "42",
		},
		{
			name:     "empty text",
			result:   `{"content":[{"type":"text","text":""}]}`,
			wantKind: payloadText, want: "",
		},
		{
			name:     "several text items",
			result:   `{"content":[{"type":"text","text":"a"},{"type":"text","text":"{\"b\":1}"}]}`,
			wantKind: payloadJSON, want: `[{"type":"text","text":"a"},{"type":"text","text":"{\"b\":1}"}]`, wantPart: savedContent,
		},
		{
			name:     "lone image",
			result:   `{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}`,
			wantKind: payloadJSON, want: `[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]`,
		},
		{
			name:     "text and resource keep everything",
			result:   `{"content":[{"type":"text","text":"see file"},{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]}`,
			wantKind: payloadJSON, want: `[{"type":"text","text":"see file"},{"type":"resource","resource":{"uri":"file:///a","text":"x"}}]`,
		},
		{
			name:     "no content",
			result:   `{"content":[]}`,
			wantKind: payloadJSON, want: `[]`,
		},
		{
			name:     "missing content",
			result:   `{}`,
			wantKind: payloadJSON, want: `null`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r callResult
			if err := json.Unmarshal([]byte(tt.result), &r); err != nil {
				t.Fatal(err)
			}
			kind, got, part := r.payload()
			if kind != tt.wantKind {
				t.Errorf("payload() kind = %d, want %d", kind, tt.wantKind)
			}
			if tt.wantPart != "" && part != tt.wantPart {
				t.Errorf("payload() part = %q, want %q", part, tt.wantPart)
			}
			if string(got) != tt.want {
				t.Errorf("payload() = %s, want %s", got, tt.want)
			}
		})
	}
}

// indentCases are JSON documents writeIndented must reproduce exactly as
// json.Indent does.
var indentCases = []struct {
	name string
	in   string
}{
	{"empty object", `{}`},
	{"empty array", `[]`},
	{"empty with space", `{ }`},
	{"empty array with newline", "[\n]"},
	{"number", `42`},
	{"negative float", `-1.5e-10`},
	{"string", `"hello"`},
	{"true", `true`},
	{"null", `null`},
	{"flat object", `{"a":1,"b":"two","c":true,"d":null}`},
	{"flat array", `[1,2,3]`},
	{"nested", `{"a":{"b":{"c":[1,[2,[3,{}]],[]]}},"e":[{}],"f":[[]]}`},
	{"array of objects", `[{"id":1,"tags":["x","y"]},{"id":2,"tags":[]}]`},
	{"spaced input", " { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } } "},
	{"already indented", "{\n  \"a\": [\n    1\n  ]\n}"},
	{"crlf input", "{\r\n\"a\":\r\n1\r\n}"},
	{"strings with structure characters", `{"{":"}","[":"]","a,b":"c:d","e":"{\"x\": [1, 2]}"}`},
	{"escaped quotes", `["\"","\"\"","a\"b\"c","\\\""]`},
	{"backslashes", `["\\","\\\\","C:\\path\\to\\","\\\"}"]`},
	{"escapes", `"\n\t\r\b\f\/\u0041\u00e9\ud83d\ude00"`},
	{"unicode", `{"日本":"語","emoji":"😀","é":["ü"]}`},
	{"spaces inside strings", `{"a b":"  c  d  ","e":"\t"}`},
	{"numbers", `[0,-0,1e3,1E+3,-2.25e-7,123456789012345678901234567890,0.1]`},
	{"deep", strings.Repeat("[", 50) + strings.Repeat("]", 50)},
	{"deep non-empty", strings.Repeat(`{"a":`, 30) + "1" + strings.Repeat("}", 30)},
	{"empty key", `{"":""}`},
	{"html escapes", `{"\u003cb\u003e":"a \u0026 b \u003C\u003E","kept":"\\u003c","mixed":"\\\u003c\u0026\u0041"}`},
}

func indentRef(t testing.TB, in []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, in, "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", in, err)
	}
	// writeIndented also writes < > & themselves where src escaped them
	// (an even run of backslashes before the escape leaves it an escape).
	out := buf.Bytes()
	for {
		next := htmlEscapeRef.ReplaceAllFunc(out, func(m []byte) []byte {
			r := map[string]string{"3c": "<", "3e": ">", "26": "&"}[strings.ToLower(string(m[len(m)-2:]))]
			return append(bytes.Clone(m[:len(m)-6]), r...)
		})
		if bytes.Equal(next, out) {
			break
		}
		out = next
	}
	// json.Indent copies trailing whitespace of src; writeIndented drops
	// it and ends with exactly one newline.
	out = append(bytes.TrimRight(out, " \t\r\n"), '\n')
	// Indentation stops at MaxIndentDepth levels. Indented JSON holds no
	// raw newline in a string, so every line's leading spaces are its
	// indentation.
	lines := bytes.Split(out, []byte("\n"))
	for i, line := range lines {
		rest := bytes.TrimLeft(line, " ")
		if indent := len(line) - len(rest); indent > 2*MaxIndentDepth {
			lines[i] = line[indent-2*MaxIndentDepth:]
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// writeIndentedAll is writeIndented as the spill path calls it.
func writeIndentedAll(w io.Writer, data []byte) error {
	return writeIndented(w, data, layoutIndented(data))
}

var htmlEscapeRef = regexp.MustCompile(`(?i)(?:^|[^\\])(?:\\\\)*\\u00(?:3c|3e|26)`)

func TestWriteIndented(t *testing.T) {
	for _, tt := range indentCases {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			if !json.Valid(in) {
				t.Fatalf("test input is not valid JSON: %s", in)
			}
			var out bytes.Buffer
			if err := writeIndentedAll(&out, in); err != nil {
				t.Fatal(err)
			}
			got := out.Bytes()
			if size := layoutIndented(in).size; size != int64(len(got)) {
				t.Errorf("layoutIndented says %d bytes, writeIndented wrote %d", size, len(got))
			}
			if want := indentRef(t, in); !bytes.Equal(got, want) {
				t.Errorf("writeIndented(%s) =\n%s\nwant (json.Indent)\n%s", in, got, want)
			}
			if !json.Valid(got) {
				t.Fatalf("output is not valid JSON:\n%s", got)
			}
			var a, b any
			if err := json.Unmarshal(in, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("output means %v, input %v", b, a)
			}
			trimmed := strings.TrimSpace(tt.in)
			nonEmptyContainer := (trimmed[0] == '{' || trimmed[0] == '[') && !isEmptyContainer(trimmed)
			if lines := bytes.Count(got, []byte("\n")); nonEmptyContainer && lines < 2 {
				t.Errorf("non-empty container on %d line(s):\n%s", lines, got)
			}
			if !bytes.HasSuffix(got, []byte("\n")) || bytes.HasSuffix(got, []byte("\n\n")) {
				t.Errorf("output does not end in exactly one newline: %q", got)
			}
		})
	}
}

func isEmptyContainer(s string) bool {
	inner := strings.TrimSpace(s[1 : len(s)-1])
	return inner == ""
}

// TestWriteIndented_TrailingSpace pins the one deliberate difference from
// json.Indent: trailing whitespace of the input is not copied.
func TestWriteIndented_TrailingSpace(t *testing.T) {
	in := []byte("{\"a\":1}  \n\n")
	var ref bytes.Buffer
	if err := json.Indent(&ref, in, "", "  "); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": 1\n}  \n\n"; ref.String() != want {
		t.Fatalf("json.Indent = %q, want %q", ref.String(), want)
	}
	var out bytes.Buffer
	if err := writeIndentedAll(&out, in); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": 1\n}\n"; out.String() != want {
		t.Errorf("writeIndented = %q, want %q", out.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

var errWrite = errors.New("write failed")

func TestWriteIndented_WriteError(t *testing.T) {
	big := []byte("[" + strings.Repeat(`"xxxxxxxxxxxxxxxx",`, 10000) + `1]`)
	if err := writeIndentedAll(failingWriter{}, big); !errors.Is(err, errWrite) {
		t.Errorf("writeIndented to a failing writer = %v, want %v", err, errWrite)
	}
}

func FuzzWriteIndented(f *testing.F) {
	for _, tt := range indentCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			t.Skip()
		}
		var out bytes.Buffer
		if err := writeIndentedAll(&out, in); err != nil {
			t.Fatal(err)
		}
		if layoutIndented(in).compact() {
			if want := append(bytes.Clone(in), '\n'); !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("writeIndented(%q) past MaxIndentedNesting = %q, want it as it came", in, out.Bytes())
			}
			return
		}
		if size := layoutIndented(in).size; size != int64(out.Len()) {
			t.Fatalf("layoutIndented(%q) says %d bytes, writeIndented wrote %d", in, size, out.Len())
		}
		if want := indentRef(t, in); !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("writeIndented(%q) =\n%q\nwant (json.Indent)\n%q", in, out.Bytes(), want)
		}
	})
}

// Indentation is bounded: nesting n levels deep costs O(n) bytes, not the
// O(n²) of unbounded indentation (20 KB of brackets made a 763 MiB file),
// and nesting past MaxIndentedNesting is written as it came.
func TestWriteIndented_deep(t *testing.T) {
	nested := func(n int, leaf string) []byte {
		return []byte(strings.Repeat(`{"a":[`, n) + leaf + strings.Repeat(`]}`, n))
	}
	tests := []struct {
		name    string
		in      []byte
		compact bool
	}{
		{"at the indent limit", nested(MaxIndentDepth/2, `"x"`), false},
		{"past the indent limit", nested(2500, `"x"`), false},
		{"at the nesting limit", nested(MaxIndentedNesting/2, `1`), false},
		{"past the nesting limit", nested(MaxIndentedNesting/2+1, `1`), true},
		{"far past the nesting limit", []byte(strings.Repeat("[", 200000) + strings.Repeat("]", 200000)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			layout := layoutIndented(tt.in)
			if layout.compact() != tt.compact {
				t.Fatalf("depth %d: compact = %v, want %v", layout.depth, layout.compact(), tt.compact)
			}
			var out bytes.Buffer
			if err := writeIndented(&out, tt.in, layout); err != nil {
				t.Fatal(err)
			}
			if int64(out.Len()) != layout.size {
				t.Errorf("wrote %d bytes, layout said %d", out.Len(), layout.size)
			}
			if tt.compact {
				if !bytes.Equal(out.Bytes(), append(bytes.Clone(tt.in), '\n')) {
					t.Errorf("nesting past the limit was not written as it came: %.100q", out.Bytes())
				}
				return
			}
			// Each byte of input becomes at most one line of bounded length.
			if limit := int64(len(tt.in)) * (2*MaxIndentDepth + 3); int64(out.Len()) > limit {
				t.Errorf("%d bytes of input made %d bytes, more than %d", len(tt.in), out.Len(), limit)
			}
			for i, line := range bytes.Split(out.Bytes(), []byte("\n")) {
				if indent := len(line) - len(bytes.TrimLeft(line, " ")); indent > 2*MaxIndentDepth {
					t.Fatalf("line %d is indented %d spaces, more than 2*MaxIndentDepth", i+1, indent)
				}
			}
			var v any
			dec := json.NewDecoder(&out)
			if err := dec.Decode(&v); err != nil {
				t.Errorf("output is not JSON: %v", err)
			}
		})
	}
}

// BenchmarkWriteIndented measures saving a typical 8 MB JSON result (an
// array of flat objects) as a result file, with its layout measured first
// as the spill path does.
func BenchmarkWriteIndented(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := 0; buf.Len() < 8<<20; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id":%d,"path":"src/pkg/file%d.go","size":%d,"tags":["a","b"],"meta":{"mode":"0644","owner":"u\u003c%d\u003e"}}`, i, i, i*31, i)
	}
	buf.WriteByte(']')
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := writeIndentedAll(io.Discard, data); err != nil {
			b.Fatal(err)
		}
	}
}
