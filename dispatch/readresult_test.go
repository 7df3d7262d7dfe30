package dispatch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dispatch/spill"
)

// A TOON result file comes from the same hostile tool output as a JSON
// one: querying it has the same bounds.
func TestReadFile_QueryTOONIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.toon")
	if err := os.WriteFile(path, []byte("s: "+strings.Repeat("x", 1<<20)+"\nn: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"[" + strings.TrimSuffix(strings.Repeat("@this,", 64), ",") + "]", "on what one query may build"},
		{"s" + strings.Repeat("|[@this,@this]", 8), "on what one query may build"},
		{"[" + strings.Repeat("a,", 70) + "a]", "multipath elements"},
		{"n", ""},
	}
	for _, tt := range tests {
		r, err := ReadFile(path, Request{Action: "readresult", ResultFile: path, Op: "query", Path: tt.path}, spill.Limits{})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("query %.40q: %v", tt.path, err)
		case tt.want == "" && string(r.Value) != "3":
			t.Errorf("query %.40q = %s, want 3", tt.path, r.Value)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("query %.40q = %v, want an error containing %q", tt.path, err, tt.want)
		}
	}
}

// A slice's range errors name the request's parameters, fromLine and
// toLine, not the spill package's "from" and "to".
func TestReadFile_SliceRangeErrorsNameParameters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte("1\n2\n3\n4\n5\n6\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		from, to int64
		want     string // "" means: the slice is read
	}{
		{5, 2, `"toLine" (2) is before "fromLine" (5)`},
		{2, 1, `"toLine" (1) is before "fromLine" (2)`},
		{-1, 3, `"fromLine" must be at least 1 (lines are numbered from 1), got -1`},
		{-4, 0, `"fromLine" must be at least 1`},
		// 0 is a fromLine left out too (JSON cannot tell them apart
		// here): the message must fit both, not say it is missing.
		{0, 3, `slice needs "fromLine", the first line to show: 1 or more`},
		{2, 2, ""},
		{5, 0, ""}, // toLine left out: the default count
	}
	for _, tt := range tests {
		_, err := ReadFile(path, Request{Action: "readresult", ResultFile: path, Op: "slice", FromLine: tt.from, ToLine: tt.to}, spill.Limits{})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("slice %d-%d: %v", tt.from, tt.to, err)
		case tt.want != "" && (!IsUsage(err) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("slice %d-%d = %v, want a usage error containing %q", tt.from, tt.to, err, tt.want)
		}
	}
}

// value is the data alone, exact: the lines of head, tail and slice as
// the file holds them (a last line without "\n" gets none, CRLF stays),
// and no value at all when the lines are not UTF-8 (a JSON string would
// replace the bytes with U+FFFD), as for read.
func TestReadFile_ValueIsTheBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	noFinal := write("nofinal.txt", "a\nb\nc")
	crlf := write("crlf.txt", "a\r\nb\r\n\r\nc\r")
	bad := write("bad.txt", "ok\nc\xff\xfed\nend\n")
	one := 1
	for _, tt := range []struct {
		name, path string
		req        Request
		want       string // "" means: no value
	}{
		{"tail without final newline", noFinal, Request{Op: "tail"}, `"a\nb\nc"`},
		{"head without final newline", noFinal, Request{Op: "head"}, `"a\nb\nc"`},
		{"head of its first line", noFinal, Request{Op: "head", Lines: &one}, `"a\n"`},
		{"slice of its last line", noFinal, Request{Op: "slice", FromLine: 3, ToLine: 3}, `"c"`},
		{"CRLF lines", crlf, Request{Op: "head"}, `"a\r\nb\r\n\r\nc\r"`},
		{"head of bytes that are not UTF-8", bad, Request{Op: "head"}, ""},
		{"grep of bytes that are not UTF-8", bad, Request{Op: "grep", Pattern: "d"}, ""},
		{"grep of UTF-8 lines", bad, Request{Op: "grep", Pattern: "ok|end"}, `"ok\nend\n"`},
		{"read of bytes that are not UTF-8", bad, Request{Op: "read"}, ""},
	} {
		tt.req.Action, tt.req.ResultFile = "readresult", tt.path
		r, err := ReadFile(tt.path, tt.req, spill.Limits{})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(r.Value) != tt.want {
			t.Errorf("%s: value %s, want %s", tt.name, r.Value, tt.want)
		}
	}
}
