package dispatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRequest_Type(t *testing.T) {
	long := strings.Repeat("x", MaxNameBytes+1)
	tests := []struct {
		name string
		raw  string
		want []string // substrings of the error; none: valid
	}{
		{name: "default is tool", raw: `{"action":"list"}`},
		{name: "list resources", raw: `{"action":"list","type":"resource","connection":"c1","limit":5,"offset":5,"refresh":true}`},
		{name: "list prompts", raw: `{"action":"list","type":"prompt","format":"detail"}`},
		{name: "info resource", raw: `{"action":"info","type":"resource","uri":"file:///a"}`},
		{name: "info prompt", raw: `{"action":"info","type":"prompt","prompt":"greet"}`},
		{name: "info tool by type", raw: `{"action":"info","type":"tool","tool":"echo"}`},
		{name: "unknown type", raw: `{"action":"list","type":"resources"}`,
			want: []string{`unknown type "resources"`, `"tool" (the default), "resource" or "prompt"`}},
		{name: "type not a string", raw: `{"action":"list","type":1}`, want: []string{`"type" must be of type string`}},
		{name: "tool-only list parameter", raw: `{"action":"list","type":"prompt","includeInputSchema":true}`,
			want: []string{`"includeInputSchema" apply to tools, not to type "prompt"`}},
		// uri implies type resource and prompt type prompt (README).
		{name: "uri without type", raw: `{"action":"info","uri":"fixture://text/hello"}`},
		{name: "prompt without type", raw: `{"action":"call","prompt":"greet"}`},
		{name: "uri with type tool", raw: `{"action":"info","type":"tool","uri":"fixture://text/hello"}`,
			want: []string{`needs "tool", not "uri"`, `{"action":"info","type":"resource","uri":"fixture://text/hello"}`}},
		{name: "prompt with type tool", raw: `{"action":"info","type":"tool","prompt":"greet"}`,
			want: []string{`needs "tool", not "prompt"`, `"type":"prompt"`}},
		{name: "resource without uri", raw: `{"action":"info","type":"resource"}`, want: []string{`info needs a "uri"`}},
		{name: "prompt named as tool", raw: `{"action":"info","type":"prompt","tool":"greet"}`, want: []string{`needs "prompt", not "tool"`}},
		{name: "two names", raw: `{"action":"info","type":"resource","uri":"a://b","prompt":"p"}`, want: []string{`takes "uri" only, not "prompt"`}},
		{name: "blank uri", raw: `{"action":"info","type":"resource","uri":"  "}`, want: []string{`info needs a "uri"`}},
		{name: "huge uri", raw: `{"action":"info","type":"resource","uri":"` + long + `"}`, want: []string{`"uri" is 8193 bytes long; at most 8192`}},
		{name: "search one type", raw: `{"action":"search","query":"greet","type":"prompt"}`},
		{name: "search unknown type", raw: `{"action":"search","query":"greet","type":"prompts"}`, want: []string{`unknown type "prompts"`}},
		{name: "search schema of prompts", raw: `{"action":"search","query":"greet","type":"prompt","includeInputSchema":true}`,
			want: []string{`"includeInputSchema" applies to tools, not to type "prompt"`}},
		{name: "search query too long", raw: `{"action":"search","query":"` + strings.Repeat("a ", MaxQueryBytes) + `"}`,
			want: []string{`"query" is 8192 bytes long; at most 4096`, `Say the task in a few words`}},
		{name: "type on call is another part's", raw: `{"action":"readresult","resultFile":"/r","type":"resource"}`, want: []string{`"type" do not apply to action readresult`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest(json.RawMessage(tt.raw))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("ParseRequest(%s): %v", tt.raw, err)
				}
				return
			}
			var usage *UsageError
			if !errors.As(err, &usage) {
				t.Fatalf("ParseRequest(%s) = %v, want a usage error", tt.raw, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseRequest(%s) error =\n  %s\nwant it to contain\n  %s", tt.raw, err, w)
				}
			}
		})
	}
}

func TestClosest(t *testing.T) {
	names := []string{"fixture://text/hello", "fixture://json/config", "fixture://items/{id}", strings.Repeat("y", 1000)}
	got := closest("fixture://text/helo", names, 2)
	if len(got) == 0 || got[0] != "fixture://text/hello" {
		t.Errorf("closest = %q, want fixture://text/hello first", got)
	}
	if got := closest(strings.Repeat("y", 1000), names, 3); got != nil {
		t.Errorf("closest of an overlong name = %q, want none compared", got)
	}
}

func TestMatchTemplate(t *testing.T) {
	tests := []struct {
		template, uri string
		want          map[string]string // nil: no match
	}{
		{"fixture://items/{id}", "fixture://items/2", map[string]string{"id": "2"}},
		{"fixture://items/{id}", "fixture://items/2/3", nil},
		{"fixture://files/{+path}", "fixture://files/docs/a.md", map[string]string{"path": "docs/a.md"}},
		{"fixture://files/{+path}", "other://files/a", nil},
		{"no variables", "no variables", nil},
		{"broken {", "broken {", nil},
	}
	for _, tt := range tests {
		got, ok := matchTemplate(tt.template, tt.uri)
		if ok != (tt.want != nil) {
			t.Errorf("matchTemplate(%q, %q) matched %v, want %v", tt.template, tt.uri, ok, tt.want != nil)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("matchTemplate(%q, %q)[%s] = %q, want %q", tt.template, tt.uri, k, got[k], v)
			}
		}
	}
}
