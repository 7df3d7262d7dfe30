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

// TestTransparent_ServersStartWithTheAgentsCapabilities: over stdio,
// --transparent lists the servers once the agent's initialize has said
// what it can answer, so a server that offers a tool only to a client
// declaring sampling (the fixture's request-sampling, like
// server-everything's trigger-sampling-request) offers it behind dispatch
// too, and each server starts once, declaring the agent's capabilities.
func TestTransparent_ServersStartWithTheAgentsCapabilities(t *testing.T) {
	cacheDir := t.TempDir()
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"lazy", []string{"--no-cache"}},
		{"eager", []string{"--no-cache", "--eager"}},
		{"cache, first run", []string{"--cache-dir", cacheDir}},
		{"cache, second run", []string{"--cache-dir", cacheDir}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			starts := filepath.Join(t.TempDir(), "starts")
			args := append(tt.flags, "--transparent", "--mcp", fixture("--client-requests", "--log-protocol-version", starts))
			tc := startDispatchAs(t, nil, (&testAgent{}).options(), args...)
			names := tc.listNames("tools/list", "tools", "name")
			if !slices.Contains(names, "request-sampling") || !slices.Contains(names, "request-roots") {
				t.Errorf("tools/list = %v, want request-sampling (offered to a client declaring sampling) and request-roots", names)
			}
			r := tc.callTool("client-capabilities", nil)
			checkText(t, "the capabilities the server was started with", r.text(), []string{`"sampling"`, `"roots"`, `"elicitation"`}, nil)
			if got := readLines(t, starts); len(got) != 1 {
				t.Errorf("the server was initialized %d times (%q), want once", len(got), got)
			}
			// Listed before the initialize answer, the first lists are no
			// change to announce (announced, they came before that answer).
			if n := tc.countNotifications("notifications/tools/list_changed"); n != 0 {
				t.Errorf("the agent was sent %d tools/list_changed at start, want none", n)
			}
			if strings.Contains(tc.Stderr(), "server starts again") {
				t.Errorf("a server was started before the agent's initialize:\n%s", tc.Stderr())
			}
		})
	}
}

// TestTransparent_ResultMetaPassedThrough: the _meta of a server's
// resources/read and prompts/get result reaches the agent as the server
// wrote it (a number past float64's precision too), as it does directly.
func TestTransparent_ResultMetaPassedThrough(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--readables"))
	for _, tt := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"resources/read", map[string]any{"uri": "fixture://read/meta.txt"}, `"fixture":"readmeta"`},
		{"prompts/get", map[string]any{"name": "with-meta"}, `"fixture":"promptmeta"`},
	} {
		raw, errMsg := tc.request(tt.method, tt.params)
		if errMsg != "" {
			t.Fatalf("%s: %s", tt.method, errMsg)
		}
		checkText(t, tt.method+" result", string(raw), []string{`"_meta":{`, tt.want, `"big":12345678901234567890`}, nil)
	}
	// A read without one has none (the carrier is not sent).
	raw, errMsg := tc.request("resources/read", map[string]any{"uri": "fixture://read/hello.txt"})
	if errMsg != "" {
		t.Fatal(errMsg)
	}
	checkText(t, "a read without _meta", string(raw), []string{"Hello from the fixture."}, []string{"_meta"})
}

// requestFailing sends method to dispatch and returns the JSON-RPC error
// it answered with; an answer that is not an error fails the test.
func (tc *testClient) requestFailing(method string, params any) mcp.JSONRPCErrorDetails {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("x%d", tc.seq.Add(1))), Method: method, Params: params,
	})
	if err != nil {
		tc.t.Fatalf("%s: %v\nstderr:\n%s", method, err, tc.Stderr())
	}
	if resp.Error == nil {
		tc.t.Fatalf("%s answered %s, want an error", method, resp.Result)
	}
	return *resp.Error
}

// TestTransparent_ServerErrorsPassedThrough: a server's JSON-RPC error to a
// resources/read or prompts/get reaches the agent with the server's code,
// message and data, as directly; a completion/complete of a prompt no
// server has is the client's mistake, -32602.
func TestTransparent_ServerErrorsPassedThrough(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--readables"))
	for _, tt := range []struct {
		method string
		params map[string]any
	}{
		{"resources/read", map[string]any{"uri": "fixture://read/refuse"}},
		{"prompts/get", map[string]any{"name": "refuse"}},
	} {
		got := tc.requestFailing(tt.method, tt.params)
		data, err := json.Marshal(got.Data)
		if err != nil {
			t.Fatal(err)
		}
		if got.Code != mcp.URL_ELICITATION_REQUIRED || got.Message != "URL elicitation required: 1 elicitation(s) needed" ||
			!strings.Contains(string(data), `"elicitationId":"fixture-refusal"`) {
			t.Errorf("%s: error %d %q data %s, want the server's -32042 with its message and data", tt.method, got.Code, got.Message, data)
		}
	}
	got := tc.requestFailing("completion/complete", map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "a", "value": ""}})
	if got.Code != mcp.INVALID_PARAMS || !strings.Contains(got.Message, `no prompt named "nope"`) {
		t.Errorf("completion/complete of an unknown prompt: error %d %q, want -32602 naming it", got.Code, got.Message)
	}
}

// TestTransparent_ReadsOfUnlistedURIs: a URI the server serves but does
// not list (the fixture's hidden note, the target of its links tool's
// resource_link) is read from the server, as directly; with several
// servers that could serve it, from the one that returned the link, and
// refused with a clear message before any did.
func TestTransparent_ReadsOfUnlistedURIs(t *testing.T) {
	const hidden = "fixture://read/hidden/note"
	t.Run("one server", func(t *testing.T) {
		tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--readables"))
		uris := tc.listNames("resources/list", "resources", "uri")
		if slices.Contains(uris, hidden) || len(uris) == 0 || slices.ContainsFunc(uris, func(u string) bool { return strings.HasPrefix(u, "dispatch-internal:") }) {
			t.Errorf("resources/list = %v, want the fixture's listed resources only", uris)
		}
		raw, errMsg := tc.request("resources/read", map[string]any{"uri": hidden})
		if errMsg != "" || !strings.Contains(string(raw), "You found the hidden note.") {
			t.Errorf("read of the unlisted %s = %s (error %q), want the server's note", hidden, raw, errMsg)
		}
	})
	t.Run("two servers", func(t *testing.T) {
		tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--readables"), "--mcp", fixture("--readables", "--name", "second"))
		got := tc.requestFailing("resources/read", map[string]any{"uri": hidden})
		if got.Code != -32002 || !strings.Contains(got.Message, "c1, c2 could each serve it") {
			t.Errorf("read before any link: error %d %q, want -32002 naming both servers", got.Code, got.Message)
		}
		var links string
		for _, name := range tc.listNames("tools/list", "tools", "name") {
			if name == "c2__links" { // two servers with no configured names: prefixed by alias
				links = name
			}
		}
		if links == "" {
			t.Fatalf("no links tool of the second server in %v", tc.listNames("tools/list", "tools", "name"))
		}
		r := tc.callTool(links, nil)
		var content []string
		for _, item := range r.Content {
			content = append(content, string(item))
		}
		checkText(t, "links", strings.Join(content, "\n"), []string{`"uri":"` + hidden + `"`}, nil)
		raw, errMsg := tc.request("resources/read", map[string]any{"uri": hidden})
		if errMsg != "" || !strings.Contains(string(raw), "You found the hidden note.") {
			t.Errorf("read of the link's target = %s (error %q), want the server's note", raw, errMsg)
		}
	})
}

// TestTransparent_CallOfAToolJustAdded: a tool a server added a moment ago
// (its list_changed still waiting out the debounce) is called at once, as
// directly: an unknown name makes dispatch re-list before refusing.
func TestTransparent_CallOfAToolJustAdded(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture())
	tc.callTool("change_tools", map[string]any{})
	if r := tc.callTool("added_later", map[string]any{"message": "hi"}); r.IsError || !strings.Contains(r.text(), "hi") {
		t.Errorf("added_later = %q (isError %v), want its echo", r.text(), r.IsError)
	}
	if _, errMsg := tc.request("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}); errMsg == "" {
		t.Errorf("a call of a tool no server has was answered")
	}
}

// TestTransparent_SubscriptionsRenewedOnRestart: a server that starts
// again has a new session that knows no subscription, while the agent's
// session with dispatch went on: dispatch subscribes again for it. The
// fixture answers each resources/subscribe with one
// notifications/resources/updated, so a renewed subscription shows as one
// more update.
func TestTransparent_SubscriptionsRenewedOnRestart(t *testing.T) {
	const updated = "notifications/resources/updated"
	t.Run("crash", func(t *testing.T) {
		tc := startDispatch(t, nil, "--no-cache", "--transparent", "--mcp", fixture("--readables", "--subscribable"))
		if _, errMsg := tc.request("resources/subscribe", map[string]any{"uri": "fixture://read/hello.txt"}); errMsg != "" {
			t.Fatal(errMsg)
		}
		testkit.WaitFor(t, "the first update", 20*time.Second, func() bool { return tc.countNotifications(updated) >= 1 })
		tc.request("tools/call", map[string]any{"name": "crash", "arguments": map[string]any{}}) // fails: the server is gone
		tc.callTool("echo", map[string]any{"message": "start again"})
		testkit.WaitFor(t, "an update after the restart", 20*time.Second, func() bool { return tc.countNotifications(updated) >= 2 })
	})
	t.Run("live config", func(t *testing.T) {
		config := filepath.Join(t.TempDir(), "servers.toml")
		write := func(name string) {
			writeConfigAtomically(t, config, fmt.Sprintf("[servers.fx]\ncommand = %q\nargs = [\"--readables\", \"--subscribable\", \"--name\", %q]\n", fixtureBin, name))
		}
		write("first")
		tc := startDispatch(t, nil, "--no-cache", "--transparent", "--config", config, "--config-poll", "100ms")
		if _, errMsg := tc.request("resources/subscribe", map[string]any{"uri": "fixture://read/hello.txt"}); errMsg != "" {
			t.Fatal(errMsg)
		}
		testkit.WaitFor(t, "the first update", 20*time.Second, func() bool { return tc.countNotifications(updated) >= 1 })
		write("second") // a changed command line restarts the server
		testkit.WaitFor(t, "an update from the restarted server", 30*time.Second, func() bool { return tc.countNotifications(updated) >= 2 })
	})
}
