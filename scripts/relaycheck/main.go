// Command relaycheck plays an agent that can sample, elicit and list roots
// against a dispatch server, and checks that a server's requests reach its
// handlers through dispatch and their answers reach the server. The
// interop script runs it against server-everything:
//
//	go run ./scripts/relaycheck DISPATCH_BINARY [dispatch flags...]
//
// server-everything offers trigger-sampling-request,
// trigger-elicitation-request and get-roots-list only to a client that
// declares those capabilities, so it also checks that an agent declaring
// none does not see them.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"dispatch/scripts/internal/agent"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relaycheck DISPATCH_BINARY [dispatch flags...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "relaycheck:", err)
		os.Exit(1)
	}
	fmt.Println("relay ok: sampling, elicitation and roots answered by the agent's handlers")
}

// handlers answer as a person and a model would, recognisably.
type handlers struct{}

func (handlers) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("relaycheck-sampled")},
		Model:           "relaycheck-model",
		StopReason:      "endTurn",
	}, nil
}

func (handlers) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Relaycheck Person", "check": true}}}, nil
}

func (handlers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///relaycheck/root", Name: "relaycheck-root"}}}, nil
}

func run(bin string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	a := handlers{}
	c, err := agent.Connect(ctx, "relaycheck", bin, args, client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a))
	if err != nil {
		return err
	}
	defer c.Close()
	steps := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"trigger-sampling-request", map[string]any{"prompt": "hello"}, []string{"relaycheck-sampled", "relaycheck-model"}},
		{"trigger-elicitation-request", map[string]any{}, []string{"Relaycheck Person"}},
		{"get-roots-list", map[string]any{}, []string{"file:///relaycheck/root", "relaycheck-root"}},
	}
	listed, err := call(ctx, c, map[string]any{"action": "list", "connection": "c1", "limit": 100})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	for _, s := range steps {
		if !strings.Contains(listed, `"`+s.tool+`"`) {
			return fmt.Errorf("an agent declaring sampling, elicitation and roots is not offered %s: %s", s.tool, listed)
		}
		text, err := call(ctx, c, map[string]any{"action": "call", "tool": s.tool, "arguments": s.args})
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		for _, want := range s.want {
			if !strings.Contains(text, want) {
				return fmt.Errorf("%s: answer lacks %q: %s", s.tool, want, text)
			}
		}
	}

	plain, err := agent.Connect(ctx, "relaycheck", bin, args)
	if err != nil {
		return err
	}
	defer plain.Close()
	text, err := call(ctx, plain, map[string]any{"action": "list", "connection": "c1", "limit": 100})
	if err != nil {
		return fmt.Errorf("list for an agent without capabilities: %w", err)
	}
	for _, tool := range []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} {
		if strings.Contains(text, `"`+tool+`"`) {
			return fmt.Errorf("an agent declaring no capabilities is offered %s", tool)
		}
	}
	return nil
}

// call invokes proxy-dispatch and returns its text; an isError result is
// an error.
func call(ctx context.Context, c *client.Client, args map[string]any) (string, error) {
	_, text, err := agent.Call(ctx, c, args)
	return text, err
}
