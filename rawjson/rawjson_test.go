package rawjson

import (
	"encoding/json"
	"testing"
)

func TestAppendString_AsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "echo", "c1", `a"b`, `back\slash`, "tab\there", "<b>&amp;</b>", "héllo", "\xff\xfe bad utf-8", "\u2028line", "\x00"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	}
}
