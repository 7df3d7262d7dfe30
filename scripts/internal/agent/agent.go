// Package agent is the MCP client the check programs in scripts/ play an
// agent with: it starts dispatch as a stdio server, initializes it and
// calls proxy-dispatch, as an agent's MCP client would.
package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Connect starts bin with args as an agent's stdio server and initializes
// it as the client name, on protocol 2025-11-25. opts add what the agent
// declares, such as sampling or roots handlers.
func Connect(ctx context.Context, name, bin string, args []string, opts ...client.ClientOption) (*client.Client, error) {
	return ConnectDeclaring(ctx, name, bin, args, mcp.ClientCapabilities{}, opts...)
}

// ConnectDeclaring is Connect for an agent that declares caps beyond what
// its handlers imply, such as elicitation in URL mode.
func ConnectDeclaring(ctx context.Context, name, bin string, args []string, caps mcp.ClientCapabilities, opts ...client.ClientOption) (*client.Client, error) {
	tr := transport.NewStdio(bin, nil, args...)
	if err := tr.Start(ctx); err != nil {
		return nil, fmt.Errorf("start dispatch: %w", err)
	}
	c := client.NewClient(tr, append([]client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}, opts...)...)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start client: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	init.Params.Capabilities = caps
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// Call calls proxy-dispatch with args and returns its result and the text
// of its text items, joined by newlines. An isError result is an error
// holding that text.
func Call(ctx context.Context, c *client.Client, args map[string]any) (*mcp.CallToolResult, string, error) {
	var req mcp.CallToolRequest
	req.Params.Name = "proxy-dispatch"
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, "", err
	}
	var texts []string
	for _, item := range res.Content {
		if t, ok := item.(mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return res, text, fmt.Errorf("isError: %s", text)
	}
	return res, text, nil
}
