package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
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

// An answer that cannot be encoded is answered with an error naming why,
// not dropped (before: logged, and the agent waited for ever).
func TestStdioServer_WriteAnswersUnencodable(t *testing.T) {
	var out bytes.Buffer
	s := &stdioServer{out: newGroupWriter(&out, slog.New(slog.DiscardHandler)), log: slog.New(slog.DiscardHandler)}
	deep := json.RawMessage(strings.Repeat("[", 10001) + strings.Repeat("]", 10001))
	s.write(mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(7)), Result: deep})
	var answer struct {
		ID    int64
		Error *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.ID != 7 || answer.Error == nil {
		t.Fatalf("want an error answer to id 7, got %q (%v)", out.String(), err)
	}
	if answer.Error.Code != mcp.INTERNAL_ERROR || !strings.Contains(answer.Error.Message, "exceeded max depth") || !strings.Contains(answer.Error.Message, "resultToFile") {
		t.Errorf("error %d %q: want an internal error saying why and what to do", answer.Error.Code, answer.Error.Message)
	}
}
