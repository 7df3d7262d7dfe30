package main

// End-to-end tests of the meta parameter (call --meta, "meta" in a
// proxy-dispatch call): it reaches the server as the request's _meta with
// its numbers exactly as written, on every path a call, read or prompt
// takes. The fixture's --raw-meta tool, resource and prompt answer with the
// _meta bytes they received, before mcp-go decodes them.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exactMeta holds numbers a float64 does not: past its precision, whole
// but written with a fraction, a fraction past its precision, negative
// zero, and one nested in an array and an object.
const exactMeta = `{"big":123456789012345678901234567890,"f":1.000000000000000000001,"whole":1.0,"neg":-0,"deep":{"a":[9007199254740993]}}`

// exactMetaMembers are exactMeta's members as written.
var exactMetaMembers = map[string]string{
	"big":   `123456789012345678901234567890`,
	"f":     `1.000000000000000000001`,
	"whole": `1.0`,
	"neg":   `-0`,
	"deep":  `{"a":[9007199254740993]}`,
}

// checkExactMeta checks that got, the _meta a server received, holds
// exactMeta's members as written (beside any dispatch adds: a progress
// token, the 2026-07-28 protocol's facts).
func checkExactMeta(t *testing.T, what, got string) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(got)), &members); err != nil {
		t.Errorf("%s: the server received no _meta object (%v): %q", what, err, got)
		return
	}
	for key, want := range exactMetaMembers {
		if string(members[key]) != want {
			t.Errorf("%s: the server received _meta.%s = %s, want %s (whole _meta: %s)", what, key, members[key], want, got)
		}
	}
}

// From the shell: call, read and prompt --meta, to a stdio server and a
// streamable HTTP one, in this process and in a shell session. Before:
// {"big":1.2345678901234568e+29,"f":1,"whole":1,"neg":-0 ...}.
func TestCLI_MetaNumbersExact(t *testing.T) {
	commands := [][]string{
		{"call", "echo_raw_meta", "--meta", exactMeta},
		{"read", "fixture://raw-meta", "--meta", exactMeta},
		{"prompt", "raw-meta", "--meta", exactMeta},
		{"call", "--type", "resource", "fixture://raw-meta", "--meta", exactMeta},
	}
	servers := map[string]string{
		"stdio": fixture("--raw-meta"),
		"http":  startFixtureHTTP(t, "http", "--raw-meta"),
	}
	for name, spec := range servers {
		for _, args := range commands {
			stdout, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", spec}, args...)...)
			what := name + ": " + strings.Join(args[:2], " ")
			if code != exitOK {
				t.Errorf("%s: exit %d: %s", what, code, stderr)
				continue
			}
			checkExactMeta(t, what, strings.TrimPrefix(stdout, "[user]\n"))
		}
	}

	for _, bad := range []string{`"x"`, `{bad`, `[1]`} {
		_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", servers["stdio"], "call", "echo_raw_meta", "--meta", bad)
		if code != exitUsage || !strings.Contains(stderr, `--meta must be a JSON object, such as --meta '{"key": "value"}'`) {
			t.Errorf("--meta %s: exit %d, want %d saying it must be an object: %s", bad, code, exitUsage, stderr)
		}
	}
}

// A 2026-07-28 server gets the protocol's facts in every request's _meta,
// merged into the caller's: the caller's numbers stay as written there too.
func TestCLI_MetaNumbersExactToModernServer(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "servers.json")
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"modern": map[string]any{"command": fixtureBin, "args": []string{"--raw-meta"}, "protocolVersion": "2026-07-28"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--config", cfg, "call", "echo_raw_meta", "--meta", exactMeta)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkExactMeta(t, "2026-07-28", stdout)
	if !strings.Contains(stdout, `"2026-07-28"`) {
		t.Errorf("the protocol's facts are missing from the _meta: %s", stdout)
	}
}

// rawMetaCall is a proxy-dispatch tools/call of what with meta; envelope,
// when not empty, is the request's own _meta (which takes it off the hot
// path, to mcp-go's server).
func rawMetaCall(id int, what, meta, envelope string) string {
	params := fmt.Sprintf(`{"name":"proxy-dispatch","arguments":{"action":"call",%s,"meta":%s}`, what, meta)
	if envelope != "" {
		params += `,"_meta":` + envelope
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}}`, id, params)
}

// resultText is the text of the first content item of the answer line.
func resultText(t *testing.T, line string) (string, bool) {
	t.Helper()
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Error != nil || len(m.Result.Content) == 0 {
		t.Errorf("not a tool result: %.500s", line)
		return "", false
	}
	return m.Result.Content[0].Text, m.Result.IsError
}

// Over MCP on stdio: a call with meta (its request without _meta is read
// by dispatch's own loop; with a progress token, by mcp-go's server), and
// a resource read and a prompt get with meta.
func TestServe_MetaNumbersExact(t *testing.T) {
	a := startIDLines(t, "--no-cache", "--mcp", fixture("--raw-meta"))
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	cases := []struct{ name, what, envelope string }{
		{"call", `"tool":"echo_raw_meta"`, ""},
		{"call with a progress token", `"tool":"echo_raw_meta"`, `{"progressToken":"p1"}`},
		{"read", `"uri":"fixture://raw-meta"`, ""},
		{"prompt", `"prompt":"raw-meta"`, ""},
		{"prompt with a progress token", `"prompt":"raw-meta"`, `{"progressToken":7}`},
	}
	for i, c := range cases {
		a.send(rawMetaCall(i+1, c.what, exactMeta, c.envelope))
		id, line := a.answer()
		if id != fmt.Sprint(i+1) {
			t.Fatalf("%s: answer to %s, want %d: %.300s", c.name, id, i+1, line)
		}
		text, isError := resultText(t, line)
		if isError {
			t.Errorf("%s: the call failed: %s", c.name, text)
			continue
		}
		if strings.HasPrefix(c.what, `"uri"`) || strings.HasPrefix(c.what, `"prompt"`) {
			// dispatch's answer to a read or prompt holds the server's
			// text in its JSON.
			text = innerText(t, c.name, text)
		}
		checkExactMeta(t, c.name, text)
	}
}

// innerText is the first "text" member in answer, dispatch's JSON answer
// to a resource read or a prompt get.
func innerText(t *testing.T, what, answer string) string {
	t.Helper()
	var found string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok && found == "" {
				found = s
			}
			for _, m := range x {
				walk(m)
			}
		case []any:
			for _, m := range x {
				walk(m)
			}
		}
	}
	var v any
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Errorf("%s: answer is not JSON: %v: %.300s", what, err, answer)
	}
	walk(v)
	return found
}

// Over dispatch serve's streamable HTTP, where mcp-go's server reads every
// request.
func TestServeHTTP_MetaNumbersExact(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--raw-meta"))
	headers := initializedSession(t, d.url)
	_, body := rawPost(t, d.url, headers, rawMetaCall(2, `"tool":"echo_raw_meta"`, exactMeta, ""))
	if answerID(body) != "2" {
		t.Fatalf("no answer: %.300s", body)
	}
	text, isError := resultText(t, body)
	if isError {
		t.Fatalf("the call failed: %s", text)
	}
	checkExactMeta(t, "over HTTP", text)

	// mcp-go's server decodes the arguments before dispatch sees them,
	// and refuses 1e400 anywhere in them: in meta as in arguments.
	_, inArguments := rawPost(t, d.url, headers, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"hi","x":1e400}}}}`)
	_, inMeta := rawPost(t, d.url, headers, rawMetaCall(3, `"tool":"echo","arguments":{"message":"hi"}`, `{"x":1e400}`, ""))
	if inMeta != inArguments {
		t.Errorf("1e400 in meta answered\n%s\nbut in arguments\n%s", inMeta, inArguments)
	}
}

// A number out of float64's range (1e400) in meta is passed on as the
// same number in arguments is: the server decides what to make of it (the
// fixture, built on mcp-go, refuses the request, and the agent is told so
// in a tool error). Before: dispatch's own decoding failed, and the agent
// got a JSON-RPC -32600 "unparsable tools/call request" from dispatch, or
// at a shell "--meta must be a JSON object", which it is.
func TestMeta_OutOfRangeNumberPassedOnAsInArguments(t *testing.T) {
	fx := fixture("--raw-meta")
	for _, args := range [][]string{
		{"call", "echo", "message=hi", "x:=1e400"},
		{"call", "echo", "message=hi", "--meta", `{"x":1e400}`},
	} {
		_, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", fx}, args...)...)
		if code != exitServer || !strings.Contains(stderr, "server error -32600") || !strings.Contains(stderr, "1e400") {
			t.Errorf("%v: exit %d, want %d with the server's refusal of 1e400: %s", args, code, exitServer, stderr)
		}
	}

	a := startIDLines(t, "--no-cache", "--mcp", fx)
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"hi","x":1e400}}}}`)
	_, inArguments := a.answer()
	a.send(rawMetaCall(2, `"tool":"echo","arguments":{"message":"hi"}`, `{"x":1e400}`, ""))
	_, inMeta := a.answer()
	for what, line := range map[string]string{"in arguments": inArguments, "in meta": inMeta} {
		text, isError := resultText(t, line)
		if !isError || !strings.Contains(text, "server error -32600") || !strings.Contains(text, "1e400") {
			t.Errorf("1e400 %s: want a tool error quoting the server's refusal of 1e400: %.500s", what, line)
		}
	}
}
