package toon

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// encodeTree is the tree path of EncodeJSON (ParseJSON, then Encode): the
// oracle the flat path is held to.
func encodeTree(data []byte, opts EncodeOptions) (string, error) {
	v, err := ParseJSON(bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	err = Encode(&out, v, opts)
	return out.String(), err
}

// encodeFlat is the flat path alone; ok is false when it declined the input.
func encodeFlat(t *testing.T, data []byte, opts EncodeOptions) (string, bool) {
	t.Helper()
	cfg, err := opts.config()
	if err != nil {
		t.Fatal(err)
	}
	tree, ok := parseFlat(string(data))
	if !ok {
		return "", false
	}
	var out bytes.Buffer
	e := flatEncoder{encoder: encoder{cfg: cfg, w: &out}, t: tree}
	e.root()
	e.flush()
	if e.err != nil {
		t.Fatal(e.err)
	}
	return out.String(), true
}

// checkFlatAgainstTree holds the flat path to the tree path for one input:
// where the tree path fails the flat path must decline (so EncodeJSON reports
// ParseJSON's error), and where both accept, the bytes must be the same. The
// flat path may decline valid JSON only for a repeated key or a limit.
func checkFlatAgainstTree(t *testing.T, data []byte, opts EncodeOptions) {
	t.Helper()
	want, treeErr := encodeTree(data, opts)
	got, ok := encodeFlat(t, data, opts)
	switch {
	case treeErr != nil && ok:
		t.Fatalf("flat path accepted what ParseJSON refuses (%v)\nJSON: %.300q\nTOON: %.300q", treeErr, data, got)
	case treeErr != nil:
		return
	case !ok:
		if !repeatsKey(data) {
			t.Fatalf("flat path declined valid JSON without a repeated key: %.300q", data)
		}
		return
	case got != want:
		t.Fatalf("flat and tree paths differ\nJSON: %.300q\nflat: %.300q\ntree: %.300q", data, got, want)
	}
	// And EncodeJSON itself, whichever path it takes, gives the same bytes.
	var out bytes.Buffer
	if err := EncodeJSON(&out, bytes.NewReader(data), opts); err != nil || out.String() != want {
		t.Fatalf("EncodeJSON = %.300q, %v; want %.300q", out.String(), err, want)
	}
}

// repeatsKey reports whether some object in the (valid) JSON text repeats a
// key, by comparing the member counts ParseJSON keeps with those in the text.
func repeatsKey(data []byte) bool {
	v, err := ParseJSON(bytes.NewReader(data))
	if err != nil {
		return false
	}
	return countMembers(v) != countKeysInText(data)
}

func countMembers(v Value) int {
	n := 0
	if v.kind == KindObject {
		n += len(v.c.keys)
	}
	for i := 0; i < v.Len(); i++ {
		n += countMembers(v.c.vals[i])
	}
	return n
}

// countKeysInText counts the ':' outside strings: one per object member.
func countKeysInText(data []byte) int {
	n, inStr := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && c == ':':
			n++
		}
	}
	return n
}

var flatCases = []string{
	`{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"}]}`,
	`[[]]`, `[{}]`, `[[],[1]]`, `{"a":[[]]}`, `[{"a":[]}]`, `[{"a":{}}]`, `{"a":{}}`, `{}`, `[]`,
	`[{"a":1,"b":2},{"b":3,"a":4}]`,          // reordered rows stay tabular
	`[{"a":1,"b":2},{"a":3,"c":4}]`,          // same width, other key: list
	`[{"a":1},{"a":1,"b":2}]`,                // different widths: list
	`[{"a":1,"b":[1]},{"a":2,"b":[2]}]`,      // nested value: list
	`{"a":1,"b":2,"a":3}`,                    // repeated key: tree path
	`[{"a":1,"a":2}]`,                        // repeated key in a row
	`{"k":{"x":1,"y":{"x":2,"x":3}}}`,        // repeated key deeper
	`{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude80"}`, // escapes and a surrogate pair
	`{"lone":"\ud800x","pair":"\ud800\udc00"}`,
	"{\"bad\":\"\xff\xfeok\",\"k\xff\":1}", // invalid UTF-8 in value and key
	`{"a\nb":1,"a\u000ab":2}`,              // the same key spelled two ways
	`[1,-0,1E5,1e-7,0.000001,1.50,12345678901234567890123,1e400]`,
	`["","-","a:b","true","42","x,y","x|y","x\ty"," lead"]`,
	`"top"`, `42`, `true`, `null`, `  [1, 2 ,3 ]  `,
	`{"a":[{"b":1,"c":[{"d":1},{"d":2}]},{"b":2}]}`,
	`[{"t":[{"x":1},{"x":2}],"u":1},{"v":[1,2]},{"w":{"z":1}},{"e":[]}]`,
	`[[1,2],[3,[4]],[{"a":1}],"x"]`,
	// invalid JSON: the flat path must decline
	``, ` `, `[`, `[1,]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1]x`, `tru`, `nul`, `01`, `1.`, `-`, `1e`,
	`"\x"`, `"\u12"`, `"a` + "\x01" + `"`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `"\`, `[1,2`,
}

// wideReorderedTable is a table wider than indexThreshold whose rows list
// the keys in other orders, with and without a missing key.
func wideReorderedTable(missing bool) string {
	row := func(keys []int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"f` + strconv.Itoa(k) + `":` + strconv.Itoa(i))
		}
		return b.String() + "}"
	}
	var fwd, rev []int
	for k := 0; k < 3*indexThreshold; k++ {
		fwd = append(fwd, k)
		rev = append([]int{k}, rev...)
	}
	last := rev
	if missing {
		last = append(append([]int{}, rev[1:]...), 999)
	}
	return "[" + row(fwd) + "," + row(rev) + "," + row(last) + "]"
}

func TestEncodeJSON_FlatMatchesTree(t *testing.T) {
	for _, c := range append(flatCases, wideReorderedTable(false), wideReorderedTable(true)) {
		for _, delim := range []byte{',', '\t', '|'} {
			checkFlatAgainstTree(t, []byte(c), EncodeOptions{Delimiter: delim})
		}
		checkFlatAgainstTree(t, []byte(c), EncodeOptions{Indent: 4})
	}
}

func TestEncodeJSON_FlatDeclines(t *testing.T) {
	for _, c := range []string{`{"a":1,"a":2}`, `[1,]`, ``, strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)} {
		if _, ok := parseFlat(c); ok {
			t.Errorf("parseFlat(%.40q) accepted", c)
		}
	}
	// One key more than maxFlatKeys sends the document to the tree path,
	// which encodes it all the same.
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i <= maxFlatKeys; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteByte('}')
	if _, ok := parseFlat(b.String()); ok {
		t.Fatalf("parseFlat accepted %d distinct keys, limit %d", maxFlatKeys+1, maxFlatKeys)
	}
	want, err := encodeTree([]byte(b.String()), EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := EncodeJSON(&out, strings.NewReader(b.String()), EncodeOptions{}); err != nil || out.String() != want {
		t.Fatalf("EncodeJSON of %d distinct keys: %v, output differs from the tree path: %v", maxFlatKeys+1, err, out.String() != want)
	}
}

// TestEncodeJSON_ErrorsAsTreePath checks that invalid JSON gets ParseJSON's
// error (position and all) from EncodeJSON.
func TestEncodeJSON_ErrorsAsTreePath(t *testing.T) {
	for _, c := range []string{`[1,]`, `{"a":1 "b":2}`, "[\n  tru\n]", ``} {
		_, want := ParseJSON(strings.NewReader(c))
		err := EncodeJSON(io.Discard, strings.NewReader(c), EncodeOptions{})
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("EncodeJSON(%q) error %v, want %v", c, err, want)
		}
	}
}

func TestEncodeJSON_ReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`[1,2`), iotest.ErrReader(boom))
	if err := EncodeJSON(io.Discard, r, EncodeOptions{}); !errors.Is(err, boom) {
		t.Fatalf("error %v, want one wrapping %v", err, boom)
	}
}

// TestEncodeJSON_FixturesFromText runs the spec's encode fixtures through
// EncodeJSON from JSON text, so both paths meet every fixture.
func TestEncodeJSON_FixturesFromText(t *testing.T) {
	for _, c := range loadFixtures(t, "encode") {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			opts := fixtureEncodeOptions(t, c.options)
			data := []byte(jsonString(t, c.input))
			var out bytes.Buffer
			if err := EncodeJSON(&out, bytes.NewReader(data), opts); err != nil {
				t.Fatalf("EncodeJSON: %v", err)
			}
			if got, want := out.String(), c.expected.Text(); got != want {
				t.Errorf("EncodeJSON mismatch\n got: %.300q\nwant: %.300q", got, want)
			}
			if opts.KeyFolding != ModeSafe {
				if got, ok := encodeFlat(t, data, opts); !ok || got != c.expected.Text() {
					t.Errorf("flat path: %.300q (took it: %v), want %.300q", got, ok, c.expected.Text())
				}
			}
		})
	}
}

// TestEncodeJSON_TableAllocations pins what the flat path is for: encoding a
// table allocates a few large blocks, not something per row or value (the
// tree path made 5 allocations per row of this table).
func TestEncodeJSON_TableAllocations(t *testing.T) {
	data := tabularJSON(1 << 20)
	rows := bytes.Count(data, []byte("},{")) + 1
	allocs := testing.AllocsPerRun(3, func() {
		if err := EncodeJSON(io.Discard, bytes.NewReader(data), EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if limit := 64.0; allocs > limit {
		t.Fatalf("EncodeJSON of a %d-row table made %.0f allocations, want at most %.0f", rows, allocs, limit)
	}
}

// FuzzEncodeJSON_FlatMatchesTree holds the flat path to the tree path, the
// older of the two, on any input and options.
func FuzzEncodeJSON_FlatMatchesTree(f *testing.F) {
	for _, c := range flatCases {
		f.Add([]byte(c), byte(0))
	}
	addFixtureSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte, flags byte) {
		opts := fuzzEncodeOptions(flags)
		opts.KeyFolding = ModeOff
		checkFlatAgainstTree(t, data, opts)
	})
}

// largestWrite records the largest single Write it is given.
type largestWrite struct{ max int }

func (w *largestWrite) Write(p []byte) (int, error) {
	w.max = max(w.max, len(p))
	return len(p), nil
}

// TestEncodeJSON_LongLineStreams checks that one long inline array is
// written out as it grows, not held whole in the output buffer.
func TestEncodeJSON_LongLineStreams(t *testing.T) {
	data := "[" + strings.Repeat("12345,", 200000) + "1]"
	var w largestWrite
	if err := EncodeJSON(&w, strings.NewReader(data), EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if limit := flushSize + 4096; w.max > limit {
		t.Fatalf("largest write %d bytes, want at most %d", w.max, limit)
	}
}

// zeros is a reader of n zero bytes that counts how many were read.
type zeros struct{ n, read int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	k := min(len(p), z.n-z.read)
	clear(p[:k])
	z.read += k
	return k, nil
}

// TestEncodeJSON_RefusesNonJSONAtOnce checks that input that cannot be JSON
// (here 64 MB of zero bytes, as from /dev/zero) is refused after its first
// bytes, not read whole into memory first.
func TestEncodeJSON_RefusesNonJSONAtOnce(t *testing.T) {
	z := &zeros{n: 64 << 20}
	err := EncodeJSON(io.Discard, z, EncodeOptions{})
	if err == nil || !strings.Contains(err.Error(), "invalid character") {
		t.Fatalf("error %v, want an invalid character", err)
	}
	if z.read > 1<<20 {
		t.Fatalf("read %d bytes before refusing, want at most 1 MiB", z.read)
	}
}
