package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"dispatch/internal/testkit"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// heldAgent is an agent whose model never answers: each sampling request
// waits until the relay is cancelled or the test releases it, and its
// prompt is kept.
type heldAgent struct {
	released chan struct{}

	mu    sync.Mutex
	asked []string
}

func newHeldAgent(t *testing.T) *heldAgent {
	a := &heldAgent{released: make(chan struct{})}
	t.Cleanup(a.release)
	return a
}

func (a *heldAgent) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.released:
	default:
		close(a.released)
	}
}

func (a *heldAgent) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	prompt := ""
	if len(req.Messages) > 0 {
		if text, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			prompt = text.Text
		}
	}
	a.mu.Lock()
	a.asked = append(a.asked, prompt)
	a.mu.Unlock()
	select {
	case <-ctx.Done():
	case <-a.released:
	}
	return nil, errors.New("the held agent gives no answer")
}

func (a *heldAgent) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// TestRelay_EveryExpiredServerRequestIsAnswered: ten sampling requests the
// agent never answers each end after --server-request-timeout with an
// error answer to the server (so each call returns, naming the limit) and
// notifications/cancelled to the agent. The answer used to be written
// with the request's expired context, so about half were never sent and
// their calls hung until the call's own time limit.
func TestRelay_EveryExpiredServerRequestIsAnswered(t *testing.T) {
	agent := newHeldAgent(t)
	tc := startDispatchAs(t, nil, []client.ClientOption{client.WithSamplingHandler(agent)},
		"--no-cache", "--server-request-timeout", "1s", "--timeout", "10m", "--mcp", fixture("--client-requests"))
	const requests = 10
	type answer struct {
		text  string
		isErr bool
	}
	results := make(chan answer, requests)
	for i := range requests {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			r, err := tc.call(ctx, map[string]any{"action": "call", "connection": "c1", "tool": "request-sampling",
				"arguments": map[string]any{"prompt": fmt.Sprintf("question %d", i)}}, nil)
			if err != nil {
				results <- answer{"no answer: " + err.Error(), true}
				return
			}
			results <- answer{r.text(), r.IsError}
		}()
	}
	for range requests {
		r := <-results
		if !r.isErr || !strings.Contains(r.text, "--server-request-timeout") {
			t.Errorf("a call whose sampling the agent never answered = %q (isError %v), want the server's error answer naming --server-request-timeout", r.text, r.isErr)
		}
	}
	testkit.WaitFor(t, "the agent to be told of every expired request", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		n := 0
		for _, note := range tc.notifications {
			if note.Method == string(mcp.MethodNotificationCancelled) {
				n++
			}
		}
		return n == requests
	})
}

// TestServeHTTP_BusySessionDoesNotStarveOthers: a session whose agent
// never answers fills a shared server's MaxServerRequests; the server's
// next requests are refused at once, and another session's call on that
// server is answered meanwhile. dispatch used to stop reading the server's
// stdout, so every session's results on it waited for the unanswered
// requests to expire.
func TestServeHTTP_BusySessionDoesNotStarveOthers(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	held := newHeldAgent(t)
	ca := d.session(t, client.WithSamplingHandler(held))
	cb := d.session(t)
	callText(context.Background(), t, cb, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "start"}})
	waitOutAttribution()

	const calls = 20 // past MaxServerRequests (16)
	refused := make(chan string, calls)
	for i := range calls {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "proxy-dispatch"
			req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": "request-sampling",
				"arguments": map[string]any{"prompt": fmt.Sprintf("question %d", i)}}
			res, err := ca.CallTool(ctx, req)
			if err != nil || len(res.Content) == 0 {
				return
			}
			if text, ok := res.Content[0].(mcp.TextContent); ok && strings.Contains(text.Text, "MaxServerRequests") {
				refused <- text.Text
			}
		}()
	}
	for range calls - 16 {
		select {
		case <-refused:
		case <-time.After(60 * time.Second):
			t.Fatalf("the server's requests past MaxServerRequests were not refused; the agent was asked %d", len(held.questions()))
		}
	}
	// Every question is out before the other session calls: a server
	// request arriving after that call would be ambiguous (two sessions'
	// calls on the server) and refused as such, which under load made the
	// count below come short.
	testkit.WaitFor(t, "the held agent to be asked 16 questions", 30*time.Second, func() bool { return len(held.questions()) >= 16 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text, isErr := callText(ctx, t, cb, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "still here"}})
	if isErr || text != "still here" {
		t.Errorf("another session's echo on the busy server = %q (isError %v), want it answered", text, isErr)
	}
	if asked := len(held.questions()); asked != 16 {
		t.Errorf("the held agent was asked %d questions, want 16 (MaxServerRequests)", asked)
	}
}

// TestServeHTTP_EndedSessionsRequestsAreAnsweredAtOnce: a server's
// request waiting on a session's agent is answered with an error as soon
// as the session ends (DELETE), not when the relay's time runs out.
func TestServeHTTP_EndedSessionsRequestsAreAnsweredAtOnce(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	held := newHeldAgent(t)
	ca := d.session(t, client.WithSamplingHandler(held))
	file := filepath.Join(t.TempDir(), "answer")
	text, isErr := callText(context.Background(), t, ca, map[string]any{"action": "call", "connection": "c1", "tool": "sample-when-idle",
		"arguments": map[string]any{"prompt": "are you there", "file": file, "ms": 100}})
	if isErr {
		t.Fatalf("sample-when-idle: %s", text)
	}
	testkit.WaitFor(t, "the agent to be asked", 20*time.Second, func() bool { return len(held.questions()) == 1 })
	ca.Close() // DELETE
	got := waitLines(t, file, 1)
	if !strings.HasPrefix(got[0], "error: ") || !strings.Contains(got[0], "ended") {
		t.Errorf("the server's request to a session that ended got %q, want an error saying the session ended", got)
	}
}

// TestServeHTTP_ServerRequestOfAnotherSessionIsNotHandedOver: a server
// asks for sampling with session B's prompt a moment after B's call ended,
// while A's call, begun before B's ended, runs on that server: it could
// be either's, so it is refused as ambiguous, and A never sees B's
// prompt. It used to go to A, the session whose call was in flight.
func TestServeHTTP_ServerRequestOfAnotherSessionIsNotHandedOver(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	slow := make(chan struct{})
	go func() {
		defer close(slow)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "proxy-dispatch"
		req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": "slow", "arguments": map[string]any{"seconds": 2.5}}
		ca.CallTool(ctx, req) //nolint:errcheck // only its time in flight matters
	}()
	time.Sleep(500 * time.Millisecond) // ada's call is in flight
	file := filepath.Join(t.TempDir(), "answer")
	text, isErr := callFixture(t, cb, "sample-when-idle", map[string]any{"prompt": "PRIVATE-PROMPT-OF-BOB", "file": file, "ms": 700})
	if isErr {
		t.Fatalf("sample-when-idle: %s", text)
	}
	got := waitLines(t, file, 1)
	if !strings.HasPrefix(got[0], "error: ") || !strings.Contains(got[0], "ambiguous") {
		t.Errorf("the server's sampling after bob's call, during ada's, got %q, want it refused as ambiguous", got)
	}
	if q := ada.questions(); len(q) != 0 {
		t.Errorf("ada was asked %q: bob's prompt reached another session", q)
	}
	<-slow
}

// TestServeHTTP_SessionPerTaskIsAsked: an agent that opens a session per
// task and never ends them (the official conformance suite does) has its
// server's request, made during its call, relayed, though another
// session's call ended a moment before that call began: a call that ended
// before the only call in flight began does not make the request
// ambiguous. (A request trailing that earlier call would be taken for the
// later one's: README says so.)
func TestServeHTTP_SessionPerTaskIsAsked(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	if text, isErr := callFixture(t, ca, "echo", map[string]any{"message": "first task"}); isErr {
		t.Fatalf("echo: %s", text)
	}
	text, isErr := callFixture(t, cb, "request-sampling", map[string]any{"prompt": "second task"})
	if want := "bob sampled: second task"; isErr || !strings.Contains(text, want) {
		t.Errorf("request-sampling in the next task's session = %q (isError %v), want it relayed to that session (%q)", text, isErr, want)
	}
	if q := ada.questions(); len(q) != 0 {
		t.Errorf("ada was asked %q", q)
	}
}

// streamedCall is one tools/call POSTed by hand, its response stream read
// as it comes: the server requests written on it are kept.
type streamedCall struct {
	done     chan struct{}
	mu       sync.Mutex
	requests []map[string]any // JSON-RPC requests written on this call's stream
}

func (c *streamedCall) requestsSeen() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.requests...)
}

// postStreamed POSTs body in session sid and reads its response stream
// (SSE) until it ends, keeping the requests on it.
func postStreamed(t *testing.T, url, sid, body string) *streamedCall {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	c := &streamedCall{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			var msg map[string]any
			if !ok || json.Unmarshal([]byte(data), &msg) != nil || msg["method"] == nil || msg["id"] == nil {
				continue
			}
			c.mu.Lock()
			c.requests = append(c.requests, msg)
			c.mu.Unlock()
		}
	}()
	return c
}

// TestServeHTTP_ElicitationGoesOnTheCausingCallsStream: a session's call
// on c1 asks for elicitation while the session's newer call on c2 runs:
// the request is written on the c1 call's stream, the one that caused
// it, not on the session's newest call's.
func TestServeHTTP_ElicitationGoesOnTheCausingCallsStream(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--mcp", fixture("--client-requests", "--name", "second"))
	resp, body := rawPost(t, d.url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize got %d %.300q", resp.StatusCode, body)
	}
	rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := func(id int, conn, tool string, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","connection":%q,"tool":%q,"arguments":%s}}}`,
			id, conn, tool, args)
	}
	// The servers are started first, so that the timing below is theirs.
	for i, conn := range []string{"c1", "c2"} {
		if _, body := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid}, call(10+i, conn, "echo", `{"message":"start"}`)); !strings.Contains(body, `"text":"start"`) {
			t.Fatalf("echo on %s: %.300s", conn, body)
		}
	}
	asking := postStreamed(t, d.url, sid, call(2, "c1", "request-elicitation", `{"message":"Your name?","ms":1000}`))
	time.Sleep(300 * time.Millisecond) // the c1 call is under way
	newer := postStreamed(t, d.url, sid, call(3, "c2", "slow", `{"seconds":3}`))
	testkit.WaitFor(t, "the elicitation to be written on a call's stream", 30*time.Second, func() bool {
		return len(asking.requestsSeen())+len(newer.requestsSeen()) > 0
	})
	for _, seen := range [][]map[string]any{asking.requestsSeen(), newer.requestsSeen()} {
		for _, r := range seen {
			id, err := json.Marshal(r["id"])
			if err != nil {
				t.Fatal(err)
			}
			answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"raw"}}}`, id)
			rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid}, answer)
		}
	}
	if got := newer.requestsSeen(); len(got) != 0 {
		t.Errorf("the elicitation of the c1 call went on the stream of the session's newer call on c2: %v", got)
	}
	if got := asking.requestsSeen(); len(got) != 1 || got[0]["method"] != string(mcp.MethodElicitationCreate) {
		t.Errorf("the c1 call's stream carried %v, want its elicitation", got)
	}
	<-asking.done
	<-newer.done
}
