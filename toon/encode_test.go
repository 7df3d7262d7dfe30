package toon

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func encodeString(t *testing.T, json string, opts EncodeOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := EncodeJSON(&b, strings.NewReader(json), opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestEncode_ExactNumbers(t *testing.T) {
	got := encodeString(t, `{"big":12345678901234567890,"tiny":0.0000001,"huge":1e21,"neg0":-0.0,"long":0.1000000000000000055511151231257827}`, EncodeOptions{})
	want := "big: 12345678901234567890\ntiny: 1e-7\nhuge: 1e+21\nneg0: 0\nlong: 0.1000000000000000055511151231257827"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEncode_Deterministic(t *testing.T) {
	data := reposJSON(20)
	first := encodeString(t, string(data), EncodeOptions{KeyFolding: ModeSafe})
	for i := 0; i < 5; i++ {
		if again := encodeString(t, string(data), EncodeOptions{KeyFolding: ModeSafe}); again != first {
			t.Fatal("two encodings of the same input differ")
		}
	}
}

func TestEncode_InvalidOptions(t *testing.T) {
	for _, opts := range []EncodeOptions{{Indent: -1}, {Delimiter: ';'}, {KeyFolding: "aggressive"}} {
		err := Encode(&bytes.Buffer{}, Null(), opts)
		if err == nil || !strings.HasPrefix(err.Error(), "toon: invalid ") {
			t.Errorf("Encode with %+v: error %v", opts, err)
		}
	}
}

func TestEncode_WriteError(t *testing.T) {
	boom := errors.New("boom")
	v, err := ParseJSON(bytes.NewReader(tabularJSON(200 << 10)))
	if err != nil {
		t.Fatal(err)
	}
	err = Encode(errWriter{boom}, v, EncodeOptions{})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want it to wrap %v", err, boom)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestEncode_InvalidUTF8(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, Object(Member{"k\xff", String("a\xffb")}), EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "\"k\uFFFD\": a\uFFFDb"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
