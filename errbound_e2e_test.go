package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/mcp"
)

// hugeErrorBound is the most a text that carries one server error may
// hold: the message's first MaxServerErrorMessage bytes, the note of the
// cut, and dispatch's words around them.
const hugeErrorBound = connections.MaxServerErrorMessage + 1024

// cutNote is the start of the note a message cut from total bytes ends with.
func cutNote(total string) string {
	return "…[dispatch cut this error message at 4,096 of its " + total + " bytes (MaxServerErrorMessage)"
}

// checkHugeError fails t unless text holds one cut server error: the
// message's start, the note of the cut, and nothing near the whole.
func checkHugeError(t *testing.T, what, text, start, total string, bound int) {
	t.Helper()
	if len(text) > bound {
		t.Errorf("%s: %d bytes, want at most %d: a server's error message must be cut: %.300s…", what, len(text), bound, text)
	}
	checkText(t, what, text[:min(len(text), bound)], []string{start, cutNote(total), "bytes not shown]"}, nil)
}

// A server's 2 MB JSON-RPC error message reaches the terminal cut, with a
// note of the cut: in a call's error, in --json output, and in list.
func TestServerErrorBounded_Shell(t *testing.T) {
	spec := fixture("--huge-errors")
	for _, args := range [][]string{
		{"--no-cache", "--mcp", spec, "call", "huge_error", "bytes:=2000000"},
		{"--no-cache", "--json", "--mcp", spec, "call", "huge_error", "bytes:=2000000"},
	} {
		stdout, stderr, code := runCLI(t, "", args...)
		if code == 0 {
			t.Errorf("%v: exit 0 for a failed call", args)
		}
		checkHugeError(t, fmt.Sprint(args[1:len(args)-3]), stdout+stderr, "server error -32603: EEEE", "2,000,000", hugeErrorBound)
	}

	listing := fixture("--error-on", "tools/list=2000000")
	stdout, stderr, _ := runCLI(t, "", "--no-cache", "--json", "--mcp", listing, "list")
	checkHugeError(t, "list --json", stdout+stderr, "refused tools/list: EEEE", "2,000,020", hugeErrorBound)
	stdout, stderr, _ = runCLI(t, "", "--no-cache", "--mcp", fixture("--error-on", "initialize=2000000"), "list")
	// The failed start's error is printed twice: in the table and on stderr.
	checkHugeError(t, "list of a server refusing initialize", stdout+stderr, "refused initialize: EEEE", "2,000,037", 2*hugeErrorBound+2048)
}

// Over MCP, a call's isError text, each step of a run and a prompt
// answered with a huge error are cut, over stdio and HTTP, and so is
// the log line of each call.
func TestServerErrorBounded_MCP(t *testing.T) {
	url := startFixtureHTTP(t, "http", "--huge-errors")
	tc := startDispatch(t, nil, "--no-cache", "--log-level", "info", "--mcp", fixture("--huge-errors"), "--mcp", url)
	huge := map[string]any{"bytes": 2000000}
	for _, conn := range []string{"c1", "c2"} {
		r := tc.mustCall(map[string]any{"action": "call", "tool": "huge_error", "connection": conn, "arguments": huge})
		if !r.IsError {
			t.Errorf("%s: a failed call is not isError", conn)
		}
		raw, _ := json.Marshal(r)
		checkHugeError(t, "call on "+conn, string(raw), "server error -32603: EEEE", "2,000,000", hugeErrorBound)
	}

	step := map[string]any{"action": "call", "tool": "huge_error", "connection": "c1", "arguments": huge}
	r := tc.mustCall(map[string]any{"action": "run", "steps": []any{step, step}})
	raw, _ := json.Marshal(r)
	if n := strings.Count(string(raw), cutNote("2,000,000")); n < 2 {
		t.Errorf("run of two failing calls: %d notes of a cut, want one a step (at least)", n)
	}
	// Each step's error shows in its text and in structuredContent.
	checkHugeError(t, "run of two failing calls", string(raw), "server error -32603: EEEE", "2,000,000", 4*hugeErrorBound+4096)

	r = tc.mustCall(map[string]any{"action": "call", "type": "prompt", "prompt": "huge-error", "connection": "c1",
		"arguments": map[string]any{"bytes": "2000000"}})
	raw, _ = json.Marshal(r)
	checkHugeError(t, "prompt", string(raw), "server error -32603: EEEE", "2,000,000", hugeErrorBound)

	// Four calls (two of them in the run) logged, each with its error.
	logged := tc.Stderr()
	if n := strings.Count(logged, cutNote("2,000,000")); n < 4 {
		t.Errorf("the log holds %d errors cut, want one a call (4)", n)
	}
	if len(logged) > 8*hugeErrorBound {
		t.Errorf("the log of four failed calls is %d bytes: %.300s…", len(logged), logged)
	}
}

// list and a resource read over MCP, against servers refusing them with a
// huge error.
func TestServerErrorBounded_MCPListAndRead(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--error-on", "tools/list=2000000"),
		"--mcp", fixture("--readables", "--error-on", "resources/read=2000000"))
	r := tc.mustCall(map[string]any{"action": "list"})
	raw, _ := json.Marshal(r)
	checkHugeError(t, "list", string(raw), "refused tools/list: EEEE", "2,000,020", 2*hugeErrorBound)

	r = tc.mustCall(map[string]any{"action": "call", "type": "resource", "uri": "fixture://read/hello.txt", "connection": "c2"})
	raw, _ = json.Marshal(r)
	checkHugeError(t, "read", string(raw), "refused resources/read: EEEE", "2,000,024", hugeErrorBound)
}

// --transparent passes a server's own error to a prompts/get on as a
// JSON-RPC error: its message is cut, and data too large is left out
// with a note in the message, while small data passes as before.
func TestServerErrorBounded_Transparent(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--huge-errors"))
	got := tc.requestFailing("prompts/get", map[string]any{"name": "huge-error", "arguments": map[string]any{"bytes": "2000000"}})
	if got.Code != mcp.INTERNAL_ERROR {
		t.Errorf("code %d, want the server's -32603", got.Code)
	}
	checkHugeError(t, "prompts/get's error", got.Message, "EEEE", "2,000,000", connections.MaxServerErrorMessage+200)

	got = tc.requestFailing("prompts/get", map[string]any{"name": "huge-error", "arguments": map[string]any{"dataBytes": "1000000"}})
	if got.Code != mcp.URL_ELICITATION_REQUIRED || got.Data != nil {
		t.Errorf("code %d data of %d bytes, want the server's -32042 without its million bytes of data", got.Code, len(mustJSON(got.Data)))
	}
	checkText(t, "prompts/get's error with huge data", got.Message,
		[]string{"URL elicitation required", "dispatch left out this error's data", "more than 16,384 (MaxServerErrorData)"}, nil)

	got = tc.requestFailing("prompts/get", map[string]any{"name": "huge-error", "arguments": map[string]any{"dataBytes": "100"}})
	if data := mustJSON(got.Data); got.Code != mcp.URL_ELICITATION_REQUIRED || !strings.Contains(data, strings.Repeat("D", 100)) {
		t.Errorf("small data: code %d data %s, want the server's -32042 with its data", got.Code, data)
	}
}
