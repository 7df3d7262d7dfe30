package main

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// waitOutAttribution waits until a server's requests and logs are no
// longer attributed to the sessions whose calls on it just ended
// (connections.AttributionWindow), so that the next session's call is the
// only one they can come from.
func waitOutAttribution() { time.Sleep(connections.AttributionWindow + 100*time.Millisecond) }

// namedAgent answers a server's requests as one particular agent: its
// model "samples" by echoing the prompt with its name, its user gives its
// name, and its one root is named after it. It also keeps the server logs
// it receives.
type namedAgent struct {
	name string

	mu    sync.Mutex
	asked []string
	logs  []string // data of notifications/message from c1/fixture
}

func (a *namedAgent) note(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, s)
}

func (a *namedAgent) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

func (a *namedAgent) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	prompt := ""
	if len(req.Messages) > 0 {
		if text, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			prompt = text.Text
		}
	}
	a.note("sampling: " + prompt)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(a.name + " sampled: " + prompt)},
		Model:           "test-model",
		StopReason:      "endTurn",
	}, nil
}

func (a *namedAgent) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.note("elicitation: " + req.Params.Message)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": a.name}}}, nil
}

func (a *namedAgent) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.note("roots")
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/" + a.name, Name: a.name}}}, nil
}

func (a *namedAgent) options() []client.ClientOption {
	return []client.ClientOption{client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a)}
}

// connect opens a session of a over HTTP, keeping the fixture's logs.
func (a *namedAgent) connect(t *testing.T, d *httpDispatch, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c := d.session(t, append(a.options(), opts...)...)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationMessage) || n.Params.AdditionalFields["logger"] != "c1/fixture" {
			return
		}
		data, _ := n.Params.AdditionalFields["data"].(string)
		a.mu.Lock()
		a.logs = append(a.logs, data)
		a.mu.Unlock()
	})
	return c
}

func (a *namedAgent) fixtureLogs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.logs...)
}

// callFixture calls a fixture tool through proxy-dispatch in session c.
func callFixture(t *testing.T, c *client.Client, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return callText(ctx, t, c, map[string]any{"action": "call", "connection": "c1", "tool": tool, "arguments": args})
}

var (
	allLevels    = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	fromWarning  = allLevels[3:]
	belowWarning = allLevels[:3]
)

// checkLogLevels calls log-levels in session c, waits until a has
// received the logs at each level of want, and checks it never received
// one at a level of never. A log may come after the answer, and one that
// no single call was in flight for goes to every session (within its
// level), so the check is on the levels received, not their order. The
// call is made again (at most 5 times) while some are missing: mcp-go's
// streamable HTTP server drops a notification that meets the end of the
// POST whose stream it was to go on.
func checkLogLevels(t *testing.T, who string, c *client.Client, a *namedAgent, want, never []string) {
	t.Helper()
	has := func(level string) bool { return slices.Contains(a.fixtureLogs(), level+" message") }
	for range 5 {
		callFixture(t, c, "log-levels", nil)
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && !allOf(want, has) {
			time.Sleep(20 * time.Millisecond)
		}
		if allOf(want, has) {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // a log it should not get would be here by now
	for _, level := range want {
		if !has(level) {
			t.Errorf("%s session never got the %s log; it got %q", who, level, a.fixtureLogs())
		}
	}
	for _, level := range never {
		if has(level) {
			t.Errorf("%s session got the %s log, below the level it asked for; it got %q", who, level, a.fixtureLogs())
		}
	}
}

func allOf(items []string, pred func(string) bool) bool {
	for _, it := range items {
		if !pred(it) {
			return false
		}
	}
	return true
}

// TestServeHTTP_LogLevelPerSession: the servers get the most verbose
// level any live session asked for, each session receives only the logs
// at or above its own, and when that session ends the servers are told
// the next one.
func TestServeHTTP_LogLevelPerSession(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	verbose, quiet := &namedAgent{name: "verbose"}, &namedAgent{name: "quiet"}
	cv, cq := verbose.connect(t, d), quiet.connect(t, d)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	callFixture(t, cq, "echo", map[string]any{"message": "start"}) // so the levels reach a running server
	setLevel := func(c *client.Client, level mcp.LoggingLevel) {
		t.Helper()
		if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: level}}); err != nil {
			t.Fatalf("setLevel %s: %v", level, err)
		}
	}
	setLevel(cv, mcp.LoggingLevelDebug)
	setLevel(cq, mcp.LoggingLevelWarning)

	// The server filters at mcp-go's default, error, unless a session's
	// level reached it: debug arriving shows it did.
	checkLogLevels(t, "the debug", cv, verbose, allLevels, nil)
	checkLogLevels(t, "the warning", cq, quiet, fromWarning, belowWarning)

	// The debug session ends: the server is told warning, so a session that
	// asked for nothing gets what the server now sends.
	cv.Close()
	silent := &namedAgent{name: "silent"}
	checkLogLevels(t, "a new", silent.connect(t, d), silent, fromWarning, belowWarning)
}

// TestServeHTTP_RootsReachTheirSession: a server's roots/list goes to the
// session whose call caused it (once the other session's call on that
// server ended more than connections.AttributionWindow ago), and a
// session's roots/list_changed reaches the servers.
func TestServeHTTP_RootsReachTheirSession(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	for _, s := range []struct {
		name string
		c    *client.Client
	}{{"ada", ca}, {"bob", cb}, {"ada", ca}} {
		waitOutAttribution()
		text, isErr := callFixture(t, s.c, "request-roots", nil)
		if isErr || !strings.Contains(text, `"uri":"file:///work/`+s.name+`"`) {
			t.Errorf("request-roots in %s's session = %q (isError %v), want %s's root", s.name, text, isErr, s.name)
		}
	}
	if got := strings.Join(bob.questions(), ","); got != "roots" {
		t.Errorf("bob was asked %q, want roots once", got)
	}
	if got, _ := callFixture(t, cb, "roots-changes", nil); got != "0" {
		t.Fatalf("roots-changes before any = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ca.RootListChanges(ctx); err != nil {
		t.Fatalf("send roots/list_changed: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got, _ = callFixture(t, cb, "roots-changes", nil); got == "1" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != "1" {
		t.Errorf("the server heard of %s roots changes, want 1", got)
	}
}

// TestServeHTTP_SamplingReachesItsSession: sampling and elicitation
// during a call reach the session that made the call (once the other
// session's calls on that server ended more than
// connections.AttributionWindow ago), answered by a real mcp-go streamable
// HTTP client.
func TestServeHTTP_SamplingReachesItsSession(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	for _, s := range []struct {
		name string
		c    *client.Client
	}{{"ada", ca}, {"bob", cb}} {
		waitOutAttribution()
		text, isErr := callFixture(t, s.c, "request-sampling", map[string]any{"prompt": "hello"})
		if want := s.name + " sampled: hello"; isErr || text != want {
			t.Errorf("request-sampling in %s's session = %q (isError %v), want %q", s.name, text, isErr, want)
		}
		text, isErr = callFixture(t, s.c, "request-elicitation", map[string]any{"message": "Your name?"})
		if isErr || !strings.Contains(text, `"name":"`+s.name+`"`) {
			t.Errorf("request-elicitation in %s's session = %q (isError %v), want %s's answer", s.name, text, isErr, s.name)
		}
	}
	for _, a := range []*namedAgent{ada, bob} {
		if got, want := strings.Join(a.questions(), ","), "sampling: hello,elicitation: Your name?"; got != want {
			t.Errorf("%s was asked %q, want %q", a.name, got, want)
		}
	}
}

// TestServeHTTP_InitializeErrorHoldsNoSession: an initialize answered
// with a JSON-RPC error (it carries a session id, but no client uses a
// session it failed to open) frees its --max-sessions place at once.
func TestServeHTTP_InitializeErrorHoldsNoSession(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-sessions", "2")
	for i := range 4 {
		resp, body := rawPost(t, d.url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"not an object"}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"error"`) {
			t.Fatalf("bad initialize %d got %d %.300q; want a JSON-RPC error", i, resp.StatusCode, body)
		}
	}
	resp, body := rawPost(t, d.url, nil, initializeBody)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("after failed initializes a good one got %d %.300q; want 200 and a session", resp.StatusCode, body)
	}
	if !strings.Contains(d.stderr.String(), "its initialize failed") {
		t.Errorf("no log line says the failed sessions ended:\n%s", d.stderr.String())
	}
}

// TestServeHTTP_SamplingWithoutListeningStreamFails: mcp-go sends
// sampling and roots only on the session's listening stream (GET); an
// agent that declared them but keeps none open gets an error saying so,
// within ListenGrace, not a call that hangs until the relay's timeout.
func TestServeHTTP_SamplingWithoutListeningStreamFails(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	agent := &namedAgent{name: "deaf"}
	c := d.sessionWith(t, nil, agent.options()...) // no WithContinuousListening
	for _, tool := range []string{"request-sampling", "request-roots"} {
		text, isErr := callFixture(t, c, tool, map[string]any{"prompt": "hello"})
		if !isErr || !strings.Contains(text, "no listening stream open (GET /mcp)") {
			t.Errorf("%s from a session with no listening stream = %q (isError %v), want an error naming the listening stream", tool, text, isErr)
		}
	}
}

// TestServeHTTP_EndedSessionLeavesNoAmbiguity: a session ended (DELETE)
// right after its call, and another session's call begun after that asks
// for sampling: it is relayed to the caller's session, not refused as
// ambiguous within AttributionWindow (review 8, F4: an agent opening a
// session per task).
func TestServeHTTP_EndedSessionLeavesNoAmbiguity(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	waitOutAttribution()
	if text, isErr := callFixture(t, ca, "echo", map[string]any{"message": "x"}); isErr {
		t.Fatalf("echo in ada's session: %q", text)
	}
	if err := ca.Close(); err != nil { // sends DELETE and waits for its answer
		t.Fatalf("close ada's session: %v", err)
	}
	text, isErr := callFixture(t, cb, "request-sampling", map[string]any{"prompt": "hello"})
	if want := "bob sampled: hello"; isErr || text != want {
		t.Errorf("request-sampling in bob's session right after ada's ended = %q (isError %v), want %q", text, isErr, want)
	}
	if got := ada.questions(); len(got) != 0 {
		t.Errorf("ada, whose session ended, was asked %q", got)
	}
}
