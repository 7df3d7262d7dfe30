package upstream

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParsePosted reads what the guard and swapHTTP need from one decode
// of a POST body: what the message is, its id, and a cancel's requestId.
func TestParsePosted(t *testing.T) {
	tests := []struct {
		name, body          string
		method, id, request string
		kind                string
	}{
		{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}`, "tools/call", "7", "", "request tools/call"},
		{"cancel", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a<b","reason":"r"}}`, "notifications/cancelled", "", `"a<b"`, "notification notifications/cancelled"},
		{"answer", `{"jsonrpc":"2.0","id":3,"result":{}}`, "", "3", "", "response 3"},
		// Params that are not an object still leave the message readable.
		{"array params", `{"jsonrpc":"2.0","id":1e400,"method":"ping","params":[1]}`, "ping", "1e400", "", "request ping"},
		{"not JSON", `{"jsonrpc":`, "", "", "", "request "},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", "", "request "},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, "", "", "", "request "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := parsePosted([]byte(tt.body))
			if msg.Method != tt.method || string(msg.ID) != tt.id || string(msg.Params.RequestID) != tt.request || msg.kind() != tt.kind {
				t.Errorf("parsePosted(%s) = method %q id %q requestId %q kind %q; want %q %q %q %q",
					tt.body, msg.Method, msg.ID, msg.Params.RequestID, msg.kind(), tt.method, tt.id, tt.request, tt.kind)
			}
		})
	}
}

// TestValidRequestID: MCP allows a string or a number (or no id: a
// notification); anything else, null too, is refused, saying what it was.
func TestValidRequestID(t *testing.T) {
	for _, id := range []string{``, `1`, `-0`, `1e400`, `"x"`, `""`, ` 7`} {
		if !validRequestID(json.RawMessage(id)) {
			t.Errorf("validRequestID(%s) = false, want true", id)
		}
	}
	for id, kind := range map[string]string{`{}`: "an object", `{"a":1}`: "an object", `[1]`: "an array", `[]`: "an array", `true`: "a boolean", `false`: "a boolean", `null`: "null"} {
		if validRequestID(json.RawMessage(id)) {
			t.Errorf("validRequestID(%s) = true, want false", id)
		}
		if text := invalidIDText(json.RawMessage(id)); !strings.Contains(text, "id is "+kind) {
			t.Errorf("invalidIDText(%s) = %q, want it to say the id is %s", id, text, kind)
		}
	}
}
