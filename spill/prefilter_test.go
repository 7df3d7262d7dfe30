package spill

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestNewPrefilter(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // "" for no prefilter
	}{
		{"error", "error"},
		{"ERROR", "error"},
		{`"name": "item-42"`, `"name": "item-42"`},
		{`STATUS": "ERROR`, `": "error`}, // s also matches U+017F
		{`disk full`, ` full`},           // k also matches U+212A
		{`foo\d+bar`, "foo"},
		{`(abc)+x`, "abc"},
		{`x(abcd){2,}`, "abcd"},
		{`timeout after \d+ ?ms`, "timeout after "},
		{`^id: (\d+)$`, "id: "},
		{`(?-i:Word)z`, "wordz"},
		{`café latte`, " latte"},
		{`a|b`, ""},
		{`(error)?`, ""},
		{`(abc)*`, ""},
		{`x`, ""},
		{`.*`, ""},
		{`\x{FFFD}`, ""}, // matches invalid UTF-8, which has no such bytes
		{`sks`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			p := newPrefilter("(?i)" + tt.pattern)
			got := ""
			if p != nil {
				got = string(p.lit)
			}
			if got != tt.want {
				t.Errorf("required literal of %q = %q, want %q", tt.pattern, got, tt.want)
			}
		})
	}
}

// The prefilter compares ASCII letters in their two cases only, and leaves
// k and s out of literals: that is sound only if no other letter folds to a
// rune outside ASCII.
func TestPrefilter_asciiFoldsOnlyKAndS(t *testing.T) {
	for c := 'a'; c <= 'z'; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 && c != 'k' && c != 's' {
				t.Errorf("%q folds to %U; the prefilter must leave it out of literals", c, f)
			}
		}
	}
}

func TestPrefilter_next(t *testing.T) {
	p := newPrefilter("(?i)needle")
	text := []byte("hay\nneedl\nxxNEEDLExx\nneedle\n")
	if got := p.next(text, 0); got != strings.Index(string(text), "NEEDLE") {
		t.Errorf("next = %d, want the index of NEEDLE", got)
	}
	// Later calls at later offsets see only later text.
	rest := text[21:]
	if got := p.next(rest, 21); got != 0 {
		t.Errorf("next from offset 21 = %d, want 0", got)
	}
	if got := p.next(text[28:], 28); got != -1 {
		t.Errorf("next past the end = %d, want -1", got)
	}
}

// grepCase is one comparison of Grep against oracleGrep.
type grepCase struct {
	content string
	opts    GrepOptions
	lim     Limits
}

func checkAgainstOracle(t *testing.T, c grepCase) {
	t.Helper()
	path := writeTemp(t, "f.txt", c.content)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, gotErr := c.lim.Grep(f, c.opts)
	want, wantErr := c.lim.oracleGrep(f, c.opts)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("pattern %q opts %+v lim %+v: error %v, oracle %v", c.opts.Pattern, c.opts, c.lim, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		gt, wt := "<nil>", "<nil>"
		if got != nil {
			gt = got.Text()
		}
		if want != nil {
			wt = want.Text()
		}
		t.Fatalf("pattern %q opts %+v lim %+v, %d bytes of content:\ngot\n%s\nwant (oracle)\n%s\ncontent %q",
			c.opts.Pattern, c.opts, c.lim, len(c.content), gt, wt, truncateForLog(c.content))
	}
}

func truncateForLog(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// oraclePatterns all have a required literal, so Grep takes its chunked
// path; the rest would run the oracle's code.
var oraclePatterns = []string{
	"needle", "NEEDLE", "needle$", "^needle", `nee\w*dle`, `needle\d+`, "ne+dle", `"name": "needle`,
	"disk", "ss.needle", "needle\r", `nee(dle)+`, `(?-i:Needle)`, `\bneedle\b`, "needle.*needle", "é needle",
	`\x{212A}elvin`, "ab", "needle|needle2",
}

// oracleWords make up the lines of the random files.
var oracleWords = []string{
	"needle", "NEEDLE", "Needle", "needl", "eedle", "nEeDlE", "hay", "disk", "DISK", "di\u212Ak",
	"\u212Aelvin", "kelvin", "ſs", "ss", "needle2", "é", "\xff\xfe", "\r", "\"name\": \"needle", "42",
	" ", "ab", "AB", "needleneedle", "ne", "edle", "x",
}

func randomContent(r *rand.Rand) string {
	var b strings.Builder
	lines := r.IntN(200)
	for range lines {
		switch r.IntN(40) {
		case 0: // longer than the read buffer, with or without the pattern
			n := readBufSize + r.IntN(3*readBufSize)
			word := oracleWords[r.IntN(len(oracleWords))]
			at := r.IntN(n)
			b.WriteString(strings.Repeat("y", at))
			b.WriteString(word)
			b.WriteString(strings.Repeat("z", n-at))
		case 1: // a line that ends close to a read-buffer boundary
			pad := readBufSize - b.Len()%readBufSize - r.IntN(8)
			if pad > 0 {
				b.WriteString(strings.Repeat("q", max(0, pad-6)))
				b.WriteString(oracleWords[r.IntN(3)])
			}
		default:
			for range r.IntN(6) {
				b.WriteString(oracleWords[r.IntN(len(oracleWords))])
				if r.IntN(3) == 0 {
					b.WriteString(" ")
				}
			}
		}
		if r.IntN(10) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	if r.IntN(3) == 0 {
		b.WriteString(oracleWords[r.IntN(len(oracleWords))]) // no final "\n"
	}
	return b.String()
}

func TestGrep_matchesOracle(t *testing.T) {
	seed := uint64(1)
	r := rand.New(rand.NewPCG(seed, 13))
	runs := 400
	if testing.Short() {
		runs = 50
	}
	for i := range runs {
		c := grepCase{
			content: randomContent(r),
			opts: GrepOptions{
				Pattern:    oraclePatterns[r.IntN(len(oraclePatterns))],
				Context:    r.IntN(4),
				MaxMatches: r.IntN(6),
			},
		}
		if r.IntN(4) == 0 {
			c.opts.From = int64(r.IntN(50))
		}
		if r.IntN(3) == 0 {
			c.lim = Limits{MaxLineBytes: 1 + r.IntN(12), MaxLines: 1 + r.IntN(20), MaxOutputBytes: 1 + r.IntN(400), MaxContext: 1 + r.IntN(3)}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkAgainstOracle(t, c) })
	}
}

// Matches and context at every position around the 64 KiB read-buffer
// boundary, where the chunked search hands lines back to the line reader.
func TestGrep_matchesOracleAtBufferBoundaries(t *testing.T) {
	for shift := -12; shift <= 12; shift++ {
		for _, ctx := range []int{0, 2} {
			var b bytes.Buffer
			for b.Len() < readBufSize+shift-40 {
				b.WriteString("filler line\n")
			}
			b.WriteString(strings.Repeat("f", readBufSize+shift-b.Len()))
			b.WriteString("xNEEDLEx\nafter\nneedle\n")
			b.WriteString(strings.Repeat("hay\n", 100))
			checkAgainstOracle(t, grepCase{content: b.String(), opts: GrepOptions{Pattern: "needle", Context: ctx}})
		}
	}
}

func FuzzGrep_matchesOracle(f *testing.F) {
	f.Add("a needle\nhay\r\nNEEDLE\n", "needle", 1, 2)
	f.Add("di\u212Ak\ndisk\n\xff\n", "disk", 0, 0)
	f.Add("x\n\nneedle", "^needle$", 3, 1)
	f.Fuzz(func(t *testing.T, content, pattern string, ctx, maxMatches int) {
		if pattern == "" || len(content) > 1<<20 {
			return
		}
		checkAgainstOracle(t, grepCase{content: content, opts: GrepOptions{
			Pattern: pattern, Context: ctx % 5, MaxMatches: maxMatches % 7,
		}})
	})
}
