package upstream

import (
	"encoding/json"
	"testing"
)

// TestParseHotCall checks which messages the hot path takes: exactly the
// tools/call that mcp-go would serve with nothing but a name and
// arguments, and whose id it writes back as it came (which tools it
// serves, hotTool decides).
func TestParseHotCall(t *testing.T) {
	const args = `{"action":"call","tool":"echo"}`
	cases := []struct {
		line string
		hot  bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + args + `}}`, true},
		{`{"method":"tools/call","params":{"arguments":` + args + `,"name":"proxy-dispatch"},"id":"t-1","jsonrpc":"2.0"}`, true},
		{` {"jsonrpc":"2.0","id":-12,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}` + "\n", true},

		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + args + `,"_meta":{"progressToken":1}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + args + `,"task":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, true}, // an exposed tool's, perhaps
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy\u002ddispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7,"arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":"{}"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":12345678901234567,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":"<x>","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":"é","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"proxy-dispatch","arguments":{}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}},"extra":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{}}}]`, false},
	}
	for _, c := range cases {
		call, ok := parseHotCall([]byte(c.line))
		if ok != c.hot {
			t.Errorf("parseHotCall(%s) = %v, want %v", c.line, ok, c.hot)
			continue
		}
		if !ok {
			continue
		}
		// What the hot path echoes and files the request under must be
		// what mcp-go writes back and idKey spells.
		var msg message
		if err := json.Unmarshal([]byte(c.line), &msg); err != nil {
			t.Fatal(err)
		}
		if string(call.id) != idKey(msg.ID) {
			t.Errorf("%s: id %s, idKey %s", c.line, call.id, idKey(msg.ID))
		}
		if answer, err := json.Marshal(rawID(msg.ID)); err != nil || string(answer) != string(call.id) {
			t.Errorf("%s: id %s, mcp-go answers to %s (%v)", c.line, call.id, answer, err)
		}
		var params struct {
			Params struct{ Arguments json.RawMessage }
		}
		if err := json.Unmarshal([]byte(c.line), &params); err != nil || string(call.arguments) != string(params.Params.Arguments) {
			t.Errorf("%s: arguments %s, want %s (%v)", c.line, call.arguments, params.Params.Arguments, err)
		}
	}
}
