package spill

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestLimits_Stat(t *testing.T) {
	var manyKeys strings.Builder
	manyKeys.WriteString("{")
	for i := range 60 {
		if i > 0 {
			manyKeys.WriteString(",")
		}
		fmt.Fprintf(&manyKeys, `"k%d":%d`, i, i)
	}
	manyKeys.WriteString("}")

	tests := []struct {
		name      string
		file      string
		content   string
		lim       Limits
		format    Format
		sniffed   bool
		kind      string
		keys      []string
		keyCount  int64
		length    int64
		lines     int64
		shapeText string
	}{
		{name: "json object", file: "a.json", content: "{\n  \"a\": 1,\n  \"b\": {\"x\": [1, {\"y\": 2}]},\n  \"c\": \"}{,\\\"\"\n}\n",
			format: FormatJSON, kind: "object", keys: []string{"a", "b", "c"}, keyCount: 3, lines: 5, shapeText: "object with 3 keys: a, b, c"},
		{name: "json array", file: "a.json", content: `[{"id":1,"name":"x","tags":{"t":1}},{"id":2,"other":3},{"id":3}]`,
			format: FormatJSON, kind: "array", keys: []string{"id", "name", "tags"}, keyCount: 3, length: 3, lines: 1,
			shapeText: "array of 3 elements; first element keys: id, name, tags"},
		{name: "array of scalars", file: "a.json", content: `["a,b", "c", 3]`, format: FormatJSON, kind: "array", length: 3, lines: 1},
		{name: "array of arrays", file: "a.json", content: `[[1,2],[3]]`, format: FormatJSON, kind: "array", length: 2, lines: 1},
		{name: "empty array", file: "a.json", content: ` [ ] `, format: FormatJSON, kind: "array", length: 0, lines: 1, shapeText: "array of 0 elements"},
		{name: "empty object", file: "a.json", content: `{}`, format: FormatJSON, kind: "object", lines: 1, shapeText: "object with 0 keys"},
		{name: "escaped key", file: "a.json", content: `{"a\"b\u00e9\n":1}`, format: FormatJSON, kind: "object", keys: []string{`a"bé\n`}, keyCount: 1, lines: 1},
		{name: "scalar", file: "a.json", content: `"just a string"`, format: FormatJSON, kind: "scalar", lines: 1},
		{name: "many keys", file: "a.json", content: manyKeys.String(), lim: Limits{MaxKeys: 3}, format: FormatJSON, kind: "object",
			keys: []string{"k0", "k1", "k2"}, keyCount: 60, lines: 1, shapeText: "object with 60 keys: k0, k1, k2, … (57 more) (3 of 60 keys listed)"},
		{name: "truncated json", file: "a.json", content: `{"a": [1, 2`, format: FormatJSON, kind: "object", keys: []string{"a"}, keyCount: 1, lines: 1,
			shapeText: "malformed JSON: it ends inside a value (truncated?)"},
		{name: "json lines", file: "a.json", content: "{\"a\":1}\n{\"b\":2}\n", format: FormatJSON, kind: "object", keys: []string{"a"}, keyCount: 1, lines: 2,
			shapeText: "more than one JSON value (JSON Lines?)"},
		{name: "text named .json", file: "a.json", content: "plain words\nmore", format: FormatText, sniffed: true, lines: 2},
		{name: "sniffed json", file: "result", content: "  \n[1,2]", format: FormatJSON, sniffed: true, kind: "array", length: 2, lines: 2},
		{name: "sniffed text", file: "result", content: "hello\nworld", format: FormatText, sniffed: true, lines: 2},
		{name: "empty file", file: "result", content: "", format: FormatText, sniffed: true, lines: 0},
		{name: "text", file: "a.txt", content: "{not json", format: FormatText, lines: 1},
		{name: "crlf", file: "a.txt", content: "a\r\nb\r\n", format: FormatText, lines: 2},
		{name: "toon object", file: "a.toon", content: "name: x\nitems[2]{id,n}:\n  1,a\n  2,b\nmeta:\n  k: v\n\"a:b\": 1\n",
			format: FormatTOON, kind: "object", keys: []string{"name", "items", "meta", "a:b"}, keyCount: 4, lines: 7},
		{name: "toon root array", file: "a.toon", content: "[3]{id,name}:\n  1,a\n  2,b\n  3,c",
			format: FormatTOON, kind: "array", keys: []string{"id", "name"}, keyCount: 2, length: 3, lines: 4,
			shapeText: "array of 3 elements; first element keys: id, name"},
		// A name that says nothing of the format: TOON is told by its
		// first line, which JSON and prose do not start with.
		{name: "sniffed toon root array", file: "tree.out", content: "[3]{id,name}:\n  1,a\n  2,b\n  3,c",
			format: FormatTOON, sniffed: true, kind: "array", keys: []string{"id", "name"}, keyCount: 2, length: 3, lines: 4},
		{name: "sniffed toon list", file: "tree.out", content: "[2]:\n  - a: 1\n  - a: 2\n", format: FormatTOON, sniffed: true, kind: "array", length: 2, lines: 3},
		{name: "sniffed toon inline array", file: "tree.out", content: "[3]: a,b,c\n", format: FormatTOON, sniffed: true, kind: "array", length: 3, lines: 1},
		{name: "sniffed toon object", file: "result", content: "name: x\nitems[2]: a,b\n", format: FormatTOON, sniffed: true, kind: "object",
			keys: []string{"name", "items"}, keyCount: 2, lines: 2},
		{name: "sniffed json array of one number", file: "result", content: "[6]\n", format: FormatJSON, sniffed: true, kind: "array", length: 1, lines: 1},
		{name: "sniffed text with a colon", file: "result", content: "line 1: the quick brown fox\n", format: FormatText, sniffed: true, lines: 1},
		{name: "sniffed text, a URL", file: "result", content: "https://example.com/\n", format: FormatText, sniffed: true, lines: 1},
		{name: "toon crlf", file: "a.toon", content: "a: 1\r\nb[2]: x,y\r\n", format: FormatTOON, kind: "object", keys: []string{"a", "b"}, keyCount: 2, lines: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.file, tt.content)
			s, err := tt.lim.Stat(openFile(t, path))
			if err != nil {
				t.Fatal(err)
			}
			if s.Bytes != int64(len(tt.content)) || s.Tokens != EstimateTokens(int64(len(tt.content))) || s.Lines != tt.lines {
				t.Errorf("bytes=%d tokens=%d lines=%d; want %d, %d lines", s.Bytes, s.Tokens, s.Lines, len(tt.content), tt.lines)
			}
			if s.Format != tt.format || s.Sniffed != tt.sniffed {
				t.Errorf("format=%s sniffed=%v; want %s %v", s.Format, s.Sniffed, tt.format, tt.sniffed)
			}
			sh := s.Shape
			if sh.Kind != tt.kind || !slices.Equal(sh.Keys, tt.keys) || sh.KeyCount != tt.keyCount || sh.Length != tt.length {
				t.Errorf("shape = %+v; want kind=%q keys=%q count=%d length=%d", sh, tt.kind, tt.keys, tt.keyCount, tt.length)
			}
			if tt.shapeText != "" {
				mustContain(t, "text", s.Text(), tt.shapeText)
			}
			mustContain(t, "text", s.Text(), "file: "+path, fmt.Sprintf("(%d bytes)", len(tt.content)))
		})
	}
	t.Run("humanized", func(t *testing.T) {
		s, err := Stat(writeTemp(t, "a.txt", strings.Repeat("x", 1536)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Size != "1.5 KiB" {
			t.Errorf("Size = %q", s.Size)
		}
		mustContain(t, "text", s.Text(), "size: 1.5 KiB (1536 bytes), 1 lines, ~384 tokens", "format: text (from the extension)")
	})
	t.Run("huge string value", func(t *testing.T) {
		s, err := Stat(writeTemp(t, "a.json", `{"blob":"`+strings.Repeat("\\\"x", 4<<20)+`","after":1}`))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Shape.Keys, []string{"blob", "after"}) {
			t.Errorf("keys = %q", s.Shape.Keys)
		}
	})
}
