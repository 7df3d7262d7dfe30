package spill

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestLimits_Query(t *testing.T) {
	doc := `{
  "items": [
    {"name": "a", "size": 10},
    {"name": "b", "size": 2000},
    {"name": "c", "size": 3000}
  ],
  "meta": {"total": 3, "note": "héllo"}
}
`
	tests := []struct {
		name      string
		content   string
		query     string
		lim       Limits
		want      string
		wantType  string
		wantCount int
		wantTrunc bool
		notes     []string
		wantErr   string
	}{
		{name: "filter", content: doc, query: "items.#(size>1000)#.name", want: `["b","c"]`, wantType: "array", wantCount: 2,
			notes: []string{"array of 2 elements"}},
		{name: "number", content: doc, query: "meta.total", want: "3", wantType: "number"},
		{name: "string", content: doc, query: "meta.note", want: `"héllo"`, wantType: "string"},
		{name: "object", content: doc, query: "items.1", want: `{"name": "b", "size": 2000}`, wantType: "object"},
		{name: "count", content: doc, query: "items.#", want: "3", wantType: "number"},
		{name: "cut", content: `{"s":"` + strings.Repeat("é", 100) + `"}`, query: "s", lim: Limits{MaxOutputBytes: 11},
			want: `"ééééé…[+191 bytes]`, wantType: "string", wantTrunc: true, notes: []string{"the result is 202 B; only the first 11 B is shown; narrow the query"}},
		{name: "no match", content: doc, query: "nope", wantErr: `"nope" matches nothing in`},
		{name: "no match lists the top level", content: doc, query: "nope", wantErr: "the top level is object with 2 keys: items, meta"},
		{name: "malformed path", content: doc, query: "items.#(size>", wantErr: "invalid gjson path"},
		{name: "invalid json", content: `{"a":`, query: "a", wantErr: "is not valid JSON"},
		{name: "empty file", content: "", query: "a", wantErr: "is empty, not JSON"},
		{name: "empty query", content: doc, query: " ", wantErr: "the path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.json", tt.content)
			r, err := tt.lim.Query(openFile(t, path), tt.query)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Value != tt.want || r.Type != tt.wantType || r.Count != tt.wantCount || r.Truncated != tt.wantTrunc {
				t.Errorf("got %s (%s, count %d, truncated %v); want %s (%s, %d, %v)", r.Value, r.Type, r.Count, r.Truncated, tt.want, tt.wantType, tt.wantCount, tt.wantTrunc)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
	t.Run("result outlives the mapping", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"rows":[`)
		for i := range 1000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%d}`, i)
		}
		b.WriteString("]}")
		r, err := Query(writeTemp(t, "f.json", b.String()), "rows.999")
		if err != nil {
			t.Fatal(err)
		}
		if r.Value != `{"id":999}` {
			t.Errorf("value = %q", r.Value)
		}
	})
}

func TestLimits_Query_deepNesting(t *testing.T) {
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	_, err := Query(writeTemp(t, "deep.json", deep), "0")
	if err == nil || !strings.Contains(err.Error(), "nests deeper than 10000 levels") {
		t.Errorf("err = %v", err)
	}
}

func TestSelect(t *testing.T) {
	path := writeTemp(t, "f.json", `{"items":[{"name":"a","size":1},{"name":"b","size":2000}],"big":"`+strings.Repeat("x", 5000)+`"}`)
	tests := []struct {
		path, want, errIn string
		max               int64
	}{
		{"items.1", `{"name":"b","size":2000}`, "", 1 << 10},
		{"items.#(size>1000)#.name", `["b"]`, "", 1 << 10},
		{"big", "", "more than the limit of 1.0 KiB", 1 << 10},
		{"nope", "", `"nope" selects nothing`, 1 << 10},
		{"items.#(", "", "invalid gjson path", 1 << 10},
	}
	for _, tt := range tests {
		got, err := Select(openFile(t, path), tt.path, tt.max)
		switch {
		case tt.errIn != "":
			if err == nil || !strings.Contains(err.Error(), tt.errIn) || !errors.Is(err, ErrBadRequest) {
				t.Errorf("Select(%q) = %s, %v; want a bad request with %q", tt.path, got, err, tt.errIn)
			}
		case err != nil || string(got) != tt.want:
			t.Errorf("Select(%q) = %s, %v; want %s", tt.path, got, err, tt.want)
		}
	}
	if _, err := Select(openFile(t, writeTemp(t, "t.txt", "plain text")), "a", 1<<10); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("Select on text: %v", err)
	}
}
