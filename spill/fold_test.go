package spill

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestNewLineMatcher_UsesLiteralsOnlyWhenExact(t *testing.T) {
	tests := []struct {
		pattern string
		fast    bool
	}{
		{`error`, true},
		{`"name": "item-7"`, true},
		{`error|warn|fatal`, true},
		{`a\.b`, true}, // an escaped dot is a literal
		{`a.b`, false},
		{`^error`, false},
		{`err(or)?`, false},
		{`(?-i)Error`, false}, // case matters again
		{`(?-i)12`, true},     // no letters: case cannot matter
		{`héllo`, false},      // non-ASCII literals fold in ways bytes do not
		{`x|y`, false},        // a character class, not literals
	}
	for _, tt := range tests {
		re := regexp.MustCompile("(?i)" + tt.pattern)
		_, fast := newLineMatcher(re).(*foldLiterals)
		if fast != tt.fast {
			t.Errorf("%q: literal fast path = %v, want %v", tt.pattern, fast, tt.fast)
		}
	}
}

// The fast path must give exactly regexp's answer, Unicode case folding
// included.
func TestFoldLiterals_AgreesWithRegexp(t *testing.T) {
	patterns := []string{`error`, `ERROR|Warn`, `"status": "ok"`, `mask`, `ks`, `id: 42`, `a\.b`, `(?-i)12`}
	lines := []string{
		"", "error", "an ERROR here", "Error", "erro", "warning: x", `"STATUS": "OK",`,
		"MAS\u212a", "ma\u017fk", "\u212a\u017f", "K\u017f", "kS", "id: 42", "ID: 421", "a.b", "axb",
		"caf\u00e9 error", "\xff\xfe error", "\xff", strings.Repeat("x", 100) + "ErRoR" + strings.Repeat("y", 9),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"e", "E", "r", "R", "o", "O", "k", "K", "s", "S", "\u212a", "\u017f", "a", ".", " ", "w", "\u00e9", "\xff", "1", "2"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	for _, p := range patterns {
		re := regexp.MustCompile("(?i)" + p)
		m, ok := newLineMatcher(re).(*foldLiterals)
		if !ok {
			t.Fatalf("%q: want the literal fast path", p)
		}
		for _, line := range lines {
			if got, want := m.Match([]byte(line)), re.MatchString(line); got != want {
				t.Errorf("pattern %q, line %q: fast path says %v, regexp %v", p, line, got, want)
			}
		}
	}
}

func TestLowerASCII(t *testing.T) {
	for _, s := range []string{"", "A", "Hello, WORLD @[`{", "ABCDEFGHIJKLMNOPQRSTUVWXYZabc@[`{", "caf\u00c9 ABC", "\x80\xc1\xda\xdbAZ"} {
		var want strings.Builder
		for _, c := range []byte(s) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want.WriteByte(c)
		}
		got, ascii := lowerASCII([]byte("prefix:"), []byte(s))
		if string(got) != "prefix:"+want.String() {
			t.Errorf("lowerASCII(%q) = %q, want %q", s, got, "prefix:"+want.String())
		}
		if wantASCII := !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }); ascii != wantASCII {
			t.Errorf("lowerASCII(%q) ascii = %v, want %v", s, ascii, wantASCII)
		}
	}
}
