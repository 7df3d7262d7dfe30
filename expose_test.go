package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// request sends method to dispatch and returns the raw result; a JSON-RPC
// error fails the test unless wantErr, in which case its message is
// returned.
func (tc *testClient) request(method string, params any) (json.RawMessage, string) {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("x%d", tc.seq.Add(1))), Method: method, Params: params,
	})
	if err != nil {
		tc.t.Fatalf("%s: %v\nstderr:\n%s", method, err, tc.Stderr())
	}
	if resp.Error != nil {
		return nil, resp.Error.Message
	}
	return resp.Result, ""
}

// listNames returns the names (key) of the items (field) a list method
// answers, sorted.
func (tc *testClient) listNames(method, field, key string) []string {
	tc.t.Helper()
	raw, errMsg := tc.request(method, map[string]any{})
	if errMsg != "" {
		tc.t.Fatalf("%s: %s", method, errMsg)
	}
	var page map[string][]map[string]any
	if err := json.Unmarshal(raw, &page); err != nil {
		tc.t.Fatalf("%s: %v in %s", method, err, raw)
	}
	var names []string
	for _, item := range page[field] {
		name, _ := item[key].(string)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// listOrder returns the values of key of the items (field) a list method
// answers, in the order answered.
func (tc *testClient) listOrder(method, field, key string) ([]string, string) {
	tc.t.Helper()
	raw, errMsg := tc.request(method, map[string]any{})
	if errMsg != "" {
		tc.t.Fatalf("%s: %s", method, errMsg)
	}
	var page map[string][]map[string]any
	if err := json.Unmarshal(raw, &page); err != nil {
		tc.t.Fatalf("%s: %v in %s", method, err, raw)
	}
	var values []string
	for _, item := range page[field] {
		v, _ := item[key].(string)
		values = append(values, v)
	}
	return values, string(raw)
}

// callTool calls an exposed tool by its upstream name.
func (tc *testClient) callTool(name string, args map[string]any) toolResult {
	tc.t.Helper()
	raw, errMsg := tc.request("tools/call", map[string]any{"name": name, "arguments": args})
	if errMsg != "" {
		tc.t.Fatalf("tools/call %s: %s", name, errMsg)
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		tc.t.Fatal(err)
	}
	return r
}

// --expose (and a server's expose list) lists the chosen tools beside
// proxy-dispatch under their own names, with their definitions as
// published; their calls go the way proxy-dispatch's call goes (the spill
// threshold, _meta forwarded, _meta.dispatch); a tool that is not there is
// a warning naming the flag.
func TestExpose_Agent(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	writeFile(t, config, fmt.Sprintf(`[servers.two]
command = %q
args = ["--name", "two"]
expose = ["add"]
`, fixtureBin))
	tc := startDispatch(t, nil, "--cache-dir", t.TempDir(), "--threshold", "2KiB",
		"--mcp", fixture(), "--config", config,
		"--expose", "c1/echo", "--expose", "two/large", "--expose", "c1/echo_meta", "--expose", "nosuch")

	if tools, want := tc.listNames("tools/list", "tools", "name"), []string{"add", "echo", "echo_meta", "large", "proxy-dispatch"}; !slices.Equal(tools, want) {
		t.Fatalf("tools/list = %v, want %v", tools, want)
	}
	raw, _ := tc.request("tools/list", map[string]any{})
	checkText(t, "tools/list", string(raw), []string{`"outputSchema":{"type":"object","properties":{"sum"`, `"title":"Add two numbers"`, `"$defs":{"operand"`}, nil)
	checkText(t, "stderr", tc.Stderr(), []string{"--expose nosuch", `no tool named \"nosuch\"`}, nil)

	echo := tc.callTool("echo", map[string]any{"message": "hello"})
	if echo.IsError || echo.text() != "hello" || !strings.Contains(string(echo.Meta), `"connection":"c1"`) {
		t.Errorf("echo = %+v (meta %s)", echo, echo.Meta)
	}
	sum := tc.callTool("add", map[string]any{"a": 2, "b": 3})
	if string(sum.StructuredContent) != `{"sum":5}` || !strings.Contains(string(sum.Meta), `"connection":"c2"`) {
		t.Errorf("add = %s (meta %s)", sum.StructuredContent, sum.Meta)
	}
	raw, _ = tc.request("tools/call", map[string]any{"name": "echo_meta", "arguments": map[string]any{}, "_meta": map[string]any{"trace": "t-42"}})
	checkText(t, "echo_meta", string(raw), []string{`\"trace\":\"t-42\"`}, nil)

	big := tc.callTool("large", map[string]any{"bytes": 20000})
	var spilled CallSpill
	decodeText(t, big, &spilled)
	if big.IsError || spilled.Spill.ResultFile == "" || !spilled.Spill.AutoSpilled || spilled.Connection != "c2" {
		t.Fatalf("large over the threshold was not saved to a file: %s", big.text())
	}
	// The file is this agent's: proxy-dispatch reads it back.
	head := tc.mustOK(map[string]any{"action": "readresult", "resultFile": spilled.Spill.ResultFile, "op": "head", "lines": 3})
	checkText(t, "readresult", head.text(), []string{`"id": 1`}, nil)

	if failed := tc.callTool("echo", map[string]any{}); !failed.IsError {
		t.Errorf("a call without its required argument is not an error result: %s", failed.text())
	}
}

// CallSpill is the part of a spilled call's answer the tests read.
type CallSpill struct {
	Connection string `json:"connection"`
	Spill      struct {
		ResultFile  string `json:"resultFile"`
		AutoSpilled bool   `json:"autoSpilled"`
	} `json:"spill"`
}

// A mistake in what to expose stops dispatch at start with an error
// naming the entry and what to do: a tool the filters deny, a name on
// several servers.
func TestExpose_ConfigMistakesStopStart(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	writeFile(t, config, fmt.Sprintf(`[servers.files]
command = %q
expose = ["env"]
[servers.files.tools]
deny = ["env*"]
`, fixtureBin))
	_, stderr, code := runCLI(t, "", "--cache-dir", t.TempDir(), "--config", config)
	if code == 0 {
		t.Fatalf("dispatch started with a denied tool to expose; stderr:\n%s", stderr)
	}
	checkText(t, "denied", stderr, []string{`expose "env"`, "servers.files.tools.deny", `"env*"`}, nil)

	_, stderr, code = runCLI(t, "", "--cache-dir", t.TempDir(), "--mcp", fixture(), "--mcp", fixture("--name", "two"), "--expose", "echo")
	if code == 0 {
		t.Fatalf("dispatch started with an ambiguous tool to expose; stderr:\n%s", stderr)
	}
	checkText(t, "ambiguous", stderr, []string{"--expose echo", "c1, c2", "c1/TOOL"}, nil)
}

// What a server writes about its tool is masked in the exposed
// definition as everywhere, and so is the error of its call.
func TestExpose_DefinitionIsMasked(t *testing.T) {
	const secret = "leaked-expose-secret-55121"
	tc := startDispatch(t, []string{"MYAPI_TOKEN=" + secret}, "--no-cache", "--inherit-env",
		"--mcp", fixture("--leak-env", "MYAPI_TOKEN"), "--expose", "leaky")
	raw, _ := tc.request("tools/list", map[string]any{})
	checkText(t, "tools/list", string(raw), []string{`"name":"leaky"`, "***"}, []string{secret})
	res, errMsg := tc.request("tools/call", map[string]any{"name": "leaky", "arguments": map[string]any{}})
	checkText(t, "leaky's error", string(res)+errMsg, nil, []string{secret})
}

// --transparent lists every tool, resource, template and prompt of every
// server; a name on two servers takes the server's name as prefix, the
// filters apply, reads and prompts go to the right server, and a live
// config change or a server's own list_changed changes the list, with
// list_changed sent to the agent.
func TestTransparent_Agent(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	servers := func(twoDeny string) string {
		return fmt.Sprintf(`[servers.one]
command = %[1]q
args = ["--readables"]
[servers.two]
command = %[1]q
args = ["--readables", "--subscribable", "--name", "two"]
[servers.two.tools]
deny = [%[2]s]
`, fixtureBin, twoDeny)
	}
	writeFile(t, config, servers(`"env*"`))
	tc := startDispatch(t, nil, "--cache-dir", t.TempDir(), "--config", config, "--config-poll", "100ms", "--transparent")

	tools := tc.listNames("tools/list", "tools", "name")
	for _, want := range []string{"proxy-dispatch", "env", "one__echo", "two__echo", "one__change_tools"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools/list lacks %s: %v", want, tools)
		}
	}
	for _, unwanted := range []string{"echo", "two__env", "one__env"} {
		if slices.Contains(tools, unwanted) {
			t.Errorf("tools/list has %s: %v", unwanted, tools)
		}
	}
	if r := tc.callTool("two__echo", map[string]any{"message": "via two"}); r.text() != "via two" || !strings.Contains(string(r.Meta), `"connection":"c2"`) {
		t.Errorf("two__echo = %s %s", r.text(), r.Meta)
	}

	resources := tc.listNames("resources/list", "resources", "uri")
	if !slices.Contains(resources, "one+fixture://read/hello.txt") || !slices.Contains(resources, "two+fixture://read/hello.txt") {
		t.Fatalf("resources/list = %v", resources)
	}
	raw, errMsg := tc.request("resources/read", map[string]any{"uri": "two+fixture://read/hello.txt"})
	checkText(t, "resources/read", string(raw)+errMsg, []string{`"text":"Hello from the fixture.\nSecond line.\n"`}, nil)
	raw, errMsg = tc.request("resources/read", map[string]any{"uri": "one+fixture://read/pixel.png"})
	checkText(t, "binary read", string(raw)+errMsg, []string{`"blob":"`, `"mimeType":"image/png"`}, []string{"resultFile"})
	if templates := tc.listNames("resources/templates/list", "resourceTemplates", "uriTemplate"); !slices.Contains(templates, "one+fixture://read/items/{id}") {
		t.Errorf("resources/templates/list = %v", templates)
	}
	raw, errMsg = tc.request("resources/read", map[string]any{"uri": "one+fixture://read/items/7"})
	checkText(t, "template read", string(raw)+errMsg, []string{`"text":"item 7"`}, nil)
	raw, errMsg = tc.request("prompts/get", map[string]any{"name": "two__greet", "arguments": map[string]any{"name": "Ada"}})
	checkText(t, "prompts/get", string(raw)+errMsg, []string{"Please greet Ada", `"role":"assistant"`}, nil)
	_, errMsg = tc.request("resources/read", map[string]any{"uri": "nope://x"})
	if errMsg == "" {
		t.Error("reading an unlisted URI is not an error")
	}

	// A subscription reaches the server; its resources/updated reaches the
	// agent under the URI the agent knows.
	if _, errMsg := tc.request("resources/subscribe", map[string]any{"uri": "two+fixture://read/hello.txt"}); errMsg != "" {
		t.Fatalf("resources/subscribe: %s", errMsg)
	}
	testkit.WaitFor(t, "resources/updated", 10*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		for _, n := range tc.notifications {
			if n.Method == "notifications/resources/updated" && n.Params.AdditionalFields["uri"] == "two+fixture://read/hello.txt" {
				return true
			}
		}
		return false
	})

	// Live config: two now also hides echo, so one's echo is unique.
	before := tc.countNotifications(listChanged)
	writeConfigAtomically(t, config, servers(`"env*", "echo"`))
	testkit.WaitFor(t, "echo listed unprefixed after the config change", 20*time.Second, func() bool {
		names := tc.listNames("tools/list", "tools", "name")
		return slices.Contains(names, "echo") && !slices.Contains(names, "two__echo") && !slices.Contains(names, "one__echo")
	})
	testkit.WaitFor(t, "tools list_changed", 10*time.Second, func() bool { return tc.countNotifications(listChanged) > before })

	// A server's own list_changed: its new tool is listed.
	tc.callTool("one__change_tools", map[string]any{})
	testkit.WaitFor(t, "added_later listed", 20*time.Second, func() bool {
		return slices.Contains(tc.listNames("tools/list", "tools", "name"), "added_later")
	})
	if r := tc.callTool("added_later", map[string]any{"message": "late"}); r.text() != "late" {
		t.Errorf("added_later = %s", r.text())
	}
}

// A server's tool whose name MCP does not allow (here: terminal escapes)
// is not listed beside proxy-dispatch: a model API given it would refuse
// the agent's whole tool list. The valid ones still are.
func TestTransparent_InvalidToolNameNotListed(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--escape-tools"), "--transparent")
	tools := tc.listNames("tools/list", "tools", "name")
	if !slices.Contains(tools, "echo") || !slices.Contains(tools, "proxy-dispatch") {
		t.Fatalf("tools/list lacks echo or proxy-dispatch: %q", tools)
	}
	for _, name := range tools {
		if name == "" || strings.ContainsFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
		}) {
			t.Errorf("tools/list has the invalid tool name %q", name)
		}
	}
}

// --transparent and --expose list each tool as its server published it,
// execution included (research runs only as a task, and dispatch, which
// declares no tasks capability, runs that task for a plain call), and
// every kind in the servers' order after proxy-dispatch: mcp-go listed
// them by name.
func TestTransparent_ListsAsPublishedInServersOrder(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources", "--task-tools", "--reverse-lists"), "--transparent")
	descending := func(values []string) bool {
		return len(values) > 1 && slices.IsSortedFunc(values, func(a, b string) int { return strings.Compare(b, a) })
	}
	tools, raw := tc.listOrder("tools/list", "tools", "name")
	if len(tools) < 3 || tools[0] != "proxy-dispatch" || !descending(tools[1:]) {
		t.Errorf("tools/list = %v; want proxy-dispatch, then the server's order (reverse name order)", tools)
	}
	checkText(t, "tools/list", raw, []string{`"execution":{"taskSupport":"required"}`}, nil)
	for _, list := range []struct{ method, field string }{
		{"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}, {"prompts/list", "prompts"},
	} {
		if names, _ := tc.listOrder(list.method, list.field, "name"); !descending(names) {
			t.Errorf("%s = %v; want the server's order (reverse name order)", list.method, names)
		}
	}
	if r := tc.callTool("research", map[string]any{"topic": "order", "seconds": 0}); r.IsError || r.text() != "report on order" {
		t.Errorf("a plain call of the task-only research = %s", r.text())
	}

	exposed := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--task-tools"),
		"--expose", "research", "--expose", "echo", "--expose", "add")
	tools, raw = exposed.listOrder("tools/list", "tools", "name")
	if want := []string{"proxy-dispatch", "research", "echo", "add"}; !slices.Equal(tools, want) {
		t.Errorf("--expose tools/list = %v; want %v", tools, want)
	}
	checkText(t, "--expose tools/list", raw, []string{`"execution":{"taskSupport":"required"}`}, nil)
}
