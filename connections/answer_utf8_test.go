package connections

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8_RepairsAsEncodingJSON: each invalid byte inside a string
// becomes \ufffd, exactly as encoding/json writes that string (the keys
// are in json.Marshal's order, to compare whole documents).
func TestValidUTF8_RepairsAsEncodingJSON(t *testing.T) {
	for _, text := range []string{
		"bad \xff\xfe \xc3( \xed\xa0\x80 end", // stray bytes, truncated pair, surrogate
		"\xf0\x9f\x98",                        // a four-byte sequence cut short
		"é\x80ü",                              // a lone continuation byte between valid runes
		"\xc0\xaf",                            // an overlong encoding of /
		"\xf4\x90\x80\x80",                    // past U+10FFFF
		"ends in \xe2\x82",
	} {
		answer := []byte(`{"content":[{"text":"` + text + `","type":"text"}],"n":1}`)
		want, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "n": 1})
		if err != nil {
			t.Fatal(err)
		}
		got := validUTF8(answer)
		if string(got) != string(want) {
			t.Errorf("%q:\n got  %s\n want %s", text, got, want)
		}
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Errorf("%q: repaired answer is not valid: %q", text, got)
		}
	}
}

// TestValidUTF8_ValidAnswerUntouched: a valid answer is returned as it
// is, not copied: the common case allocates nothing.
func TestValidUTF8_ValidAnswerUntouched(t *testing.T) {
	answer := []byte(`{"content":[{"type":"text","text":"héllo, 世界 😀 \ufffd"}]}`)
	if got := validUTF8(answer); &got[0] != &answer[0] || len(got) != len(answer) {
		t.Errorf("a valid answer was copied or changed: %s", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { validUTF8(answer) }); allocs != 0 {
		t.Errorf("a valid answer cost %v allocations, want 0", allocs)
	}
}

// TestNamedItems: an item named in invalid UTF-8 is left out and named;
// one with invalid UTF-8 elsewhere is kept, repaired.
func TestNamedItems(t *testing.T) {
	items := []json.RawMessage{
		json.RawMessage(`{"name":"ok","description":"fine"}`),
		json.RawMessage("{\"name\":\"t\xff\",\"description\":\"x\"}"),
		json.RawMessage("{\"name\":\"desc\",\"description\":\"bad \xfe\"}"),
	}
	named, unnamable := namedItems(items, "name")
	want := []json.RawMessage{
		json.RawMessage(`{"name":"ok","description":"fine"}`),
		json.RawMessage(`{"name":"desc","description":"bad \ufffd"}`),
	}
	if !reflect.DeepEqual(named, want) {
		t.Errorf("named items:\n got  %s\n want %s", named, want)
	}
	if !reflect.DeepEqual(unnamable, []string{`"t\xff"`}) {
		t.Errorf("unnamable: got %q", unnamable)
	}
}
