package connections

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactor_maskJSON(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"MYAPI_TOKEN": "tok&secret-1", "OTHER": "plain-secret-2"}})
	tests := []struct {
		name string
		in   string
		want string // "" means: in, unchanged to the byte
	}{
		{name: "nothing to mask keeps the bytes", in: `{ "b": 1.50, "a": [true, null, "x"] }`},
		{name: "escapes without secrets keep the bytes", in: `{"d":"line\nnext \u0041 \"q\""}`},
		{name: "plain value", in: `{"description":"uses plain-secret-2 here"}`, want: `{"description":"uses *** here"}`},
		{name: "escaped by the server", in: `{"description":"uses tok\u0026secret-1"}`, want: `{"description":"uses ***"}`},
		{name: "every letter escaped", in: `{"d":"\u0070\u006c\u0061\u0069\u006e-secret-2"}`, want: `{"d":"***"}`},
		{name: "object key", in: `{"plain-secret-2":{"type":"string"}}`, want: `{"***":{"type":"string"}}`},
		{name: "key order, numbers and literals kept",
			in:   `{"z":1e3,"y":[1.50,-0,true,false,null,{}],"x":"plain-secret-2","w":[]}`,
			want: `{"z":1e3,"y":[1.50,-0,true,false,null,{}],"x":"***","w":[]}`},
		{name: "nested schema", in: `{"inputSchema":{"properties":{"key":{"default":"plain-secret-2","enum":["a","plain-secret-2"]}}}}`,
			want: `{"inputSchema":{"properties":{"key":{"default":"***","enum":["a","***"]}}}}`},
		{name: "unlearned shape", in: `{"description":"try ghp_0123456789abcdefABCDEF"}`, want: `{"description":"try ***"}`},
		{name: "top-level string", in: `"plain-secret-2"`, want: `"***"`},
		{name: "html characters stay valid JSON", in: `{"a":"<b> & plain-secret-2"}`, want: `{"a":"\u003cb\u003e \u0026 ***"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.maskJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("maskJSON(%s): %v", tt.in, err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if string(got) != want {
				t.Errorf("maskJSON(%s) =\n%s\nwant\n%s", tt.in, got, want)
			}
			if !json.Valid(got) {
				t.Errorf("maskJSON(%s) = %s, not valid JSON", tt.in, got)
			}
		})
	}
}

func TestRedactor_maskJSONRejectsBadInput(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"K": "plain-secret-2"}})
	for _, in := range []string{`{"a":"plain-secret-2"`, `{"a":"plain-secret-2"} {}`, `{"a":"\u0070lain-secret-2",}`} {
		if got, err := r.maskJSON([]byte(in)); err == nil {
			t.Errorf("maskJSON(%s) = %s, want an error", in, got)
		}
	}
}

func TestRedactor_maskInfo(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"K": "info-secret-3"}})
	got := r.maskInfo(ServerInfo{Name: "srv info-secret-3", Version: "1+info-secret-3", Title: "T info-secret-3",
		ProtocolVersion: "info-secret-3", Instructions: "Use info-secret-3."})
	want := ServerInfo{Name: "srv ***", Version: "1+***", Title: "T ***", ProtocolVersion: "***", Instructions: "Use ***."}
	if got != want {
		t.Errorf("maskInfo = %+v, want %+v", got, want)
	}
	if strings.Contains(got.Name+got.Version+got.Title+got.ProtocolVersion+got.Instructions, "info-secret-3") {
		t.Error("secret left")
	}
}

// FuzzRedactor_maskJSON: any valid JSON comes out valid, with no learned
// secret left in any of its strings.
func FuzzRedactor_maskJSON(f *testing.F) {
	for _, seed := range []string{`{"a":"fuzz-secret-9"}`, `["\u0066uzz-secret-9",1,null]`, `"x"`, `{"fuzz-secret-9":{"b":[true,false,-1.5e3]}}`} {
		f.Add([]byte(seed))
	}
	r := NewRedactor(ServerConfig{Env: map[string]string{"K": "fuzz-secret-9"}})
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		out, err := r.maskJSON(in)
		if err != nil {
			t.Fatalf("maskJSON(%s): %v", in, err)
		}
		if !json.Valid(out) {
			t.Fatalf("maskJSON(%s) = %s, not valid JSON", in, out)
		}
		var decoded any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber() // 1E700 is valid JSON, but no float64
		if err := dec.Decode(&decoded); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(decoded)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(again), "fuzz-secret-9") {
			t.Errorf("maskJSON(%s) = %s, still holds the secret", in, out)
		}
	})
}
