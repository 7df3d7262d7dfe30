package rawjson

import (
	"encoding/json"
	"testing"
)

func TestAppendString_AsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "echo", "c1", `a"b`, `back\slash`, "tab\there", "nl\nx\ry\bz\f", "<b>&amp;</b>", "héllo", "\xff\xfe bad utf-8",
		"\u2028line\u2029", "\x00\x01\x1f\x7f", "日本語", "a\xe2\x82", "mixed <é> \\ \"q\" \u2028 \xc3"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a<b", "\xff", "\u2028", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
