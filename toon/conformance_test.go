package toon

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The official spec 3.3 fixtures, vendored by scripts/toon-fixtures.sh.
const fixtureDir = "../testdata/toon/fixtures"

// Case counts of @toon-format/spec@3.3.2. The tests fail when fewer cases
// ran, so a missing or truncated fixture directory cannot pass silently.
const (
	wantEncodeCases = 153
	wantDecodeCases = 247
)

type fixtureCase struct {
	file        string
	name        string
	input       Value
	expected    Value
	options     Value
	shouldError bool
}

// loadFixtures reads every case of one fixture category. Fixture files are
// read with ParseJSON so that object key order in inputs is kept.
func loadFixtures(t *testing.T, category string) []fixtureCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir, category, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s/%s: run scripts/toon-fixtures.sh", fixtureDir, category)
	}
	var cases []fixtureCase
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		tests, ok := doc.Lookup("tests")
		if !ok || tests.Kind() != KindArray {
			t.Fatalf("%s: no tests array", path)
		}
		for i := 0; i < tests.Len(); i++ {
			tc := tests.Index(i)
			c := fixtureCase{file: strings.TrimSuffix(filepath.Base(path), ".json")}
			name, _ := tc.Lookup("name")
			c.name = name.Text()
			c.input, _ = tc.Lookup("input")
			c.expected, _ = tc.Lookup("expected")
			c.options, _ = tc.Lookup("options")
			se, _ := tc.Lookup("shouldError")
			c.shouldError = se.Boolean()
			cases = append(cases, c)
		}
	}
	return cases
}

func fixtureEncodeOptions(t *testing.T, o Value) EncodeOptions {
	t.Helper()
	var opts EncodeOptions
	for i := 0; i < o.Len(); i++ {
		v := o.Index(i)
		switch k := o.Key(i); k {
		case "delimiter":
			opts.Delimiter = v.Text()[0]
		case "indent":
			opts.Indent = fixtureInt(t, v)
		case "keyFolding":
			opts.KeyFolding = v.Text()
		case "flattenDepth":
			// The spec's flattenDepth 0 means "fold nothing"; in Go 0 is the
			// unlimited default and any other value below 2 folds nothing.
			opts.FlattenDepth = fixtureInt(t, v)
			if opts.FlattenDepth == 0 {
				opts.FlattenDepth = -1
			}
		default:
			t.Fatalf("unknown encode option %q", k)
		}
	}
	return opts
}

func fixtureDecodeOptions(t *testing.T, o Value) DecodeOptions {
	t.Helper()
	opts := DefaultDecodeOptions()
	for i := 0; i < o.Len(); i++ {
		v := o.Index(i)
		switch k := o.Key(i); k {
		case "indent":
			opts.Indent = fixtureInt(t, v)
		case "strict":
			opts.Strict = v.Boolean()
		case "expandPaths":
			opts.ExpandPaths = v.Text()
		default:
			t.Fatalf("unknown decode option %q", k)
		}
	}
	return opts
}

func fixtureInt(t *testing.T, v Value) int {
	t.Helper()
	n := 0
	for _, c := range []byte(v.Text()) {
		if c < '0' || c > '9' {
			t.Fatalf("option %q is not a small non-negative integer", v.Text())
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestEncode_Fixtures(t *testing.T) {
	cases := loadFixtures(t, "encode")
	ran := 0
	for _, c := range cases {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			ran++
			opts := fixtureEncodeOptions(t, c.options)
			var out bytes.Buffer
			if err := Encode(&out, c.input, opts); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if got, want := out.String(), c.expected.Text(); got != want {
				t.Errorf("Encode mismatch\n got: %q\nwant: %q", got, want)
			}
		})
	}
	if ran < wantEncodeCases {
		t.Fatalf("ran %d encode cases, want at least %d", ran, wantEncodeCases)
	}
}

var lineInError = regexp.MustCompile(`^toon: line [1-9][0-9]*: `)

func TestDecode_Fixtures(t *testing.T) {
	cases := loadFixtures(t, "decode")
	ran, errCases := 0, 0
	for _, c := range cases {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			ran++
			opts := fixtureDecodeOptions(t, c.options)
			got, err := Decode([]byte(c.input.Text()), opts)
			if c.shouldError {
				errCases++
				if err == nil {
					t.Fatalf("Decode succeeded with %s, want an error", jsonString(t, got))
				}
				var de *DecodeError
				if !errors.As(err, &de) || de.Line < 1 || !lineInError.MatchString(err.Error()) {
					t.Fatalf("error %q does not name a line", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !Equal(got, c.expected) {
				t.Errorf("Decode mismatch\n got: %s\nwant: %s", jsonString(t, got), jsonString(t, c.expected))
			}
		})
	}
	if ran < wantDecodeCases {
		t.Fatalf("ran %d decode cases, want at least %d", ran, wantDecodeCases)
	}
	if errCases < 41 {
		t.Fatalf("ran %d must-error decode cases, want at least 41", errCases)
	}
}

func jsonString(t *testing.T, v Value) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, v, ""); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
