package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// repairedBadUTF8 is the fixture's BadUTF8Bytes ("\xff\xfe \xc3(
// \xed\xa0\x80") as encoding/json repairs them: each invalid byte a
// U+FFFD.
const repairedBadUTF8 = "\ufffd\ufffd \ufffd( \ufffd\ufffd\ufffd"

// checkRepairedJSON fails t unless data, what the agent received, is
// valid JSON and valid UTF-8, and what it means holds the fixture's
// invalid bytes repaired.
func checkRepairedJSON(t *testing.T, what string, data []byte) {
	t.Helper()
	if !utf8.Valid(data) || !json.Valid(data) {
		t.Errorf("%s: the agent got invalid UTF-8 or JSON (valid UTF-8 %v, valid JSON %v):\n%q", what, utf8.Valid(data), json.Valid(data), data)
		return
	}
	if want := "bad " + repairedBadUTF8 + " end"; !holdsText(data, want) {
		t.Errorf("%s: want the text %q, got %s", what, want, data)
	}
}

// holdsText says whether a string of the JSON data, or of JSON in one of
// its strings (dispatch answers a resource read as JSON text), holds want.
func holdsText(data []byte, want string) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return strings.Contains(v, want) || (json.Valid([]byte(v)) && holdsText([]byte(v), want))
		case []any:
			for _, item := range v {
				if walk(item) {
					return true
				}
			}
		case map[string]any:
			for _, item := range v {
				if walk(item) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// callRaw sends one tools/call with id and returns its
// result as dispatch sent it.
func callRaw(t *testing.T, tc *testClient, id mcp.RequestId, params map[string]any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: "tools/call", Params: params})
	if err != nil {
		t.Fatalf("call %v: %v\nstderr:\n%s", params, err, tc.Stderr())
	}
	if resp.Error != nil {
		t.Fatalf("call %v: JSON-RPC error %d: %s", params, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result
}

// TestServe_InvalidUTF8FromServerIsRepaired: a server that answers with
// bytes that are not valid UTF-8, over each transport, reaches the agent
// as valid JSON with U+FFFD in their place, through the hot path (a
// plain call), the general path (one with _meta) and a resource read. A
// strict JSON client drops a line that is not, and waits for ever.
func TestServe_InvalidUTF8FromServerIsRepaired(t *testing.T) {
	for _, transportName := range []string{"stdio", "http", "sse"} {
		t.Run(transportName, func(t *testing.T) {
			spec := fixture("--bad-utf8")
			if transportName != "stdio" {
				spec = startFixtureHTTP(t, transportName, "--bad-utf8")
			}
			if transportName == "sse" {
				spec = "sse+" + spec
			}
			tc := startDispatch(t, nil, "--no-cache", "--mcp", spec)
			call := map[string]any{"action": "call", "tool": "bad_utf8"}
			checkRepairedJSON(t, "hot path", callRaw(t, tc, mcp.NewRequestId(int64(42)),
				map[string]any{"name": "proxy-dispatch", "arguments": call}))
			checkRepairedJSON(t, "general path", callRaw(t, tc, mcp.NewRequestId("general"),
				map[string]any{"name": "proxy-dispatch", "arguments": call, "_meta": map[string]any{}}))
			read := map[string]any{"action": "call", "type": "resource", "uri": "fixture://bad-utf8.txt"}
			checkRepairedJSON(t, "resource read", callRaw(t, tc, mcp.NewRequestId(int64(43)),
				map[string]any{"name": "proxy-dispatch", "arguments": read}))
		})
	}
}

// TestServeHTTP_InvalidUTF8FromServerIsRepaired: dispatch serve's HTTP
// body holds no invalid UTF-8 either.
func TestServeHTTP_InvalidUTF8FromServerIsRepaired(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--bad-utf8"))
	resp, _ := rawPost(t, d.url, nil, initializeBody)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize: no session id (status %s)", resp.Status)
	}
	headers := map[string]string{"Mcp-Session-Id": session}
	rawPost(t, d.url, headers, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp, body := rawPost(t, d.url, headers,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"bad_utf8"}}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("call: %s %s", resp.Status, body)
	}
	// The body is one JSON-RPC message, or an SSE event carrying one.
	message := body
	if _, data, ok := strings.Cut(body, "data:"); ok {
		message, _, _ = strings.Cut(data, "\n")
	}
	if !utf8.ValidString(body) {
		t.Errorf("the HTTP body is not valid UTF-8: %q", body)
	}
	checkRepairedJSON(t, "HTTP body", []byte(strings.TrimSpace(message)))
}

// TestCLI_InvalidUTF8FromServerIsRepaired: dispatch --json call prints
// valid JSON.
func TestCLI_InvalidUTF8FromServerIsRepaired(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--bad-utf8"), "--json", "call", "bad_utf8")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	checkRepairedJSON(t, "--json call", []byte(stdout))
}

// TestServe_ToolNamedInInvalidUTF8 is a tool whose name is not valid
// UTF-8: dispatch could only show it repaired, a name the server does
// not know. It is neither listed nor suggested as callable; a call by
// a close name says why it is missing.
func TestServe_ToolNamedInInvalidUTF8(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--bad-utf8"))
	list := tc.mustOK(map[string]any{"action": "list"}).text()
	if strings.Contains(list, "\ufffd") {
		t.Errorf("list shows a name dispatch cannot call:\n%s", list)
	}
	// Before: list said nothing of the tool left out.
	var listed struct {
		Connections []struct {
			Warnings []string `json:"warnings"`
		} `json:"connections"`
	}
	if err := json.Unmarshal([]byte(list), &listed); err != nil || len(listed.Connections) != 1 {
		t.Fatalf("list: %v\n%s", err, list)
	}
	checkText(t, "list warnings", strings.Join(listed.Connections[0].Warnings, "\n"), []string{"not valid UTF-8", `"t\xff\xfe`, "1 tool"}, []string{"\ufffd"})
	r := tc.mustCall(map[string]any{"action": "call", "tool": "t"})
	text := r.text()
	if !r.IsError {
		t.Fatalf("call of t: want an error, got %s", text)
	}
	checkText(t, "error", text, []string{"not valid UTF-8", `c1: "t\xff\xfe`}, []string{"\ufffd"})
	info := tc.mustCall(map[string]any{"action": "info", "tool": "t"})
	checkText(t, "info", info.text(), []string{"not valid UTF-8"}, []string{"\ufffd"})
}
