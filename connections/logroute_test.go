package connections

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// namedUpstream is an agent session known only by its name: what routing
// picks is compared, nothing is sent to it.
type namedUpstream string

func (namedUpstream) ClientCapabilities() mcp.ClientCapabilities { return mcp.ClientCapabilities{} }
func (namedUpstream) RequestClient(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}
func (namedUpstream) NotifyClient(string, any) bool { return true }

// A server's request or log is attributed to the one session whose calls
// are in flight on the server, or ended within AttributionWindow, with its
// newest call there; with two such sessions to none (a request is refused
// as ambiguous, a log dropped); with none, to the default upstream.
// Sessions whose calls ended longer ago are forgotten, so that sessions
// coming and going over a long-lived serve do not pile up.
func TestAttribute_OneSessionWithinTheWindow(t *testing.T) {
	hub := &relayHub{up: namedUpstream("default")}
	c := newConn("c1", ServerConfig{Command: "unused"}, Options{Logger: slog.New(slog.DiscardHandler)}, hub)
	a, b := namedUpstream("a"), namedUpstream("b")
	ctxA1 := WithUpstream(context.Background(), a)
	doneA1 := c.trackCaller(ctxA1)
	if got := c.attribute(); got.users != 1 || got.up != a || got.call != ctxA1 {
		t.Errorf("a's call in flight: attributed to %v (%d users, call %v), want a's call", got.up, got.users, got.call)
	}
	ctxA2 := context.WithValue(ctxA1, struct{ second bool }{}, true)
	doneA2 := c.trackCaller(ctxA2)
	if got := c.attribute(); got.up != a || got.call != ctxA2 {
		t.Errorf("two calls of a in flight: attributed to %v (call %v), want a's newest call", got.up, got.call)
	}
	doneB := c.trackCaller(WithUpstream(context.Background(), b))
	checkAmbiguous := func(when string) {
		t.Helper()
		if got := c.attribute(); got.users != 2 || got.up != nil {
			t.Errorf("%s: attributed to %v (%d users), want none of 2", when, got.up, got.users)
		}
		if got := c.logUpstream(); got != nil {
			t.Errorf("%s: a log goes to %v, want none", when, got)
		}
		_, refusal := c.askAgent(context.Background(), "sampling/createMessage", json.RawMessage(`{}`))
		if refusal == nil || !strings.Contains(refusal.Message, "ambiguous") || !strings.Contains(refusal.Message, "AttributionWindow") {
			t.Errorf("%s: a request is answered %v, want it refused as ambiguous", when, refusal)
		}
	}
	checkAmbiguous("calls of a and b in flight")
	doneA2()
	doneA1()
	checkAmbiguous("a's calls just ended, b's in flight")
	time.Sleep(AttributionWindow + 50*time.Millisecond)
	if got := c.attribute(); got.users != 1 || got.up != b {
		t.Errorf("a's calls ended past AttributionWindow: attributed to %v (%d users), want b", got.up, got.users)
	}
	c.callersMu.Lock()
	remembered := len(c.callers)
	c.callersMu.Unlock()
	if remembered != 1 {
		t.Errorf("%d sessions remembered, want only b", remembered)
	}
	doneB()
	if got := c.attribute(); got.up != b || got.call != nil {
		t.Errorf("b's call just ended: attributed to %v (call %v), want b with no call", got.up, got.call)
	}
	if got := c.logUpstream(); got != b {
		t.Errorf("b's call just ended: a log goes to %v, want b", got)
	}
}
