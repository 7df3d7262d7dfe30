package upstream

import (
	"bufio"
	"strings"
	"testing"
)

// TestRecoverID is the rule for answering a message dispatch cannot
// decode: the top-level id when it can be read, else none (null).
func TestRecoverID(t *testing.T) {
	deep := strings.Repeat("[", 50000) + strings.Repeat("]", 50000)
	tests := []struct {
		name, data, want string
	}{
		{"string id", `{"jsonrpc":"2.0","id":"a1","method":"x"}`, `"a1"`},
		{"number id", `{"id":42,"method":"x"}`, `42`},
		{"large number id kept exactly", `{"id":9007199254740993}`, `9007199254740993`},
		{"id after deep params", `{"params":` + deep + `,"id":"late"}`, `"late"`},
		{"id before broken JSON", `{"id":7,"params":{"a":` + "\x00", `7`},
		{"id before a cut", `{"id":"cut","params":{"message":"xxxx`, `"cut"`},
		{"nested id is not the message's", `{"params":{"id":5},"method":"x"`, ``},
		{"id after a cut", `{"params":{"message":"xxxx`, ``},
		{"null id", `{"id":null}`, ``},
		{"object id", `{"id":{"a":1}}`, ``},
		{"not an object", `[{"id":1}]`, ``},
		{"not JSON", `hello`, ``},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(recoverID([]byte(tt.data))); got != tt.want {
				t.Errorf("recoverID(%.60q) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}

// TestReadMessage: a line over the limit is flagged and only its start
// kept; the lines around it are read whole.
func TestReadMessage(t *testing.T) {
	big := `{"id":1,"x":"` + strings.Repeat("y", 3*idScanBytes) + `"}`
	r := bufio.NewReaderSize(strings.NewReader("short\n"+big+"\nafter\n"), 4096)
	const limit = 2 * idScanBytes
	want := []struct {
		data     string
		oversize bool
	}{{"short\n", false}, {big[:idScanBytes], true}, {"after\n", false}}
	for i, w := range want {
		msg, err := readMessage(r, limit)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if string(msg.data) != w.data || msg.oversize != w.oversize {
			t.Errorf("message %d = %.40q (%d bytes) oversize %v, want %.40q (%d bytes) oversize %v",
				i, msg.data, len(msg.data), msg.oversize, w.data, len(w.data), w.oversize)
		}
	}
}
