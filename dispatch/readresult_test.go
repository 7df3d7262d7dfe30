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
