package dispatch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestLinkMemory_ForgetsTheOldestPastTheBound(t *testing.T) {
	var m linkMemory
	for i := 0; i < MaxRememberedLinks+10; i++ {
		m.rememberContent("c1", []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"type":"resource_link","uri":"x://%d","name":"n"}`, i))})
	}
	m.rememberItem("c2", json.RawMessage(`{"type":"resource","resource":{"uri":"x://embedded","text":"t"}}`))
	m.remember("c2", "x://"+strings.Repeat("a", maxRememberedURIBytes))
	switch {
	case m.returned("c1", "x://0"), m.returned("c1", "x://9"):
		t.Error("the oldest links are still remembered past the bound")
	case !m.returned("c1", "x://10"), !m.returned("c1", fmt.Sprintf("x://%d", MaxRememberedLinks+9)):
		t.Error("recent links were forgotten")
	case m.returned("c2", "x://5"), !m.returned("c2", "x://embedded"):
		t.Error("links are not kept per connection")
	case len(m.byConn["c1"].order) != MaxRememberedLinks || len(m.byConn["c1"].set) != MaxRememberedLinks:
		t.Errorf("c1 holds %d/%d links; want %d", len(m.byConn["c1"].order), len(m.byConn["c1"].set), MaxRememberedLinks)
	case len(m.byConn["c2"].order) != 1:
		t.Error("an overlong URI was remembered")
	}
}

func TestExtensionFor(t *testing.T) {
	for mime, want := range map[string]string{
		"image/png":                       ".png",
		"IMAGE/JPEG; q=1":                 ".jpg",
		"application/ld+json":             ".json",
		"audio/flac":                      ".flac",
		"application/x-bzip2":             ".bzip2",
		"application/vnd.ms-excel":        ".bin",
		"":                                ".bin",
		"../../etc/passwd":                ".bin",
		"text/" + strings.Repeat("a", 40): ".bin",
	} {
		if got := extensionFor(mime); got != want {
			t.Errorf("extensionFor(%q) = %q; want %q", mime, got, want)
		}
	}
}

func TestExpandResourceURI(t *testing.T) {
	for _, c := range []struct {
		uri, args, want, err string
	}{
		{"x://a/{id}", `{"id":"7"}`, "x://a/7", ""},
		{"x://a/{id}", `{"id":7}`, "x://a/7", ""},
		{"x://f/{+path}", `{"path":"a/b c"}`, "x://f/a/b%20c", ""},
		{"x://a/{id}{?q}", `{"id":"1","q":"x y"}`, "x://a/1?q=x%20y", ""},
		{"x://plain", ``, "x://plain", ""},
		// RFC 6570 3.2.1: a character outside the allowed set is written
		// as its UTF-8 bytes, each pct-encoded; NUL too.
		{"x://f/{+path}", `{"path":"ü"}`, "x://f/%C3%BC", ""},
		{"x://a/{id}", `{"id":"é"}`, "x://a/%C3%A9", ""},
		{"x://a/{id}", `{"id":"日本"}`, "x://a/%E6%97%A5%E6%9C%AC", ""},
		{"x://a/{id}", `{"id":"Ā"}`, "x://a/%C4%80", ""},
		{"x://f/{+path}", `{"path":"d/😀"}`, "x://f/d/%F0%9F%98%80", ""},
		{"x://a/{id}", `{"id":"a\u0000b"}`, "x://a/a%00b", ""},
		{"x://a/{id}", `{"id":"\ufffd"}`, "x://a/%EF%BF%BD", ""},
		{"x://a/{id}{?q}", `{"id":"ü/x","q":"ß"}`, "x://a/%C3%BC%2Fx?q=%C3%9F", ""},
		// A prefix counts characters, not bytes.
		{"x://a/{id:2}", `{"id":"éèê"}`, "x://a/%C3%A9%C3%A8", ""},
		// Reserved expansion keeps reserved characters and pct-encoded
		// triplets; a lone % is encoded.
		{"x://f/{+path}", `{"path":"a%20b/50%/c?d#e"}`, "x://f/a%20b/50%25/c?d#e", ""},
		{"x://a/{id}", `{"id":"a%20b/c"}`, "x://a/a%2520b%2Fc", ""},
		{"x://a/{id}", ``, "", `missing "id"`},
		{"x://a/{id}/{v}", `{"id":"1"}`, "", `missing "v"`},
		{"x://a/{id}", `{"id":"1","x":"2"}`, "", `no variable "x"`},
		{"x://a/{id}", `{"id":{"a":1}}`, "", `"id" must be a string`},
		{"x://plain", `{"id":"1"}`, "", "has none"},
		{"x://a/{id", `{"id":"1"}`, "", "not a valid URI template"},
		{"x://" + strings.Repeat("a", MaxNameBytes), ``, "", "at most"},
	} {
		got, err := expandResourceURI(c.uri, json.RawMessage(c.args))
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("expand %q with %s = %q, %v; want %q", c.uri, c.args, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !IsUsage(err)):
			t.Errorf("expand %q with %s: error %v; want a usage error with %q", c.uri, c.args, err, c.err)
		}
	}
}

func TestDecodeBase64To_RefusesBadData(t *testing.T) {
	var b strings.Builder
	if err := decodeBase64To(&b, "aGVsbG8="); err != nil || b.String() != "hello" {
		t.Errorf("padded: %q %v", b.String(), err)
	}
	b.Reset()
	if err := decodeBase64To(&b, "aGVsbG8"); err != nil || b.String() != "hello" {
		t.Errorf("unpadded: %q %v", b.String(), err)
	}
	if err := decodeBase64To(&b, "not base64!"); err == nil {
		t.Error("invalid base64 decoded without an error")
	}
}
