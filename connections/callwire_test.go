package connections

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestEncodeRequest_AsEncodingJSON holds the direct encoding of a plain
// tools/call to what encoding/json writes, and checks that what it leaves
// to encoding/json is still one line.
func TestEncodeRequest_AsEncodingJSON(t *testing.T) {
	cases := []struct {
		name   string
		params any
	}{
		{"name and arguments", callParams{Name: "echo", Arguments: json.RawMessage(`{"message":"<hi> & \u00e9"}`)}},
		{"no arguments", callParams{Name: "list_files"}},
		{"escaped name", callParams{Name: "t\x1b[31m\"x\"", Arguments: json.RawMessage(`{}`)}},
		{"arguments over lines", callParams{Name: "echo", Arguments: json.RawMessage("{\n  \"message\": \"hi\"\n}")}},
		{"meta", callParams{Name: "echo", Meta: json.RawMessage(`{"progressToken":"p1"}`)}},
		{"task", callParams{Name: "echo", Task: &struct{}{}}},
		{"input responses", callParams{Name: "echo", InputResponses: map[string]json.RawMessage{"a": json.RawMessage(`{}`)}, RequestState: "s"}},
		// StartCall's: a pointer, its arguments known to be valid.
		{"started, known valid", &callParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`), argumentsValid: true}},
		{"started, over lines", &callParams{Name: "echo", Arguments: json.RawMessage("{\n \"a\": 1\n}"), argumentsValid: true}},
		{"started, meta", &callParams{Name: "echo", Meta: json.RawMessage(`{"k":123456789012345678901234567890}`), argumentsValid: true}},
		{"other params", map[string]any{"uri": "file:///x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, id := range []mcp.RequestId{mcp.NewRequestId("d17"), mcp.NewRequestId(int64(3))} {
				request := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: "tools/call", Params: c.params}
				line, err := encodeRequest(request)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.IndexByte(line, '\n') != len(line)-1 {
					t.Fatalf("not one line: %q", line)
				}
				want, err := json.Marshal(request)
				if err != nil {
					t.Fatal(err)
				}
				var got, expected any
				if err := json.Unmarshal(line, &got); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				if err := json.Unmarshal(want, &expected); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, expected) {
					t.Errorf("encoded %s\nencoding/json: %s", line, want)
				}
			}
		})
	}
}

// TestMayNeedInput_AsDecoding holds the key skim to json.Unmarshal's
// reading of "resultType" (whose keys match case-insensitively).
func TestMayNeedInput_AsDecoding(t *testing.T) {
	for _, raw := range []string{
		`{"content":[]}`,
		`{"resultType":"input_required","inputRequests":{}}`,
		`{"ResultType":"input_required","inputRequests":{}}`,
		`{"content":[{"resultType":"input_required"}]}`,
		`{"resultType":"complete"}`,
		`[{"resultType":"input_required"}]`,
	} {
		_, decoded := func() (inputRequired, bool) {
			var r inputRequired
			if json.Unmarshal([]byte(raw), &r) != nil || r.ResultType != string(mcp.ResultTypeInputRequired) {
				return inputRequired{}, false
			}
			return r, true
		}()
		if _, got := needsInput(json.RawMessage(raw)); got != decoded {
			t.Errorf("needsInput(%s) = %v, decoding says %v", raw, got, decoded)
		}
		if decoded && !mayNeedInput(json.RawMessage(raw)) {
			t.Errorf("mayNeedInput(%s) = false for an input request", raw)
		}
	}
}

// TestPlainRequestID_AsUnmarshalJSON holds the quick reading of an
// answer's id to mcp.RequestId's own.
func TestPlainRequestID_AsUnmarshalJSON(t *testing.T) {
	for _, raw := range []string{`"d17"`, `"x y"`, `"é"`, `"a\"b"`, `"\u0064"`, `0`, `-3`, `42`, `123456789012345`, `1234567890123456789`, `1.5`, `1e3`, `2.0`} {
		var want mcp.RequestId
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		msg, ok := parseEnvelope([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"result":{}}`))
		if !ok || msg.ID == nil {
			t.Fatalf("id %s: not parsed", raw)
		}
		if msg.ID.String() != want.String() || !reflect.DeepEqual(msg.ID.Value(), want.Value()) {
			t.Errorf("id %s read as %v (%T), UnmarshalJSON reads %v (%T)", raw, msg.ID.Value(), msg.ID.Value(), want.Value(), want.Value())
		}
	}
}
