package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"dispatch/connections"
	"dispatch/internal/testkit"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServeHTTP_SilentSessionHoldsNoServerRequests (review 6, F2): session
// A's calls leave connections.MaxServerRequests sampling requests waiting
// on its agent, then A goes away without ending its session (its calls are
// cancelled, it never answers, never sends DELETE). Session B's call to the
// same server still gets its sampling request relayed and answered: A's
// requests ended with the calls that caused them. They used to hold the
// server's slots until --server-request-timeout (5 min), and B's request
// was refused as busy.
func TestServeHTTP_SilentSessionHoldsNoServerRequests(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	held := newHeldAgent(t)
	ca := d.session(t, client.WithSamplingHandler(held))
	bob := &namedAgent{name: "bob"}
	cb := bob.connect(t, d)

	ctx, goAway := context.WithCancel(context.Background())
	defer goAway()
	var calls sync.WaitGroup
	for i := range connections.MaxServerRequests {
		calls.Add(1)
		go func() {
			defer calls.Done()
			var req mcp.CallToolRequest
			req.Params.Name = "proxy-dispatch"
			req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": "request-sampling",
				"arguments": map[string]any{"prompt": fmt.Sprintf("question %d", i)}}
			_, _ = ca.CallTool(ctx, req) // cancelled below: its error is the point
		}()
	}
	testkit.WaitFor(t, "A's agent to be asked every question", 30*time.Second, func() bool {
		return len(held.questions()) == connections.MaxServerRequests
	})
	goAway() // A's calls end; its agent never answers and its session stays open
	calls.Wait()
	waitOutAttribution()

	text, isErr := callFixture(t, cb, "request-sampling", map[string]any{"prompt": "hello"})
	if want := "bob sampled: hello"; isErr || text != want {
		t.Errorf("request-sampling in B's session while A's session is silent = %q (isError %v), want %q", text, isErr, want)
	}
	if got := len(held.questions()); got != connections.MaxServerRequests {
		t.Errorf("A's agent was asked %d questions, want %d", got, connections.MaxServerRequests)
	}
}
