package connections

import (
	"context"
	"encoding/json"
	"log/slog"
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

// A log goes to the one session whose call is in flight or ended within
// LateLogWindow, else to the default upstream; sessions whose calls ended
// longer ago are forgotten, so that sessions coming and going over a
// long-lived serve do not pile up.
func TestLogUpstream_LateCallers(t *testing.T) {
	hub := &relayHub{up: namedUpstream("default")}
	c := newConn("c1", ServerConfig{Command: "unused"}, Options{Logger: slog.New(slog.DiscardHandler)}, hub)
	a, b := namedUpstream("a"), namedUpstream("b")
	doneA := c.trackCaller(WithUpstream(context.Background(), a))
	if got := c.logUpstream(); got != a {
		t.Errorf("a's call in flight: log goes to %v, want a", got)
	}
	doneB := c.trackCaller(WithUpstream(context.Background(), b))
	if got := c.logUpstream(); got != hub.up {
		t.Errorf("calls of a and b in flight: log goes to %v, want the default", got)
	}
	doneA()
	if got := c.logUpstream(); got != hub.up {
		t.Errorf("a's call just ended, b's in flight: log goes to %v, want the default (either may have sent it)", got)
	}
	if up, n := c.upstreamFor(); up != b || n != 1 {
		t.Errorf("a request with b's call alone in flight goes to %v (%d callers), want b (1)", up, n)
	}
	time.Sleep(LateLogWindow + 50*time.Millisecond)
	if got := c.logUpstream(); got != b {
		t.Errorf("a's call ended past LateLogWindow: log goes to %v, want b", got)
	}
	doneB()
	if got := c.logUpstream(); got != b {
		t.Errorf("b's call just ended: log goes to %v, want b", got)
	}
	c.callersMu.Lock()
	late := len(c.lateCallers)
	c.callersMu.Unlock()
	if late != 1 {
		t.Errorf("%d sessions remembered as late callers, want only b", late)
	}
}
