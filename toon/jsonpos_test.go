package toon

import (
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
)

// A JSON error says where: line and column as an editor counts them, also
// when the input arrives in pieces and the parser's buffer has moved on.
func TestParseJSON_ErrorPosition(t *testing.T) {
	long := strings.Repeat(" ", 40<<10) // past the first buffer refill
	tests := []struct {
		name, in, want string
	}{
		{"first line", `{"a": }`, "line 1, column 7 (offset 6): "},
		{"later line", "{\"a\":\n [1,}\n", "line 2, column 5 (offset 10): "},
		{"cut short", "{\"a\":\n [1,\n", "line 3, column 1 (offset 11): unexpected end of JSON input"},
		{"cut mid-line", "[1,\n 2", "line 2, column 3 (offset 6): unexpected end of JSON input"},
		{"after a long first line", "[" + long + "1,\n\n  x]", fmt.Sprintf("line 3, column 3 (offset %d): ", len(long)+7)},
		{"CRLF lines", "[1,\r\n2,\r\n]", "line 3, column 1 (offset 9): "},
	}
	for _, tt := range tests {
		for _, whole := range []bool{true, false} {
			r := strings.NewReader(tt.in)
			var in interface{ Read([]byte) (int, error) } = r
			if !whole {
				in = iotest.OneByteReader(r)
			}
			_, err := ParseJSON(in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s (whole read %v): error %v, want it to contain %q", tt.name, whole, err, tt.want)
			}
		}
	}
}
