package toon

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func decodeJSON(t *testing.T, toon string, opts DecodeOptions) (string, error) {
	t.Helper()
	var b bytes.Buffer
	err := DecodeToJSON(&b, []byte(toon), opts, "")
	return b.String(), err
}

func TestDecode_Cases(t *testing.T) {
	strict := DefaultDecodeOptions()
	lenient := DecodeOptions{}
	expand := DefaultDecodeOptions()
	expand.ExpandPaths = ModeSafe
	tests := []struct {
		name string
		in   string
		opts DecodeOptions
		want string
	}{
		{"exact big integer", "n: 9007199254740993", strict, `{"n":9007199254740993}`},
		{"number beyond float64", "n: 1e400", strict, `{"n":1e+400}`},
		{"canonical numbers", "[4]: -1E+03,1.5000,-0,0.0000001", strict, `[-1000,1.5,0,1e-7]`},
		{"crlf line endings", "a: 1\r\nb: x\r\n", strict, `{"a":1,"b":"x"}`},
		{"lenient drops over-indented line", "a: 1\n    b: 2", lenient, `{"a":1}`},
		{"quoted header key stays literal", `"a.b"[2]: 1,2`, expand, `{"a.b":[1,2]}`},
		{"quoted field stays literal", "rows[1]{\"a.b\",c.d}:\n  1,2", expand, `{"rows":[{"a.b":1,"c":{"d":2}}]}`},
		{"lenient duplicate key", "a: 1\nb: 2\na: 3", lenient, `{"a":3,"b":2}`},
		{"empty document", "\n\n", strict, `{}`},
		{"invalid utf-8", "s: a\xffb", strict, "{\"s\":\"a\uFFFDb\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeJSON(t, tt.in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDecode_Errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"strict rejects over-indented leftover line", "a: 1\n    b: 2", 2},
		{"strict rejects lines after root array", "[1]: x\ny: 2", 2},
		{"huge declared length is only a count", "a[99999999999]: 1", 1},
		{"length overflow", "a[999999999999999999999999]: 1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in), DefaultDecodeOptions())
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if de.Line != tt.line || !strings.HasPrefix(err.Error(), "toon: line ") {
				t.Errorf("error %q, want line %d", err, tt.line)
			}
		})
	}
}

func TestDecode_InvalidOptions(t *testing.T) {
	for _, opts := range []DecodeOptions{{Indent: -2}, {ExpandPaths: "all"}} {
		if _, err := Decode([]byte("a: 1"), opts); err == nil || !strings.HasPrefix(err.Error(), "toon: invalid ") {
			t.Errorf("Decode with %+v: error %v", opts, err)
		}
	}
}

func TestDecode_ExpansionDepthLimit(t *testing.T) {
	expand := DefaultDecodeOptions()
	expand.ExpandPaths = ModeSafe
	chain := func(n int) string { return strings.TrimSuffix(strings.Repeat("a.", n), ".") }

	// At the limit works: the root and n-1 objects from n segments.
	v, err := Decode([]byte(chain(maxExpandDepth)+": 1"), expand)
	if err != nil {
		t.Fatal(err)
	}
	if d := depthOf(v); d != maxExpandDepth {
		t.Errorf("depth %d, want %d", d, maxExpandDepth)
	}
	tests := []struct {
		name string
		doc  string
		line int
	}{
		{"one long key", "x: 1\n" + chain(maxExpandDepth+1) + ": 1", 2},
		{"keys stacked by nesting", "b." + chain(maxExpandDepth/2) + ":\n  " + chain(maxExpandDepth/2) + ".c: 1", 1},
		{"merged chains", chain(maxExpandDepth/2) + ".x: 1\n" + chain(maxExpandDepth/2) + ".y." + chain(maxExpandDepth/2) + ": 2", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.doc), expand)
			var de *DecodeError
			if !errors.As(err, &de) || de.Line != tt.line {
				t.Fatalf("got %v, want a DecodeError at line %d", err, tt.line)
			}
		})
	}
}
