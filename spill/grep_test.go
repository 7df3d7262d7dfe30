package spill

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLimits_Grep(t *testing.T) {
	content := numbered(30)
	tests := []struct {
		name      string
		content   string
		opts      GrepOptions
		lim       Limits
		wantText  string // exact text form, when set
		wantNums  []int64
		wantTotal int64
		wantShown int
		wantTrunc bool
		notes     []string
	}{
		{
			name: "matches with line numbers", content: content, opts: GrepOptions{Pattern: `^line 1\d$`},
			wantNums: []int64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, wantTotal: 10, wantShown: 10,
			notes: []string{"10:line 10\n11:line 11\n", "10 matching lines in all, all shown"},
		},
		{
			name: "case-insensitive", content: "Alpha\nBETA\ngamma\n", opts: GrepOptions{Pattern: "beta"},
			wantText: "2:BETA\n[1 matching lines in all, all shown]\n", wantNums: []int64{2}, wantTotal: 1, wantShown: 1,
		},
		{
			name: "context and separators", content: content, opts: GrepOptions{Pattern: `^line (5|6|20)$`, Context: 1},
			wantText: "4-line 4\n5:line 5\n6:line 6\n7-line 7\n--\n19-line 19\n20:line 20\n21-line 21\n[3 matching lines in all, all shown]\n",
			wantNums: []int64{4, 5, 6, 7, 19, 20, 21}, wantTotal: 3, wantShown: 3,
		},
		{
			name: "overlapping context", content: content, opts: GrepOptions{Pattern: `^line (5|8)$`, Context: 2},
			wantNums: []int64{3, 4, 5, 6, 7, 8, 9, 10}, wantTotal: 2, wantShown: 2,
		},
		{
			name: "context at file edges", content: "a\nb\nc\n", opts: GrepOptions{Pattern: "a|c", Context: 5},
			wantText: "1:a\n2-b\n3:c\n[2 matching lines in all, all shown]\n", wantNums: []int64{1, 2, 3}, wantTotal: 2, wantShown: 2,
		},
		{
			name: "max matches still counts all", content: content, opts: GrepOptions{Pattern: "line", MaxMatches: 3},
			wantNums: []int64{1, 2, 3}, wantTotal: 30, wantShown: 3, wantTrunc: true,
			notes: []string{"30 matching lines in all; showing the first 3 (at most 3 matches are shown per call); continue with fromLine=4"},
		},
		{
			name: "default max matches", content: numbered(80), opts: GrepOptions{Pattern: "line"},
			wantTotal: 80, wantShown: DefaultMaxMatches, wantTrunc: true, notes: []string{"80 matching lines in all; showing the first 50"},
		},
		{
			name: "line cap", content: content, opts: GrepOptions{Pattern: "line", MaxMatches: 100}, lim: Limits{MaxLines: 4},
			wantNums: []int64{1, 2, 3, 4}, wantTotal: 30, wantShown: 4, wantTrunc: true,
			notes: []string{"at most 4 lines are shown per call", "continue with fromLine=5"},
		},
		{
			name: "byte cap", content: content, opts: GrepOptions{Pattern: "line"}, lim: Limits{MaxOutputBytes: 20},
			wantNums: []int64{1, 2}, wantTotal: 30, wantShown: 2, wantTrunc: true,
			notes: []string{"output capped at 20 B", "continue with fromLine=3"},
		},
		{
			name: "context clamped", content: content, opts: GrepOptions{Pattern: "^line 15$", Context: 50}, lim: Limits{MaxContext: 1},
			wantNums: []int64{14, 15, 16}, wantTotal: 1, wantShown: 1,
			notes: []string{"asked for 50 context lines; at most 1 are shown (clamped)"},
		},
		{
			name: "from", content: content, opts: GrepOptions{Pattern: "^line 2", From: 25},
			wantNums: []int64{25, 26, 27, 28, 29}, wantTotal: 5, wantShown: 5, notes: []string{"5 matching lines in all from line 25 on"},
		},
		{
			name: "no match", content: content, opts: GrepOptions{Pattern: "zebra"},
			wantTotal: 0, notes: []string{`no line matches "zebra" (case-insensitive); the file has 30 lines`},
		},
		{
			name: "crlf and anchors", content: "foo\r\nbar\r\n", opts: GrepOptions{Pattern: "^bar$"},
			wantText: "2:bar\n[1 matching lines in all, all shown]\n", wantNums: []int64{2}, wantTotal: 1, wantShown: 1,
		},
		{
			name: "no trailing newline", content: "a\nb", opts: GrepOptions{Pattern: "b"},
			wantNums: []int64{2}, wantTotal: 1, wantShown: 1,
		},
		{
			name: "empty file", content: "", opts: GrepOptions{Pattern: "x"},
			notes: []string{"the file has 0 lines"},
		},
		{
			name: "regex, not literal", content: "a.c\nabc\n", opts: GrepOptions{Pattern: "a.c"},
			wantNums: []int64{1, 2}, wantTotal: 2, wantShown: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.txt", tt.content)
			r, err := tt.lim.Grep(openFile(t, path), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantText != "" && r.Text() != tt.wantText {
				t.Errorf("text =\n%s\nwant\n%s", r.Text(), tt.wantText)
			}
			if tt.wantNums != nil {
				if got := numbers(r.Lines); !slices.Equal(got, tt.wantNums) {
					t.Errorf("numbers = %v, want %v", got, tt.wantNums)
				}
			}
			if r.TotalMatches != tt.wantTotal || r.Shown != tt.wantShown || r.Truncated != tt.wantTrunc {
				t.Errorf("total=%d shown=%d truncated=%v, want %d %d %v", r.TotalMatches, r.Shown, r.Truncated, tt.wantTotal, tt.wantShown, tt.wantTrunc)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
}

func TestLimits_Grep_errors(t *testing.T) {
	path := writeTemp(t, "f.txt", "a(b\n")
	tests := []struct {
		name    string
		opts    GrepOptions
		invalid bool
		want    string
	}{
		{"invalid regex", GrepOptions{Pattern: "a(b"}, true, `invalid regular expression "a(b" (RE2 syntax`},
		{"unsupported backreference", GrepOptions{Pattern: `(a)\1`}, true, "invalid regular expression"},
		{"empty pattern", GrepOptions{}, true, "the pattern is empty"},
		{"negative context", GrepOptions{Pattern: "a", Context: -1}, false, "context must not be negative"},
		{"negative max", GrepOptions{Pattern: "a", MaxMatches: -1}, false, "max matches must not be negative"},
		{"from past the end", GrepOptions{Pattern: "a", From: 5}, false, "fromLine=5 is past the end of the file: it has 1 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Grep(path, tt.opts)
			if err == nil {
				t.Fatalf("no error; result %v", r)
			}
			if errors.Is(err, ErrInvalidPattern) != tt.invalid {
				t.Errorf("errors.Is(ErrInvalidPattern) = %v", !tt.invalid)
			}
			mustContain(t, "error", err.Error(), tt.want)
		})
	}
}

func TestLimits_Grep_hugeLine(t *testing.T) {
	// A 10 MB line with the match at its very end: matched in full, streamed.
	line := strings.Repeat("x", 10<<20) + "NEEDLE"
	path := writeTemp(t, "big.txt", "first\n"+line+"\r\nlast needle\n")
	r, err := Grep(path, GrepOptions{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalMatches != 2 || !slices.Equal(numbers(r.Lines), []int64{2, 3}) {
		t.Fatalf("total=%d numbers=%v", r.TotalMatches, numbers(r.Lines))
	}
	if r.Lines[0].Cut != int64(len(line)-DefaultMaxLineBytes) || r.Lines[0].Offset != 6 {
		t.Errorf("long line: cut=%d offset=%d", r.Lines[0].Cut, r.Lines[0].Offset)
	}
	mustContain(t, "text", r.Text(), "…[+10483718 bytes]", "read a whole line with read offset=<its byte offset> (the first is line 2, byte offset 6)")
	// A pattern anchored at the start of the long line, and one crossing a
	// buffer boundary.
	for _, p := range []string{"^x+needle", "xxNeedle"} {
		r, err := Grep(path, GrepOptions{Pattern: p})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalMatches != 1 {
			t.Errorf("%s: total = %d, want 1", p, r.TotalMatches)
		}
	}
}
