package spill

import (
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
		{name: "invalid json", content: `{"a":`, query: "a", wantErr: "is not valid JSON"},
		{name: "empty file", content: "", query: "a", wantErr: "is empty, not JSON"},
		{name: "empty query", content: doc, query: " ", wantErr: "the path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.json", tt.content)
			r, err := tt.lim.Query(path, tt.query)
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
