package rawjson

import (
	"strings"
	"testing"
)

func TestTopLevelMember(t *testing.T) {
	deep := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	for _, c := range []struct {
		name, data string
		want       string
		ok         bool
	}{
		{"first", `{"id":7,"result":{}}`, `7`, true},
		{"after a deep value", `{"result":` + deep + `,"jsonrpc":"2.0","id":7}`, `7`, true},
		{"between deep values", `{"a":` + deep + `,"id":"x\"y","b":` + deep + `}`, `"x\"y"`, true},
		{"spaces", " \n{ \"id\" :\t 12 \r\n, \"b\":1 }", `12`, true},
		{"last one wins", `{"id":1,"id":2}`, `2`, true},
		{"nested ids are not it", `{"result":{"id":1,"x":[{"id":2}]},"id":3}`, `3`, true},
		{"a nested one only", `{"result":{"id":1}}`, ``, false},
		{"string values are not names", `{"a":"id","b":"id:"}`, ``, false},
		{"an escaped name", `{"\u0069d":5}`, `5`, true},
		{"brackets in strings", `{"a":"[[{{","id":null}`, `null`, true},
		{"an object value", `{"id":{"a":[1,2]}}`, `{"a":[1,2]}`, true},
		{"cut in the value", `{"id":12`, ``, false},
		{"cut after it", `{"id":12,"result":[[[`, `12`, true},
		{"cut in a string", `{"id":1,"a":"abc`, `1`, true},
		{"not an object", `[{"id":1}]`, ``, false},
		{"empty", ``, ``, false},
		{"no value", `{"id":}`, ``, false},
		{"no colon", `{"id" 1}`, ``, false},
	} {
		got, ok := TopLevelMember([]byte(c.data), "id")
		if string(got) != c.want || ok != c.ok {
			t.Errorf("%s: TopLevelMember = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// A line of millions of brackets is read in one pass, with no stack
// growing with it.
func TestTopLevelMember_FarPastAnyLimit(t *testing.T) {
	const n = 6_000_000
	line := `{"jsonrpc":"2.0","result":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"id":"late"}`
	if got, ok := TopLevelMember([]byte(line), "id"); !ok || string(got) != `"late"` {
		t.Errorf("TopLevelMember = %q, %v; want \"late\"", got, ok)
	}
}

func BenchmarkTopLevelMember(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]},"id":42}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, ok := TopLevelMember(line, "id"); !ok {
			b.Fatal("no id")
		}
	}
}
