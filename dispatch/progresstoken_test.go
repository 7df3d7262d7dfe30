package dispatch

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A token mcp-go would change goes to it in a string it keeps, and comes
// back out of it as written; other messages are left as they are.
func TestExactProgressToken_RoundTrip(t *testing.T) {
	for _, tc := range []struct {
		token   string
		swapped bool
	}{
		{`7`, false}, {`"abc"`, false}, {`null`, false},
		{`9007199254740993`, true}, {`1.0`, true}, {`-0`, true}, {`1e400`, true}, {`12345678901234567890123`, true},
		{`"\u00e9"`, true}, {`"dispatch-token:7"`, true}, {`{"a":1}`, true},
	} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"other":1,"progressToken":` + tc.token + `},"arguments":{}}}`)
		out := ExactProgressToken(msg)
		if changed := string(out) != string(msg); changed != tc.swapped {
			t.Errorf("token %s: changed %v, want %v: %s", tc.token, changed, tc.swapped, out)
		}
		var req mcp.CallToolRequest
		if err := json.Unmarshal(out, &req); err != nil {
			t.Errorf("token %s: mcp-go cannot read %s: %v", tc.token, out, err)
			continue
		}
		if !tc.swapped || req.Params.Meta == nil {
			continue
		}
		back, err := json.Marshal(exactProgressToken(req.Params.Meta.ProgressToken))
		if err != nil || string(back) != tc.token {
			t.Errorf("token %s came back as %s (%v)", tc.token, back, err)
		}
	}
	for _, msg := range []string{`{"jsonrpc":"2.0","method":"x"}`, `not json`, `{"params":{"_meta":{"progressToken":1.0`} {
		if out := ExactProgressToken([]byte(msg)); string(out) != msg {
			t.Errorf("%s became %s", msg, out)
		}
	}
}
