package spill

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestCheckPath(t *testing.T) {
	doc := `{"items":[{"name":"a(b","size":2000,"tags":["x"]}],"a\"b":1,"@odd":2}`
	valid := []string{
		"items.0.name",
		"items.#(size>1000)#.name",
		`items.#(name=="a(b").size`,
		`items.#(tags.#(=="x"))#.name`,
		"{items.#.name,n:items.#}",
		"[items.0.size,items.0.name]",
		"items.@reverse",
		"@this.items",
		`items|@join:{"preserve":true}`,
		`a"b`,
		`\@odd`,
		"items.#",
	}
	for _, p := range valid {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v, want nil", p, err)
		} else if !gjson.Get(doc, p).Exists() {
			t.Errorf("test path %q matches nothing in the sample; pick a path gjson accepts", p)
		}
	}
	invalid := map[string]string{
		"items.#(size>":          `'(' at position 8 is never closed`,
		"items.#(size>1000))":    `unexpected ')'`,
		`items.#(name=="a).size`: "unterminated string",
		"{items.0.name":          `'{' at position 1 is never closed`,
		"items.@frobnicate":      "unknown modifier @frobnicate",
		"[items.0)":              `unexpected ')'`,
	}
	for p, want := range invalid {
		err := CheckPath(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPath(%q) = %v, want an error containing %q", p, err, want)
		}
	}
}
