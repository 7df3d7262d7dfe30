package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseJSON_KeepsOrderAndNumbers(t *testing.T) {
	in := `{"z":1,"a":[1.50,-0,1e400,12345678901234567890123],"m":{"y":null,"b":true,"x":"s"}}`
	for name, r := range map[string]func() io.Reader{
		"whole":   func() io.Reader { return strings.NewReader(in) },
		"onebyte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
	} {
		t.Run(name, func(t *testing.T) {
			v, err := ParseJSON(r())
			if err != nil {
				t.Fatal(err)
			}
			if got := jsonString(t, v); got != in {
				t.Errorf("got  %s\nwant %s", got, in)
			}
		})
	}
}

func TestParseJSON_DuplicateKeys(t *testing.T) {
	// JSON.parse semantics: the last value wins at the first position.
	v, err := ParseJSON(strings.NewReader(`{"a":1,"b":2,"a":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonString(t, v), `{"a":3,"b":2}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Large objects switch to a map for the duplicate check.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 40; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	b.WriteString(`"k0":2}`)
	v, err = ParseJSON(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 40 || v.Key(0) != "k0" || v.Index(0).Text() != "2" {
		t.Errorf("large object duplicate: len %d, first %s=%s", v.Len(), v.Key(0), v.Index(0).Text())
	}
}

func TestParseJSON_Strings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"caf\u00e9 \ud83d\ude80"`, "café 🚀"},
		{`"lone \ud800 x"`, "lone \uFFFD x"},
		{`"pair? \ud800\u0041"`, "pair? \uFFFDA"},
		{"\"bad \xff byte\"", "bad \uFFFD byte"},
		{`"esc \" \\ \/ \b \f \n \r \t"`, "esc \" \\ / \b \f \n \r \t"},
	}
	for _, tt := range tests {
		v, err := ParseJSON(strings.NewReader(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if v.Text() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, v.Text(), tt.want)
		}
	}
}

func TestParseJSON_Errors(t *testing.T) {
	for _, in := range []string{"", "  ", "{", "[1,]", `{"a"}`, `{"a":1,}`, "01", "1.", "-", "tru", "nul", `"\x"`, "\"a\nb\"", `"\u12"`, "1 2", "[1] x", `{1:2}`, strings.Repeat("[", maxJSONDepth+1)} {
		if _, err := ParseJSON(strings.NewReader(in)); err == nil {
			t.Errorf("ParseJSON(%.40q) succeeded", in)
		} else if !strings.HasPrefix(err.Error(), "toon: parse json: ") {
			t.Errorf("error %q lacks context", err)
		}
	}
}

func TestParseJSON_ReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ParseJSON(io.MultiReader(strings.NewReader(`{"a":`), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want it to wrap %v", err, boom)
	}
}

func TestWriteJSON_Indent(t *testing.T) {
	v, err := ParseJSON(strings.NewReader(`{"a":[1,{}],"b":{},"c":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, v, "  "); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {},\n  \"c\": []\n}"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// FuzzParseJSON checks ParseJSON against encoding/json: the same inputs are
// accepted, and they mean the same thing.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9",true,null,{}]}`, `[]`, `"\ud83d\ude80"`, `-0.0e-0`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(bytes.NewReader(data))
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("json.Valid = %v but ParseJSON error = %v", valid, err)
		}
		if err != nil {
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		var got any
		dec = json.NewDecoder(strings.NewReader(jsonString(t, v)))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("WriteJSON output does not parse: %v", err)
		}
		if !jsonEqual(got, want) {
			t.Fatalf("ParseJSON+WriteJSON = %s, encoding/json read %#v", jsonString(t, v), want)
		}
	})
}

// jsonEqual compares encoding/json values, numbers by their text.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !jsonEqual(v, b[k]) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
