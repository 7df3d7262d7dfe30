//go:build unix

package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestServe_ToolDefinition(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := tc.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "proxy-dispatch" {
		t.Fatalf("want exactly the proxy-dispatch tool, got %d tools", len(tools.Tools))
	}
	def, err := json.MarshalIndent(tools.Tools[0], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(tools.Tools[0])
	if err != nil {
		t.Fatal(err)
	}
	// Every agent pays for this definition on every turn.
	if len(compact) > 3072 {
		t.Errorf("tool definition is %d bytes, want at most 3072", len(compact))
	}
	golden := filepath.Join("testdata", "golden", "proxy-dispatch-tool.json")
	if *update {
		if err := os.WriteFile(golden, append(def, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if string(want) != string(def)+"\n" {
		t.Errorf("tool definition changed; if on purpose, run go test -run TestServe_ToolDefinition -update\ngot:\n%s", def)
	}
}

func TestServe_ListShowsConnectionsWithoutConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.toml")
	toml := `[servers.alpha]
command = "` + fixtureBin + `"
args = ["--name", "alpha-server"]
env = { FIXTURE_SECRET = "s3cr3t-env-value" }

[servers.beta]
command = "` + fixtureBin + `"
args = ["--demo"]
`
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	tc := startDispatch(t, nil, "--no-cache", "--config", cfg, "--mcp", "/nonexistent/server --flag")
	r := tc.mustOK(map[string]any{"action": "list", "format": "detail"})
	raw := r.text()
	for _, leak := range []string{"s3cr3t-env-value", fixtureBin, "/nonexistent/server"} {
		if strings.Contains(raw, leak) {
			t.Errorf("list shows %q: %s", leak, raw)
		}
	}
	var list listResponse
	decodeText(t, r, &list)
	if len(list.Connections) != 3 {
		t.Fatalf("want 3 connections, got %+v", list.Connections)
	}
	// --mcp servers come first, then config files, in declaration order.
	want := []struct{ alias, name, status string }{{"c1", "", "failed"}, {"c2", "alpha", "ready"}, {"c3", "beta", "ready"}}
	for i, w := range want {
		got := list.Connections[i]
		if got.Alias != w.alias || got.Name != w.name || got.Status != w.status {
			t.Errorf("connection %d = %s/%s/%s, want %s/%s/%s", i, got.Alias, got.Name, got.Status, w.alias, w.name, w.status)
		}
		if len(got.ID) != 32 {
			t.Errorf("connection %d ID %q is not an MD5", i, got.ID)
		}
	}
	if list.Connections[1].Server != "alpha-server 1.0.0" || list.Connections[1].ToolCount == 0 {
		t.Errorf("c2 = %+v, want server alpha-server 1.0.0 with tools", list.Connections[1])
	}
	if !strings.Contains(list.Connections[0].Error, `command "server" not found`) {
		t.Errorf("failed connection error = %q", list.Connections[0].Error)
	}
	// The default, compact list names the tools when there are few.
	var compact listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &compact)
	if !contains(compact.Connections[2].ToolNames, "list_files") || compact.Connections[2].ID != "" {
		t.Errorf("compact c3 = %+v, want tool names and no ID", compact.Connections[2])
	}

	// One connection's tools, one per entry, paginated.
	var page listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "connection": "alpha", "limit": 3}), &page)
	if len(page.Tools) != 3 || page.NextOffset != 3 || page.Tools[0].Connection != "c2" || page.Tools[0].Description == "" {
		t.Fatalf("paginated list = %+v", page)
	}
	var next listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "connection": "c2", "limit": 3, "offset": 3, "includeInputSchema": true}), &next)
	if len(next.Tools) != 3 || len(next.Tools[0].InputSchema) == 0 || next.Tools[0].Name == page.Tools[0].Name {
		t.Fatalf("second page = %+v", next.Tools)
	}
}

// An offset at or past the last tool gets a note saying so, with the total
// and how to page, instead of an empty page that looks like no tools.
func TestServe_ListOffsetPastEnd(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())
	var all listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "includeTools": true, "limit": 500}), &all)
	total := all.TotalTools
	if total < 2 || len(all.Tools) != total {
		t.Fatalf("fixture lists %d of %d tools", len(all.Tools), total)
	}
	pastEnd := fmt.Sprintf(`"offset" %%d is past the end: there are %d tools (offsets 0 to %d)`, total, total-1)
	tests := []struct {
		offset    int
		tools     int
		wantHint  string // "" means: no past-the-end note
		wantEmpty bool
	}{
		{offset: 0, tools: total},
		{offset: total - 1, tools: 1},
		{offset: total, wantHint: fmt.Sprintf(pastEnd, total)},
		{offset: total + 1, wantHint: fmt.Sprintf(pastEnd, total+1)},
		{offset: 100000, wantHint: fmt.Sprintf(pastEnd, 100000)},
	}
	for _, tt := range tests {
		var page listResponse
		decodeText(t, tc.mustOK(map[string]any{"action": "list", "includeTools": true, "offset": tt.offset}), &page)
		if len(page.Tools) != tt.tools || page.TotalTools != total {
			t.Errorf("offset %d: %d tools of %d, want %d of %d", tt.offset, len(page.Tools), page.TotalTools, tt.tools, total)
		}
		switch {
		case tt.wantHint == "" && strings.Contains(page.Hint, "past the end"):
			t.Errorf("offset %d: hint %q, want no past-the-end note", tt.offset, page.Hint)
		case tt.wantHint != "" && (!strings.Contains(page.Hint, tt.wantHint) || !strings.Contains(page.Hint, `"offset": 0`)):
			t.Errorf("offset %d: hint %q, want it to contain %q and how to page", tt.offset, page.Hint, tt.wantHint)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestServe_InfoKeepsRawSchema(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "info", "tool": "large"})
	var info struct {
		Connection string
		Tool       struct {
			Name        string
			InputSchema map[string]json.RawMessage
		}
	}
	decodeText(t, r, &info)
	if info.Connection != "c1" || info.Tool.Name != "large" {
		t.Fatalf("info = %s", r.text())
	}
	// mcp-go's typed Tool drops these; dispatch must not.
	for _, key := range []string{"$schema", "description", "definitions"} {
		if _, ok := info.Tool.InputSchema[key]; !ok {
			t.Errorf("input schema lost %q: %s", key, r.text())
		}
	}
}

func TestServe_CallPassesResultsThrough(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())

	r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "héllo"}})
	if r.text() != "héllo" {
		t.Errorf("echo = %q", r.text())
	}
	var meta struct {
		Dispatch struct {
			Connection      string
			EstimatedTokens int64
		}
	}
	if err := json.Unmarshal(r.Meta, &meta); err != nil || meta.Dispatch.Connection != "c1" || meta.Dispatch.EstimatedTokens <= 0 {
		t.Errorf("_meta = %s (%v)", r.Meta, err)
	}

	// Arguments given as a JSON string are accepted.
	r = tc.mustOK(map[string]any{"action": "call", "tool": "add", "arguments": `{"a": 2, "b": 40}`})
	if string(r.StructuredContent) != `{"sum":42}` {
		t.Errorf("structuredContent = %s", r.StructuredContent)
	}

	r = tc.mustCall(map[string]any{"action": "call", "tool": "fail", "arguments": map[string]any{"message": "disk full"}})
	if !r.IsError || !strings.Contains(r.text(), "disk full") {
		t.Errorf("fail = %+v, want isError with the message", r)
	}

	// Every content type arrives exactly as the server sent it.
	r = tc.mustOK(map[string]any{"action": "call", "tool": "mixed"})
	direct := callFixtureDirectly(t, "mixed")
	if !reflect.DeepEqual(normalize(t, r.Content), normalize(t, direct.Content)) {
		t.Errorf("mixed content changed:\n via dispatch: %s\n direct: %s", mustJSON(r.Content), mustJSON(direct.Content))
	}
	if len(r.Content) != 5 {
		t.Errorf("mixed returned %d items, want 5", len(r.Content))
	}

	// meta reaches the downstream request's _meta.
	r = tc.mustOK(map[string]any{"action": "call", "tool": "echo_meta", "meta": map[string]any{"traceId": "abc-123"}})
	if !strings.Contains(r.text(), `"traceId":"abc-123"`) {
		t.Errorf("echo_meta = %s", r.text())
	}
}

func normalize(t *testing.T, items []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// callFixtureDirectly calls a fixture tool without dispatch in between.
func callFixtureDirectly(t *testing.T, tool string) toolResult {
	t.Helper()
	fx := startRawClient(t, fixtureBin)
	return fx.rawCall(t, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
}

func TestServe_ProgressAndCancellation(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--mcp", fixture("--cancel-log", cancelLog))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "slow", "arguments": map[string]any{"seconds": 0.3, "steps": 3}},
		map[string]any{"progressToken": "agent-token-7"})
	if err != nil || r.IsError {
		t.Fatalf("slow: %v %s", err, r.text())
	}
	testkit.WaitFor(t, "3 progress notifications", 5*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		n := 0
		for _, note := range tc.notifications {
			if note.Method == "notifications/progress" && note.Params.AdditionalFields["progressToken"] == "agent-token-7" {
				n++
			}
		}
		return n == 3
	})

	// The agent gives up: dispatch must cancel the downstream call.
	short, cancelShort := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancelShort()
	if _, err := tc.call(short, map[string]any{"action": "call", "tool": "hang", "arguments": map[string]any{"tag": "given-up"}}, nil); err == nil {
		t.Fatal("hang returned before it was cancelled")
	}
	if err := tc.client.GetTransport().SendNotification(context.Background(), mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/cancelled", Params: mcp.NotificationParams{
			AdditionalFields: map[string]any{"requestId": "t2", "reason": "test gave up"}}},
	}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the fixture to log the cancellation", 10*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled hang given-up")
	})

	// A call with a timeout of its own is cancelled downstream too, and
	// the error says how to allow more time.
	r = tc.mustCall(map[string]any{"action": "call", "tool": "hang", "timeout": 0.3, "arguments": map[string]any{"tag": "timed-out"}})
	if !r.IsError || !strings.Contains(r.text(), "timed out") || !strings.Contains(r.text(), "timeout") {
		t.Errorf("hang with timeout = %s", r.text())
	}
	testkit.WaitFor(t, "the fixture to log the timeout", 10*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled hang timed-out")
	})
	// dispatch is still responsive.
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "alive"}}); r.text() != "alive" {
		t.Errorf("echo after timeout = %q", r.text())
	}
}

func TestServe_Validation(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"missing action", map[string]any{}, []string{`missing "action"`, "list, search, info, call, readresult"}},
		{"unknown action", map[string]any{"action": "execute"}, []string{`unknown action "execute"`, "run"}},
		{"run without steps", map[string]any{"action": "run"}, []string{`run needs "steps"`}},
		{"call without tool", map[string]any{"action": "call"}, []string{`call needs a "tool"`, "Example"}},
		{"search without query", map[string]any{"action": "search"}, []string{`search needs a "query"`}},
		{"foreign parameter", map[string]any{"action": "list", "pattern": "x"}, []string{`"pattern"`, "do not apply to action list"}},
		{"inputs at top level", map[string]any{"action": "call", "tool": "echo", "message": "hi"},
			[]string{`"message"`, `inside "arguments"`, `"arguments":{"message":"hi"}`}},
		{"arguments not an object", map[string]any{"action": "call", "tool": "echo", "arguments": []int{1}}, []string{"must be a JSON object"}},
		{"ambiguous is impossible with one server; unknown tool suggests", map[string]any{"action": "call", "tool": "ecko"}, []string{`no tool named "ecko"`, "c1/echo"}},
		{"unknown connection", map[string]any{"action": "call", "tool": "echo", "connection": "c9"}, []string{`unknown connection "c9"`, "c1"}},
		{"wrong type", map[string]any{"action": "list", "limit": "ten"}, []string{`"limit"`, "integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tc.mustCall(tt.args)
			if !r.IsError {
				t.Fatalf("want isError, got %s", r.text())
			}
			for _, w := range tt.want {
				if !strings.Contains(r.text(), w) {
					t.Errorf("error %q lacks %q", r.text(), w)
				}
			}
		})
	}
}

func TestServe_AmbiguousToolListsCandidates(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture(), "--mcp", fixture("--demo"))
	r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "x"}})
	if !r.IsError || !strings.Contains(r.text(), "c1") || !strings.Contains(r.text(), "c2") || !strings.Contains(r.text(), `"connection"`) {
		t.Fatalf("ambiguous call = %s", r.text())
	}
	r = tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": "c2", "arguments": map[string]any{"message": "from c2"}})
	if r.text() != "from c2" {
		t.Errorf("echo on c2 = %q", r.text())
	}
	// The qualified form the error offers works, for info as for call.
	if r := tc.mustCall(map[string]any{"action": "info", "tool": "echo"}); !r.IsError || !strings.Contains(r.text(), `"c1/echo"`) || strings.Contains(r.text(), `"action":"call"`) {
		t.Errorf("ambiguous info = %s", r.text())
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "c2/echo", "arguments": map[string]any{"message": "qualified"}}); r.text() != "qualified" {
		t.Errorf("call c2/echo = %q", r.text())
	}
	// A name on one connection only needs no connection.
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "get_weather", "arguments": map[string]any{"city": "Oslo"}}); r.text() == "" {
		t.Error("get_weather returned nothing")
	}
}

func TestServe_HTTPAndSSE(t *testing.T) {
	httpURL := startFixtureHTTP(t, "http", "--name", "over-http")
	sseURL := startFixtureHTTP(t, "sse", "--name", "over-sse")
	tc := startDispatch(t, nil, "--mcp", httpURL, "--mcp", "sse+"+sseURL)
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "format": "detail"}), &list)
	if len(list.Connections) != 2 || list.Connections[0].Transport != "http" || list.Connections[1].Transport != "sse" ||
		list.Connections[0].Status != "ready" || list.Connections[1].Status != "ready" {
		t.Fatalf("list = %+v", list.Connections)
	}
	for _, conn := range []string{"c1", "c2"} {
		r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": conn, "arguments": map[string]any{"message": "via " + conn}})
		if r.text() != "via "+conn {
			t.Errorf("echo via %s = %q", conn, r.text())
		}
	}
}

func TestServe_PinsProtocolVersionOnTheWire(t *testing.T) {
	dir := t.TempDir()
	defaultLog := filepath.Join(dir, "default.log")
	pinnedLog := filepath.Join(dir, "pinned.log")
	cfg := filepath.Join(dir, "servers.json")
	servers := map[string]any{"mcpServers": map[string]any{
		"pinned": map[string]any{"command": fixtureBin, "args": []string{"--log-protocol-version", pinnedLog}, "protocolVersion": "2025-06-18"},
	}}
	data, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tc := startDispatch(t, nil, "--mcp", fixture("--log-protocol-version", defaultLog), "--config", cfg)
	tc.mustOK(map[string]any{"action": "list"})
	for path, want := range map[string]string{defaultLog: "2025-11-25", pinnedLog: "2025-06-18"} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != want {
			t.Errorf("initialize carried %q, want %q", got, want)
		}
	}
}

func TestServe_StdinEOFStopsEveryProcess(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "call", "tool": "spawn_grandchild"})
	var pid int
	for _, f := range strings.Fields(r.text()) {
		if n, err := parsePID(f); err == nil {
			pid = n
		}
	}
	if pid == 0 {
		t.Fatalf("no pid in %q", r.text())
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("grandchild %d not running before close: %v", pid, err)
	}
	// The agent goes away: dispatch sees stdin EOF.
	if err := tc.client.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	testkit.WaitFor(t, "the grandchild to die", 15*time.Second, func() bool { return !processAlive(pid) })
}

// A stray top-level key of a call is only said to belong in "arguments"
// when the tool's schema has it (or the tool is unknown); otherwise the
// error says it is neither call's nor the tool's, listing the tool's.
func TestServe_StrayCallParamsCheckedAgainstSchema(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())
	const notEither = `are not parameters of action call`
	tests := []struct {
		name      string
		args      map[string]any
		wants     []string
		forbidden []string
	}{
		{"key the tool lacks, arguments given",
			map[string]any{"action": "call", "tool": "add", "arguments": map[string]any{"a": 2, "b": 3}, "query": "x"},
			[]string{`"query" ` + notEither, `nor of tool "add", which takes: a, b`}, []string{`"arguments":{"a":2,"b":3,"query"`}},
		{"keys the tool has",
			map[string]any{"action": "call", "tool": "add", "a": 2, "b": 3},
			[]string{`Put the tool's inputs inside "arguments"`, `"arguments":{"a":2,"b":3}`}, []string{notEither}},
		{"one of each",
			map[string]any{"action": "call", "tool": "add", "a": 2, "limit": 3},
			[]string{`"limit" ` + notEither, `Put the tool's inputs "a" inside "arguments"`, `"arguments":{"a":2}`}, []string{`"limit":3}`}},
		{"qualified tool name",
			map[string]any{"action": "call", "tool": "c1/echo", "message": "m", "query": "x"},
			[]string{`"query" ` + notEither, `tool "echo", which takes: message`, `"arguments":{"message":"m"}`}, nil},
		{"unknown tool: schema unknown, so move",
			map[string]any{"action": "call", "tool": "no_such_tool", "query": "x"},
			[]string{`Put the tool's inputs inside "arguments"`, `"arguments":{"query":"x"}`}, []string{notEither}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tc.mustError(tt.args, tt.wants...)
			for _, f := range tt.forbidden {
				if strings.Contains(text, f) {
					t.Errorf("error %q contains %q", text, f)
				}
			}
		})
	}
}
