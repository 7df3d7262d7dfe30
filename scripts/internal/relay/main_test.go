package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"dispatch/internal/testkit"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

var (
	relayProgram  = &testkit.Binary{Package: "dispatch/scripts/internal/relay"}
	fixtureServer = &testkit.Binary{Package: testkit.FixturePackage}
)

// TestRelay_ForwardsCallsWhole puts the relay between a real mcp-go client
// and the fixture server: a short echo and one whose line is several times
// lineBuffer (forwarded in pieces) both come back whole, and the relay
// exits once the client closes its stdin.
func TestRelay_ForwardsCallsWhole(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(relayProgram.Path(t), nil, []string{fixtureServer.Path(t)},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			return cmd, nil
		}))
	if err := tr.Start(ctx); err != nil {
		t.Fatalf("start relay: %v", err)
	}
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize through the relay: %v", err)
	}
	for _, message := range []string{"hello", strings.Repeat("0123456789", 3*lineBuffer/10+7)} {
		var req mcp.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"message": message}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("echo of %d bytes: %v", len(message), err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("echo of %d bytes: %d content items", len(message), len(res.Content))
		}
		text, ok := res.Content[0].(mcp.TextContent)
		if !ok || text.Text != message {
			t.Fatalf("echo of %d bytes came back as %T of %d bytes", len(message), res.Content[0], len(text.Text))
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if cmd.ProcessState == nil {
		t.Fatal("relay still running after its stdin closed")
	}
	if !cmd.ProcessState.Success() {
		t.Fatalf("relay exited with %v after its stdin closed", cmd.ProcessState)
	}
}
