// Command authcheck plays an agent that declares elicitation in URL mode
// against a dispatch server whose one server needs OAuth authorization,
// and checks that dispatch sends the agent's user to the authorization
// page through it: its elicitation handler opens the page as a browser
// whose user clicks "allow" would (following the redirects back to
// dispatch's loopback callback), and the tool call then goes through.
// The conformance script runs it as the client of auth scenarios:
//
//	go run ./scripts/authcheck DISPATCH_BINARY [dispatch flags...]
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"dispatch/scripts/internal/agent"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: authcheck DISPATCH_BINARY [dispatch flags...]")
		os.Exit(2)
	}
	n, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "authcheck:", err)
		os.Exit(1)
	}
	fmt.Printf("auth ok: %d authorization page(s) opened through URL elicitation, and the tool call went through\n", n)
}

// browser opens each authorization page the agent is asked to.
type browser struct {
	mu     sync.Mutex
	opened int
}

func (b *browser) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode != mcp.ElicitationModeURL || req.Params.URL == "" {
		return nil, fmt.Errorf("want a URL-mode elicitation, got mode %q", req.Params.Mode)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, req.Params.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(r)
	if err != nil {
		return nil, fmt.Errorf("open the authorization page: %w", err)
	}
	resp.Body.Close()
	b.mu.Lock()
	b.opened++
	b.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

func run(bin string, args []string) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := &browser{}
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}
	c, err := agent.ConnectDeclaring(ctx, "authcheck", bin, args, caps, client.WithElicitationHandler(b))
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_, text, err := agent.Call(ctx, c, map[string]any{"action": "call", "connection": "c1", "tool": "test-tool", "arguments": map[string]any{}})
	if err != nil {
		return 0, fmt.Errorf("call test-tool: %w", err)
	}
	if !strings.Contains(text, "test") {
		return 0, fmt.Errorf("test-tool's answer lacks its text: %s", text)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opened == 0 {
		return 0, fmt.Errorf("the call went through without an authorization page: nothing was checked")
	}
	return b.opened, nil
}
