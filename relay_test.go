package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// testAgent answers a server's requests as an agent would: its model
// "samples" by echoing the prompt, its user gives the name Ada, and its
// roots are one project directory. It records what it was asked.
type testAgent struct {
	mu    sync.Mutex
	asked []string // "method: the text the server sent"
}

func (a *testAgent) note(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, s)
}

func (a *testAgent) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	prompt := ""
	if len(req.Messages) > 0 {
		if text, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			prompt = text.Text
		}
	}
	a.note("sampling: " + prompt)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled: " + prompt)},
		Model:           "test-model",
		StopReason:      "endTurn",
	}, nil
}

func (a *testAgent) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.note("elicitation: " + req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada"}}}, nil
}

func (a *testAgent) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.note("roots")
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/project", Name: "project"}}}, nil
}

func (a *testAgent) options() []client.ClientOption {
	return []client.ClientOption{client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a)}
}

func (a *testAgent) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

func callFixtureTool(tc *testClient, tool string, args map[string]any) toolResult {
	tc.t.Helper()
	return tc.mustCall(map[string]any{"action": "call", "connection": "c1", "tool": tool, "arguments": args})
}

func TestRelay_ServerRequestsReachTheAgent(t *testing.T) {
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--mcp", fixture("--client-requests"))

	if r := callFixtureTool(tc, "request-sampling", map[string]any{"prompt": "hello"}); r.IsError || r.text() != "sampled: hello" {
		t.Errorf("request-sampling = %q (isError %v), want the agent's answer \"sampled: hello\"", r.text(), r.IsError)
	}
	r := callFixtureTool(tc, "request-elicitation", map[string]any{"message": "Your name?"})
	checkText(t, "request-elicitation", r.text(), []string{`"action":"accept"`, `"name":"Ada"`}, nil)
	r = callFixtureTool(tc, "request-roots", nil)
	checkText(t, "request-roots", r.text(), []string{`"uri":"file:///work/project"`, `"name":"project"`}, nil)

	got := strings.Join(agent.questions(), "\n")
	checkText(t, "what the agent was asked", got, []string{"sampling: hello", "elicitation: Your name?", "roots"}, nil)
}

func TestRelay_AgentWithoutCapabilityGetsStandardError(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	r := callFixtureTool(tc, "request-elicitation", map[string]any{"message": "Name?"})
	if !r.IsError {
		t.Fatalf("request-elicitation from an agent without elicitation = %q, want an error", r.text())
	}
	checkText(t, "request-elicitation", r.text(), []string{"Method not found", "did not declare the elicitation capability"}, nil)
	r = callFixtureTool(tc, "request-roots", nil)
	checkText(t, "request-roots", r.text(), []string{"Method not found", "did not declare the roots capability"}, nil)
}

func TestRelay_ShellAnswersNotAvailable(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--client-requests"), "call", "request-roots")
	checkText(t, "shell call of request-roots", stdout+stderr, []string{"roots (roots/list) is not available from the shell"}, nil)
	if code == 0 {
		t.Errorf("exit status 0 for a tool that failed")
	}
}

func TestRelay_IdleServerRequestIsRelayed(t *testing.T) {
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--mcp", fixture("--client-requests"))
	out := filepath.Join(t.TempDir(), "answer")
	callFixtureTool(tc, "sample-when-idle", map[string]any{"prompt": "while idle", "file": out, "ms": 100})
	var got []byte
	testkit.WaitFor(t, "the idle sampling answer", 30*time.Second, func() bool {
		got, _ = os.ReadFile(out)
		return len(got) > 0
	})
	if strings.TrimSpace(string(got)) != "answer: sampled: while idle" {
		t.Errorf("idle sampling: the server got %q", got)
	}
}

// logsFrom returns the data of the log messages the agent got from logger.
func (tc *testClient) logsFrom(logger string) []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var out []string
	for _, n := range tc.notifications {
		if n.Method != string(mcp.MethodNotificationMessage) || n.Params.AdditionalFields["logger"] != logger {
			continue
		}
		data, _ := n.Params.AdditionalFields["data"].(string)
		out = append(out, data)
	}
	return out
}

func TestRelay_LogsNamedAndFilteredByTheAgentsLevel(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Started first, so the level reaches a running server.
	callFixtureTool(tc, "echo", map[string]any{"message": "start"})
	if err := tc.client.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatalf("setLevel: %v", err)
	}
	// The server filters at mcp-go's default "error" unless the level was
	// passed on: all eight levels arriving show it was.
	checkLevels := func(want []string) {
		t.Helper()
		before := len(tc.logsFrom("c1/fixture"))
		callFixtureTool(tc, "log-levels", nil)
		// Logs travel on their own queue, so they may follow the answer.
		testkit.WaitFor(t, "the logs of log-levels", 30*time.Second, func() bool { return len(tc.logsFrom("c1/fixture")) >= before+len(want) })
		// Exactly these, in order.
		got := tc.logsFrom("c1/fixture")[before:]
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("logs = %q, want %q", got, want)
		}
	}
	checkLevels([]string{"debug message", "info message", "notice message", "warning message", "error message", "critical message", "alert message", "emergency message"})
	if err := tc.client.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}}); err != nil {
		t.Fatalf("setLevel: %v", err)
	}
	checkLevels([]string{"warning message", "error message", "critical message", "alert message", "emergency message"})
}

func TestRelay_LogFloodDoesNotStarveCalls(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	flooded := make(chan toolResult, 1)
	go func() { flooded <- callFixtureTool(tc, "log-flood", map[string]any{"count": 20000}) }()
	// A call made during the flood is answered.
	for i := range 5 {
		if r := callFixtureTool(tc, "echo", map[string]any{"message": "during"}); r.text() != "during" {
			t.Fatalf("echo %d during the flood = %q", i, r.text())
		}
	}
	select {
	case r := <-flooded:
		if r.text() != "logged 20000" {
			t.Errorf("log-flood = %q", r.text())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("log-flood never answered")
	}
	got := len(tc.logsFrom("c1/flood"))
	if got == 0 || got > 20000 {
		t.Errorf("the agent got %d of 20000 flood logs", got)
	}
	t.Logf("the agent got %d of 20000 flood logs (the rest dropped by the server's own queue or dispatch's, which counts them); dispatch stderr:\n%s", got, tc.Stderr())
}

// TestRelay_MultiRoundTripBothProtocols calls the same input-asking tool
// on a server speaking 2025-11-25 (mcp-go sends server-initiated requests)
// and on one pinned to 2026-07-28 (the call answers with input requests
// and dispatch retries it with the agent's answers).
func TestRelay_MultiRoundTripBothProtocols(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.json")
	servers := map[string]any{"mcpServers": map[string]any{
		"legacy": map[string]any{"command": fixtureBin, "args": []string{"--client-requests"}},
		"modern": map[string]any{"command": fixtureBin, "args": []string{"--client-requests"}, "protocolVersion": "2026-07-28"},
	}}
	data, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--config", cfg)
	for _, conn := range []string{"legacy", "modern"} {
		r := tc.mustCall(map[string]any{"action": "call", "connection": conn, "tool": "confirm-mrtr"})
		checkText(t, "confirm-mrtr on "+conn, r.text(),
			[]string{"state=round=1", "action=accept", `"name":"Ada"`, "word=sampled: Say a word"}, nil)
	}
	got := strings.Join(agent.questions(), "\n")
	if n := strings.Count(got, "elicitation: Who confirms?"); n != 2 {
		t.Errorf("the agent was asked to confirm %d times, want once per server:\n%s", n, got)
	}
}

// TestRelay_MirrorsTheAgentsCapabilities checks what the server itself saw
// declared: the agent's capabilities, whether dispatch started the server
// after the agent's initialize or before it (--eager, started again), and
// nothing for an agent that declared nothing.
func TestRelay_MirrorsTheAgentsCapabilities(t *testing.T) {
	want := []string{`"sampling":{}`, `"elicitation":{}`, `"roots":{"listChanged":true}`}
	for _, tc := range []struct {
		name  string
		agent []client.ClientOption
		args  []string
		has   []string
		not   []string
	}{
		{name: "lazy", agent: (&testAgent{}).options(), has: want},
		{name: "none", not: []string{"sampling", "elicitation", "roots"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--no-cache", "--mcp", fixture("--client-requests")}, tc.args...)
			agent := startDispatchAs(t, nil, tc.agent, args...)
			r := callFixtureTool(agent, "client-capabilities", nil)
			checkText(t, "capabilities the server saw", r.text(), tc.has, tc.not)
		})
	}
}

// TestRelay_EagerServerStartsWithTheAgentsCapabilities: over stdio,
// --eager starts the server once the agent's initialize has said what it
// can answer, so it starts once, declaring the agent's capabilities (it
// was started before, declaring nothing, and then again).
func TestRelay_EagerServerStartsWithTheAgentsCapabilities(t *testing.T) {
	initLog := filepath.Join(t.TempDir(), "initialize.log")
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(),
		"--no-cache", "--eager", "--mcp", fixture("--client-requests", "--log-protocol-version", initLog))
	testkit.WaitFor(t, "the eager server's initialize", 30*time.Second, func() bool {
		data, _ := os.ReadFile(initLog)
		return len(data) > 0
	})
	r := callFixtureTool(tc, "client-capabilities", nil)
	checkText(t, "capabilities the server saw", r.text(), []string{`"sampling":{}`, `"elicitation":{}`, `"roots":{"listChanged":true}`}, nil)
	data, err := os.ReadFile(initLog)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("the server was initialized %d times, want once, with the agent's capabilities", n)
	}
}

func TestRelay_RootsChangedReachesRunningServers(t *testing.T) {
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--mcp", fixture("--client-requests"))
	if got := callFixtureTool(tc, "roots-changes", nil).text(); got != "0" {
		t.Fatalf("roots-changes before any = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tc.client.RootListChanges(ctx); err != nil {
		t.Fatalf("send roots/list_changed: %v", err)
	}
	testkit.WaitFor(t, "the server to hear of the roots change", 30*time.Second, func() bool {
		return callFixtureTool(tc, "roots-changes", nil).text() == "1"
	})
}

func TestRelay_LogsMaskSecretsFromConfig(t *testing.T) {
	const secret = "relay&tok-5e2d8c1f7a"
	cfg := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, cfg, "[servers.leaky]\ncommand = "+strconvQuote(fixtureBin)+"\nargs = [\"--client-requests\"]\nenv = { MYAPI_TOKEN = "+strconvQuote(secret)+" }\n")
	tc := startDispatch(t, nil, "--no-cache", "--config", cfg)
	if r := callFixtureTool(tc, "log-env", map[string]any{"name": "MYAPI_TOKEN"}); r.text() != "logged" {
		t.Fatalf("log-env = %q", r.text())
	}
	var logged string
	testkit.WaitFor(t, "the leaky log", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		for _, n := range tc.notifications {
			if n.Params.AdditionalFields["logger"] == "c1/env" {
				data, err := json.Marshal(n.Params.AdditionalFields["data"])
				if err != nil {
					t.Fatal(err)
				}
				logged = string(data)
				return true
			}
		}
		return false
	})
	if strings.Contains(logged, "tok-5e2d8c1f7a") || !strings.Contains(logged, `"value":"***"`) {
		t.Errorf("the server's log reached the agent as %s; want the configured secret masked", logged)
	}
}

func strconvQuote(s string) string {
	data, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestRelay_OversizedLogIsANoteNotTheData(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	callFixtureTool(tc, "log-big", map[string]any{"bytes": 1 << 20})
	callFixtureTool(tc, "log-big", map[string]any{"bytes": 100})
	testkit.WaitFor(t, "both big logs", 30*time.Second, func() bool { return len(tc.logsFrom("c1/big")) == 2 })
	logs := tc.logsFrom("c1/big")
	checkText(t, "a 1 MiB log", logs[0], []string{"1.0 MiB was left out", "MaxLogDataBytes"}, []string{"xxxx"})
	if logs[1] != strings.Repeat("x", 100) {
		t.Errorf("a 100-byte log arrived as %q", logs[1])
	}
}

// slowAgent never answers sampling until the test ends.
type slowAgent struct{ done chan struct{} }

func (a slowAgent) CreateMessage(ctx context.Context, _ mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	select {
	case <-ctx.Done():
	case <-a.done:
	}
	return nil, errors.New("gave up")
}

// TestRelay_ServerCancellingItsRequestReachesTheAgent: the server cancels
// its sampling request; dispatch tells the agent (notifications/cancelled
// for its own id) and, as a client should, sends the server no answer.
func TestRelay_ServerCancellingItsRequestReachesTheAgent(t *testing.T) {
	agent := slowAgent{done: make(chan struct{})}
	defer close(agent.done)
	tc := startDispatchAs(t, nil, []client.ClientOption{client.WithSamplingHandler(agent)}, "--no-cache", "--mcp", fixture("--cancel-own-request"))
	r := callFixtureTool(tc, "sample-then-cancel", nil)
	if r.text() != "no answer" {
		t.Errorf("dispatch answered the request the server cancelled: %q", r.text())
	}
	var cancelled []string
	testkit.WaitFor(t, "the agent to hear of the cancellation", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		cancelled = cancelled[:0]
		for _, n := range tc.notifications {
			if n.Method == string(mcp.MethodNotificationCancelled) {
				cancelled = append(cancelled, fmt.Sprint(n.Params.AdditionalFields["requestId"]))
			}
		}
		return len(cancelled) > 0
	})
	if len(cancelled) != 1 || !strings.HasPrefix(cancelled[0], "dispatch-") {
		t.Errorf("the agent was told of cancelled requests %q, want one with dispatch's own id", cancelled)
	}
}

// TestRelay_CatalogCachedPerCapabilities: a server offers request-sampling
// only to a client declaring sampling. The catalog the shell cached (no
// capabilities) must not stand for the one a sampling agent is offered,
// and the other way round.
func TestRelay_CatalogCachedPerCapabilities(t *testing.T) {
	cacheDir := t.TempDir()
	server := fixture("--client-requests")
	stdout, stderr, code := runCLI(t, "", "--cache-dir", cacheDir, "--mcp", server, "list", "-C", "c1", "--tools")
	if code != 0 {
		t.Fatalf("shell list: exit %d: %s", code, stderr)
	}
	checkText(t, "the shell's catalog", stdout, []string{"request-roots"}, []string{"request-sampling"})

	capable := startDispatchAs(t, nil, (&testAgent{}).options(), "--cache-dir", cacheDir, "--mcp", server)
	listed := capable.mustOK(map[string]any{"action": "list", "connection": "c1", "limit": 100}).text()
	checkText(t, "a sampling agent's catalog", listed, []string{`"request-sampling"`}, nil)
	if r := callFixtureTool(capable, "request-sampling", map[string]any{"prompt": "cached"}); r.text() != "sampled: cached" {
		t.Errorf("request-sampling = %q", r.text())
	}

	plain := startDispatch(t, nil, "--cache-dir", cacheDir, "--mcp", server)
	listed = plain.mustOK(map[string]any{"action": "list", "connection": "c1", "limit": 100}).text()
	checkText(t, "a plain agent's catalog", listed, []string{`"request-roots"`}, []string{`"request-sampling"`})
}

// TestRelay_StartUnderWayAtInitializeStartsAgain: an eager start that began
// before the agent's initialize and ended after it declared nothing; its
// next use starts the server again declaring the agent's capabilities,
// and the catalog it listed is cached for no capabilities, never for the
// agent's.
func TestRelay_StartUnderWayAtInitializeStartsAgain(t *testing.T) {
	dir := t.TempDir()
	hold := filepath.Join(dir, "hold")
	writeFile(t, hold, "")
	cacheDir := filepath.Join(dir, "cache")
	server := fixture("--client-requests", "--hold-while", hold)
	agent := startDispatchAs(t, nil, (&testAgent{}).options(), "--cache-dir", cacheDir, "--eager", "--mcp", server)
	if err := os.Remove(hold); err != nil { // the agent has initialized: let the eager start finish
		t.Fatal(err)
	}
	r := callFixtureTool(agent, "client-capabilities", nil)
	checkText(t, "capabilities the server saw", r.text(), []string{`"sampling":{}`, `"roots":{"listChanged":true}`}, nil)
	listed := agent.mustOK(map[string]any{"action": "list", "connection": "c1", "limit": 100}).text()
	checkText(t, "the agent's catalog", listed, []string{`"request-sampling"`}, nil)

	stdout, stderr, code := runCLI(t, "", "--cache-dir", cacheDir, "--mcp", server, "list", "-C", "c1", "--tools")
	if code != 0 {
		t.Fatalf("shell list: exit %d: %s", code, stderr)
	}
	checkText(t, "the shell's catalog", stdout, []string{"request-roots"}, []string{"request-sampling"})
}

// A server's logger name is its text too: one of a megabyte must not reach
// the agent whole, past MaxLogDataBytes.
func TestRelay_OversizedLoggerNameIsANote(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	callFixtureTool(tc, "log-big", map[string]any{"bytes": 10, "loggerBytes": 1 << 20})
	callFixtureTool(tc, "log-big", map[string]any{"bytes": 10, "loggerBytes": 200})
	loggers := func() []string {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		var out []string
		for _, n := range tc.notifications {
			if n.Method == string(mcp.MethodNotificationMessage) {
				name, _ := n.Params.AdditionalFields["logger"].(string)
				out = append(out, name)
			}
		}
		return out
	}
	testkit.WaitFor(t, "both logs", 30*time.Second, func() bool { return len(loggers()) == 2 })
	got := loggers()
	checkText(t, "a 1 MiB logger name", got[0], []string{"c1/", "1.0 MiB was left out", "MaxLoggerNameBytes"}, []string{"LLLL"})
	if want := "c1/" + strings.Repeat("L", 200); got[1] != want {
		t.Errorf("a 200-byte logger name arrived as %q, want %q", got[1], want)
	}
}

// A server's sampling request of 17 MiB is refused to the server, naming
// the limit, and never reaches the agent: relayed requests are bounded like
// the agent's own (MaxRelayedRequestBytes).
func TestRelay_OversizedServerRequestIsRefused(t *testing.T) {
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--mcp", fixture("--client-requests"))
	r := callFixtureTool(tc, "request-sampling", map[string]any{"prompt": "0123456789abcdef", "repeat": 17 << 16})
	checkText(t, "a 17 MiB sampling request", r.text(), []string{"MaxRelayedRequestBytes", "16 MiB"}, []string{"0123456789abcdef"})
	if len(agent.questions()) != 0 {
		t.Errorf("the agent was asked %d questions; want none", len(agent.questions()))
	}
	if r := callFixtureTool(tc, "request-sampling", map[string]any{"prompt": "small"}); r.text() != "sampled: small" {
		t.Errorf("a small sampling request after it = %q, want the agent's answer", r.text())
	}
}

// An agent on protocol 2026-07-28 (mcp-go's default since v1.2) has no
// logging/setLevel: each request's _meta says which logs it wants, and a
// request that names no level must get none. dispatch used to relay every
// server log to such an agent whatever it asked.
func TestRelay_ModernAgentsLogLevelComesWithEachRequest(t *testing.T) {
	tc := launchDispatch(t, nil, mcp.ProtocolVersion20260728, nil, nil, "--no-cache", "--mcp", fixture("--client-requests"))
	tc.initialize()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if v := tc.client.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Fatalf("negotiated %q, want %q", v, mcp.ProtocolVersion20260728)
	}
	call := func(tool string) {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = "proxy-dispatch"
		req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": tool}
		if r, err := tc.client.CallTool(ctx, req); err != nil || r.IsError {
			t.Fatalf("call %s: %v %+v", tool, err, r)
		}
	}
	setLevel := func(level mcp.LoggingLevel) {
		t.Helper()
		if err := tc.client.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: level}}); err != nil {
			t.Fatalf("setLevel: %v", err)
		}
	}

	// No level asked: none of the eight logs may reach the agent.
	call("log-levels")
	// Then error: the logs from error up. Logs reach the agent in order, so
	// once these are in, any log of the first call would be too.
	setLevel(mcp.LoggingLevelError)
	call("log-levels")
	want := []string{"error message", "critical message", "alert message", "emergency message"}
	testkit.WaitFor(t, "the logs of log-levels at error", 30*time.Second, func() bool { return len(tc.logsFrom("c1/fixture")) >= len(want) })
	if got := tc.logsFrom("c1/fixture"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("logs = %q, want only %q (none for the call that asked for none)", got, want)
	}
	// A lower level is passed on to the server, which then sends more.
	setLevel(mcp.LoggingLevelWarning)
	call("log-levels")
	want = append(want, "warning message", "error message", "critical message", "alert message", "emergency message")
	testkit.WaitFor(t, "the logs of log-levels at warning", 30*time.Second, func() bool { return len(tc.logsFrom("c1/fixture")) >= len(want) })
	if got := tc.logsFrom("c1/fixture"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("logs = %q, want %q", got, want)
	}
}
