package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/mcp"
)

// sentToAgent collects what agentRequests writes to the agent.
type sentToAgent struct {
	mu   sync.Mutex
	msgs []string
	sent chan struct{}
}

func (s *sentToAgent) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, string(data))
	s.mu.Unlock()
	s.sent <- struct{}{}
}

func (s *sentToAgent) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.msgs, "\n")
}

func TestAgentRequests_AnswersBoundAndCancel(t *testing.T) {
	agent := newAgentRequests(2)
	out := &sentToAgent{sent: make(chan struct{}, 10)}
	type outcome struct {
		result json.RawMessage
		err    error
	}
	first, second := make(chan outcome, 1), make(chan outcome, 1)
	ctx, cancelSecond := context.WithCancel(context.Background())
	go func() {
		r, err := agent.request(context.Background(), out.write, "sampling/createMessage", json.RawMessage(`{"maxTokens":1}`))
		first <- outcome{r, err}
	}()
	<-out.sent
	go func() {
		r, err := agent.request(ctx, out.write, "roots/list", nil)
		second <- outcome{r, err}
	}()
	<-out.sent

	// Two wait: a third is refused at once, not queued.
	_, err := agent.request(context.Background(), out.write, "roots/list", nil)
	if err == nil || !strings.Contains(err.Error(), "MaxPendingAgentRequests") {
		t.Errorf("third request = %v, want refused naming the limit", err)
	}

	// The agent answers the first with an error of its own: the server
	// gets that error as it is.
	if !agent.answer(message{ID: json.RawMessage(`"dispatch-1"`), Error: &connections.RPCError{Code: -1, Message: "user declined"}}) {
		t.Fatal("the answer to dispatch-1 found no request")
	}
	got := <-first
	var rpc *connections.RPCError
	if !errors.As(got.err, &rpc) || rpc.Message != "user declined" {
		t.Errorf("first = %v, want the agent's error", got.err)
	}
	if agent.answer(message{ID: json.RawMessage(`"dispatch-1"`), Result: json.RawMessage(`{}`)}) {
		t.Error("a second answer to dispatch-1 was taken")
	}

	cancelSecond()
	got = <-second
	if !errors.Is(got.err, context.Canceled) {
		t.Errorf("second after cancel = %v", got.err)
	}
	<-out.sent
	checkSent := out.all()
	for _, want := range []string{`"id":"dispatch-1","method":"sampling/createMessage","params":{"maxTokens":1}`, `"id":"dispatch-2","method":"roots/list"}`,
		`"method":"notifications/cancelled","params":{"reason":"context canceled","requestId":"dispatch-2"}`} {
		if !strings.Contains(checkSent, want) {
			t.Errorf("sent to the agent lacks %s:\n%s", want, checkSent)
		}
	}

	// Once the agent is gone, a request fails at once.
	agent.close()
	if _, err := agent.request(context.Background(), out.write, "roots/list", nil); err == nil {
		t.Error("request after close succeeded")
	}
}

func TestAgentRequests_CloseFailsWaitingRequests(t *testing.T) {
	agent := newAgentRequests(4)
	out := &sentToAgent{sent: make(chan struct{}, 10)}
	done := make(chan error, 1)
	go func() {
		_, err := agent.request(context.Background(), out.write, "elicitation/create", json.RawMessage(`{}`))
		done <- err
	}()
	<-out.sent
	agent.close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "went away") {
		t.Errorf("waiting request after the agent left = %v", err)
	}
}

// TestStdioSession_LogQueueIsBounded: with nobody writing to the agent, a
// log flood fills the queue and the rest is refused (dropped by the
// caller) at once instead of waiting or growing.
func TestStdioSession_LogQueueIsBounded(t *testing.T) {
	sess := &stdioSession{logs: make(chan mcp.JSONRPCNotification, logQueue)}
	accepted := 0
	for range 10 * logQueue {
		if sess.NotifyClient(string(mcp.MethodNotificationMessage), map[string]any{"level": "error", "data": "x"}) {
			accepted++
		}
	}
	if accepted != logQueue {
		t.Errorf("accepted %d log messages with nobody writing, want the queue's %d", accepted, logQueue)
	}
}
