package dispatch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Both unescapers, streaming and in place, give what gjson (the decoder
// they replace on the spill path) gives for every kind of escape.
func TestUnescape_MatchesGjson(t *testing.T) {
	var tokens []string
	for _, text := range []string{
		"", "plain", "line 1\nline 2\r\n\ttab", `quote " backslash \ slash /`,
		"\b\f\x01 control", "é ü 中文 🎉 emoji", strings.Repeat("x\n", 100000),
		strings.Repeat(`{"a":"\u003c\u0026"},`, 10000),
	} {
		quoted, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, string(quoted), strings.ReplaceAll(string(quoted), "🎉", `\ud83c\udf89`))
	}
	tokens = append(tokens, `"\ud83c"`, `"\ud83c\u0041"`, `"\udf89x"`, `"\u00e9\/"`, `"\u00e9\u4e2d\ud83c\udf89\\\""`)
	for _, token := range tokens {
		want := gjson.Parse(token).Str
		var out bytes.Buffer
		if err := writeUnescaped(&out, []byte(token)); err != nil {
			t.Fatalf("writeUnescaped(%.60q): %v", token, err)
		}
		if out.String() != want {
			t.Errorf("writeUnescaped(%.60q) = %.60q; want %.60q", token, out.String(), want)
		}
		// In place, inside a message: what follows the token is untouched.
		msg := []byte(`{"text":` + token + `,"after":1}`)
		at := len(`{"text":`)
		got, err := unescapeInPlace(msg[at : at+len(token)])
		if err != nil {
			t.Fatalf("unescapeInPlace(%.60q): %v", token, err)
		}
		if string(got) != want {
			t.Errorf("unescapeInPlace(%.60q) = %.60q; want %.60q", token, got, want)
		}
		if rest := string(msg[at+len(token):]); rest != `,"after":1}` {
			t.Errorf("unescapeInPlace(%.60q) wrote past its token: %q", token, rest)
		}
	}
}

func TestRawStringMember(t *testing.T) {
	for _, c := range []struct {
		obj, want string
		ok        bool
	}{
		{`{"uri":"a","text":"hi\nthere"}`, `"hi\nthere"`, true},
		{` { "a" : {"text":"no"} , "b":[1,"]"], "text" : "yes" } `, `"yes"`, true},
		{`{"text":1}`, "", false},
		{`{"texts":"x"}`, "", false},
		{`{"te\u0078t":"esc","n":null}`, `"esc"`, true},
		{`{"text":"first","text":"last"}`, `"last"`, true},
		{`{"s":"a\"}\"","text":"ok"}`, `"ok"`, true},
		{`[]`, "", false},
	} {
		got, ok := rawStringMember([]byte(c.obj), "text")
		if ok != c.ok || string(got) != c.want {
			t.Errorf("rawStringMember(%s) = %s, %v; want %s, %v", c.obj, got, ok, c.want, c.ok)
		}
	}
}

// mayStartJSON must never say no to a text that starts with { or [ after
// white space, or the text would be saved as text instead of JSON.
func TestMayStartJSON(t *testing.T) {
	for text, want := range map[string]bool{
		"{}": true, " \n\t[1]": true, "\r\n{": true, "plain": false, "\n line": false, "": false, "\u00a0{": true, "\u2003x": true, "\f{": true,
	} {
		quoted, _ := json.Marshal(text)
		if got := mayStartJSON(quoted); got != want {
			t.Errorf("mayStartJSON(%s) = %v; want %v", quoted, got, want)
		}
	}
}

// The results decoded without copies are what json.Unmarshal gives.
func TestDecodeResults_MatchUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`{"content":[{"type":"text","text":"a\nb"},{"type":"image","data":"AA=="}],"structuredContent":{"x":1},"isError":true,"_meta":{"k":"v"}}`,
		`{"content":[],"isError":null}`, `{"content":null}`, `{}`, `{"Content":[{"type":"text","text":"case"}]}`,
		`{"content":[1,2],"isError":"yes"}`, `{"content":{}}`, `[]`, `{"content":[`,
	} {
		var got, want callResult
		gotErr, wantErr := decodeCallResult([]byte(raw), &got), json.Unmarshal([]byte(raw), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("decodeCallResult(%s) error %v; json.Unmarshal says %v", raw, gotErr, wantErr)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if wantErr == nil && !bytes.Equal(g, w) {
			t.Errorf("decodeCallResult(%s) = %s; want %s", raw, g, w)
		}
	}
	for _, raw := range []string{
		`{"contents":[{"uri":"u","text":"t"}],"_meta":{"a":1}}`, `{"contents":null}`, `{"CONTENTS":[{}]}`, `{"contents":"x"}`, `7`,
	} {
		var got, want readResult
		gotErr, wantErr := decodeReadResult([]byte(raw), &got), json.Unmarshal([]byte(raw), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("decodeReadResult(%s) error %v; json.Unmarshal says %v", raw, gotErr, wantErr)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if wantErr == nil && !bytes.Equal(g, w) {
			t.Errorf("decodeReadResult(%s) = %s; want %s", raw, g, w)
		}
	}
}

func TestDecodePromptResult_MatchesUnmarshal(t *testing.T) {
	for _, raw := range []string{
		`{"description":"d\u00e9","messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"_meta":{}}`,
		`{"messages":null}`, `{"description":null,"messages":[]}`, `{"description":5,"messages":[]}`, `{"Messages":[{}]}`, `"x"`,
	} {
		var got, want promptResult
		gotErr, wantErr := decodePromptResult([]byte(raw), &got), json.Unmarshal([]byte(raw), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("decodePromptResult(%s) error %v; json.Unmarshal says %v", raw, gotErr, wantErr)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if wantErr == nil && !bytes.Equal(g, w) {
			t.Errorf("decodePromptResult(%s) = %s; want %s", raw, g, w)
		}
	}
}
