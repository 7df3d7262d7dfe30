package toon

import (
	"bytes"
	"testing"
)

// Fuzz flags pick options: bit 0 strict and bit 1 path expansion (decode),
// bits 2-3 the delimiter, bit 4 a 4-space indent, bit 5 key folding with
// path expansion on the way back (round trip).
func fuzzDecodeOptions(flags byte) DecodeOptions {
	o := DecodeOptions{Strict: flags&1 != 0, ExpandPaths: ModeOff}
	if flags&2 != 0 {
		o.ExpandPaths = ModeSafe
	}
	if flags&16 != 0 {
		o.Indent = 4
	}
	return o
}

func fuzzEncodeOptions(flags byte) EncodeOptions {
	o := EncodeOptions{Delimiter: ",\t|,"[flags>>2&3]}
	if flags&16 != 0 {
		o.Indent = 4
	}
	if flags&32 != 0 {
		o.KeyFolding = ModeSafe
	}
	return o
}

// addFixtureSeeds seeds f with every fixture case: TOON inputs and expected
// outputs for FuzzDecode, JSON inputs and expected values for FuzzRoundTrip.
func addFixtureSeeds(f *testing.F, toon bool) {
	for _, category := range []string{"encode", "decode"} {
		for _, c := range loadFixtures(&testing.T{}, category) {
			for _, v := range []Value{c.input, c.expected} {
				var data []byte
				if toon {
					if v.Kind() != KindString {
						continue
					}
					data = []byte(v.Text())
				} else {
					var b bytes.Buffer
					if err := WriteJSON(&b, v, ""); err != nil {
						f.Fatal(err)
					}
					data = b.Bytes()
				}
				for _, flags := range []byte{0, 1, 3, 5, 9, 17, 32} {
					f.Add(data, flags)
				}
			}
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// survives a trip through JSON unchanged.
func FuzzDecode(f *testing.F) {
	addFixtureSeeds(f, true)
	f.Fuzz(func(t *testing.T, data []byte, flags byte) {
		v, err := Decode(data, fuzzDecodeOptions(flags))
		if err != nil {
			if _, ok := err.(*DecodeError); !ok {
				t.Fatalf("error is %T, not *DecodeError: %v", err, err)
			}
			return
		}
		var js bytes.Buffer
		if err := WriteJSON(&js, v, ""); err != nil {
			t.Fatal(err)
		}
		back, err := ParseJSON(&js)
		if err != nil {
			t.Fatalf("WriteJSON wrote invalid JSON %q: %v", js.String(), err)
		}
		if !Equal(v, back) {
			t.Fatalf("JSON round trip changed the value: %q", js.String())
		}
	})
}

// FuzzRoundTrip checks that for any valid JSON, decode(encode(x)) == x under
// the spec's equality (numbers compared by value).
func FuzzRoundTrip(f *testing.F) {
	addFixtureSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte, flags byte) {
		v, err := ParseJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		eo := fuzzEncodeOptions(flags)
		if hasDottedKey(v) {
			// Folded keys and literal dotted keys look the same, so safe
			// folding only round-trips when no key has a dot (spec §13.4).
			eo.KeyFolding = ModeOff
		}
		var out bytes.Buffer
		if err := Encode(&out, v, eo); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		do := DefaultDecodeOptions()
		do.Indent = eo.Indent
		if eo.KeyFolding == ModeSafe {
			do.ExpandPaths = ModeSafe
		}
		back, err := Decode(out.Bytes(), do)
		if err != nil {
			t.Fatalf("Decode of encoder output failed: %v\nJSON: %s\nTOON:\n%s", err, data, out.Bytes())
		}
		if !Equal(tabularOrder(v), back) {
			t.Fatalf("round trip changed the value\nJSON: %s\nTOON:\n%s\nback: %s", data, out.Bytes(), jsonString(t, back))
		}
	})
}

// tabularOrder returns v with the rows of every array that the encoder
// writes in tabular form reordered to the first row's key order: the
// tabular form states the field order once, so rows that listed the same
// keys in another order come back in the header's order (spec §9.3).
func tabularOrder(v Value) Value {
	switch v.kind {
	case KindArray:
		elems := make([]Value, len(v.c.vals))
		if fields := tabularFields(v.c.vals); fields != nil {
			for i, row := range v.c.vals {
				var ob objectBuilder
				for j, f := range fields {
					k, _ := rowField(row.c, f, j)
					ob.set(f, row.c.vals[k])
				}
				elems[i] = ob.value()
			}
		} else {
			for i, e := range v.c.vals {
				elems[i] = tabularOrder(e)
			}
		}
		return Value{kind: KindArray, c: &container{vals: elems}}
	case KindObject:
		var ob objectBuilder
		for i, k := range v.c.keys {
			ob.set(k, tabularOrder(v.c.vals[i]))
		}
		return ob.value()
	}
	return v
}

func hasDottedKey(v Value) bool {
	for i := 0; i < v.Len(); i++ {
		if v.kind == KindObject && bytes.IndexByte([]byte(v.c.keys[i]), '.') >= 0 {
			return true
		}
		if hasDottedKey(v.c.vals[i]) {
			return true
		}
	}
	return false
}
