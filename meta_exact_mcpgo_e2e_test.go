package main

// The _meta numbers of requests and answers that mcp-go's server reads
// (dispatch's own loop reads only plain calls): an agent's request _meta
// forwarded to a tool listed beside proxy-dispatch or to a transparent
// read, a server's result _meta in the answer to a call with a _meta of
// its own, and a listed tool's definition _meta. mcp-go decodes every
// _meta into map[string]any, where 123456789012345678901234567890 is
// 1.2345678901234568e+29.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// exactMetaEnvelope is exactMeta as a request's own _meta, with a
// progress token beside it that dispatch replaces with one of its own.
var exactMetaEnvelope = strings.Replace(exactMeta, "{", `{"progressToken":"p9",`, 1)

// Over stdio. Before: the server received {"big":1.2345678901234568e+29,...}.
func TestServe_AgentMetaExactThroughMCPGo(t *testing.T) {
	a := startIDLines(t, "--no-cache", "--transparent", "--mcp", fixture("--raw-meta"), "--expose", "echo_raw_meta")
	initializeIDLines(a)
	cases := []struct{ name, request string }{
		{"exposed tool", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_raw_meta","arguments":{},"_meta":%s}}`, exactMetaEnvelope)},
		{"transparent read", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"fixture://raw-meta","_meta":%s}}`, exactMetaEnvelope)},
		{"transparent prompt", fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"raw-meta","_meta":%s}}`, exactMeta)},
	}
	for i, c := range cases {
		a.send(c.request)
		id, line := a.answer()
		if id != fmt.Sprint(i+1) {
			t.Fatalf("%s: answer to %s, want %d: %.300s", c.name, id, i+1, line)
		}
		checkExactMeta(t, c.name, firstText(t, c.name, line))
	}
}

// Over dispatch serve's streamable HTTP.
func TestServeHTTP_AgentMetaExactThroughMCPGo(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--raw-meta"), "--expose", "echo_raw_meta")
	headers := initializedSession(t, d.url)
	_, body := rawPost(t, d.url, headers, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_raw_meta","arguments":{},"_meta":%s}}`, exactMetaEnvelope))
	if answerID(body) != "2" {
		t.Fatalf("no answer: %.300s", body)
	}
	checkExactMeta(t, "exposed tool over HTTP", firstText(t, "exposed tool over HTTP", body))
}

// A server's result _meta, in the answer to a proxy-dispatch call that
// mcp-go's server reads (one with a _meta), and an exposed tool's
// definition _meta in tools/list. Before: "serial":9007199254740992 and
// "big":1.2345678901234568e+29.
func TestServe_ServerMetaExactThroughMCPGo(t *testing.T) {
	a := startIDLines(t, "--no-cache", "--mcp", fixture("--raw-meta"), "--expose", "echo_raw_meta", "--expose", "mixed")
	initializeIDLines(a)
	a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"mixed"},"_meta":{"progressToken":"p1"}}}`)
	if _, line := a.answer(); !strings.Contains(line, `"serial":9007199254740993`) {
		t.Errorf("a call with a _meta: want the server's result _meta as it wrote it (\"serial\":9007199254740993): %.600s", line)
	}
	a.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mixed","arguments":{},"_meta":{"progressToken":"p2"}}}`)
	if _, line := a.answer(); !strings.Contains(line, `"serial":9007199254740993`) {
		t.Errorf("an exposed tool's call with a _meta: want the server's result _meta as it wrote it: %.600s", line)
	}
	a.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	_, line := a.answer()
	var list struct {
		Result struct {
			Tools []struct {
				Name string          `json:"name"`
				Meta json.RawMessage `json:"_meta"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &list); err != nil {
		t.Fatalf("tools/list answer: %v: %.300s", err, line)
	}
	found := false
	for _, tool := range list.Result.Tools {
		if tool.Name == "echo_raw_meta" {
			found = true
			if !strings.Contains(string(tool.Meta), `"big":123456789012345678901234567890`) {
				t.Errorf("echo_raw_meta listed with _meta %s, want the server's as it wrote it (\"big\":123456789012345678901234567890)", tool.Meta)
			}
		}
	}
	if !found {
		t.Errorf("tools/list does not list echo_raw_meta: %.600s", line)
	}
}

// initializeIDLines opens a's MCP session.
func initializeIDLines(a *idLines) {
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// firstText is the first "text" member anywhere in the answer line (a
// tool's content, a read's contents, a prompt's message).
func firstText(t *testing.T, what, line string) string {
	t.Helper()
	var m struct {
		Error  json.RawMessage `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Error != nil {
		t.Fatalf("%s: no result: %.400s", what, line)
	}
	return innerText(t, what, string(m.Result))
}
