package uritemplates

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		template, uri string
		want          map[string]string // nil: no match
	}{
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/5", map[string]string{"resourceId": "5"}},
		{"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/5/6", nil},
		{"file:///{+path}", "file:///tmp/a.md", map[string]string{"path": "tmp/a.md"}},
		{"file:///{+path}", "http://x/tmp", nil},
		{"plain://no/variables", "plain://no/variables", nil},
	}
	for _, tt := range tests {
		got, ok := Match(tt.template, tt.uri)
		if ok != (tt.want != nil) {
			t.Errorf("Match(%q, %q) matched %v, want %v", tt.template, tt.uri, ok, tt.want != nil)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("Match(%q, %q)[%s] = %q, want %q", tt.template, tt.uri, k, got[k], v)
			}
		}
	}
	if _, err := Parse("broken {"); err == nil {
		t.Error("Parse accepted an unclosed expression")
	}
}
