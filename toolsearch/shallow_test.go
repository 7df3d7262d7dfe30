package toolsearch

import (
	"strings"
	"testing"
)

// Before: a schema nested past encoding/json's 10,000 levels failed the
// whole tool, which search then never found.
func TestDocFromRaw_deepSchema(t *testing.T) {
	for _, depth := range []int{maxDecodeNesting - 1, maxDecodeNesting, 200000} {
		raw := `{"name":"deep_tool","description":"Reads the deep ledger.","inputSchema":` +
			strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1) + `,"title":"Deep"}`
		d, err := DocFromRaw("c1", []byte(raw))
		if err != nil {
			t.Fatalf("%d levels: %v", depth, err)
		}
		if d.Name != "deep_tool" || d.Description != "Reads the deep ledger." || d.Title != "Deep" {
			t.Errorf("%d levels: doc %+v", depth, d)
		}
	}
	if _, err := DocFromRaw("c1", []byte(`{"name":"t","description":5,"inputSchema":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`)); err == nil {
		t.Error("a description that is not a string: want an error, as without the deep schema")
	}
}
