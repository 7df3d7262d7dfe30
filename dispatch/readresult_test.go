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
