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

// heldUpstream is an agent session that declares sampling and never
// answers: each request waits until its relay ends.
type heldUpstream struct{ asked chan struct{} }

func (heldUpstream) ClientCapabilities() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}
}

func (u heldUpstream) RequestClient(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
	u.asked <- struct{}{}
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func (heldUpstream) NotifyClient(string, any) bool { return true }

// A relayed request lives as long as any call of its session that was in
// flight on the server when it came (any of them may have caused it), and
// ends, answered with an error saying so, once all of them have ended.
func TestAskAgent_EndsWithTheCallsItCameDuring(t *testing.T) {
	up := heldUpstream{asked: make(chan struct{}, 1)}
	c := newConn("c1", ServerConfig{Command: "unused"}, Options{Logger: slog.New(slog.DiscardHandler)}, &relayHub{up: namedUpstream("default")})
	older := c.trackCaller(WithUpstream(context.Background(), up))
	newer := c.trackCaller(WithUpstream(context.Background(), up))
	answered := make(chan *RPCError, 1)
	go func() {
		_, refusal := c.askAgent(context.Background(), string(mcp.MethodSamplingCreateMessage), json.RawMessage(`{"messages":[],"maxTokens":1}`))
		answered <- refusal
	}()
	select {
	case <-up.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent was never asked")
	}
	newer()
	select {
	case r := <-answered:
		t.Fatalf("the request ended with the newer of its two calls, while the older may be the one that asked: %v", r)
	case <-time.After(200 * time.Millisecond):
	}
	older()
	select {
	case r := <-answered:
		if r == nil || !strings.Contains(r.Message, "ended") || !strings.Contains(r.Message, "nobody is left to use the answer") {
			t.Errorf("the request whose calls all ended was answered %v, want an error saying its calls ended", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not end with the calls it came during")
	}
}

// TestAskAgent_TrailingRequestOutlivesAnUnrelatedCall: a server may ask
// for sampling a moment after its tool answered. A request arriving while
// another call of the same session runs on that server, with one of its
// calls ended within AttributionWindow, may trail the ended call: it must
// not end with the unrelated call still in flight (it keeps
// --server-request-timeout), or the agent's user is cut off mid-answer.
func TestAskAgent_TrailingRequestOutlivesAnUnrelatedCall(t *testing.T) {
	up := heldUpstream{asked: make(chan struct{}, 1)}
	c := newConn("c1", ServerConfig{Command: "unused"}, Options{Logger: slog.New(slog.DiscardHandler)}, &relayHub{up: namedUpstream("default")})
	// The unrelated call began first and runs on: the session never has
	// no call in flight (review 15 found the first fix missed this).
	unrelated := c.trackCaller(WithUpstream(context.Background(), up))
	asker := c.trackCaller(WithUpstream(context.Background(), up))
	asker() // the tool that will ask has answered
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan *RPCError, 1)
	go func() {
		_, refusal := c.askAgent(ctx, string(mcp.MethodSamplingCreateMessage), json.RawMessage(`{"messages":[],"maxTokens":1}`))
		answered <- refusal
	}()
	select {
	case <-up.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent was never asked")
	}
	unrelated()
	select {
	case r := <-answered:
		t.Fatalf("the request ended with an unrelated call of its session, while it may trail the call that ended before: %v", r)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	<-answered
}
