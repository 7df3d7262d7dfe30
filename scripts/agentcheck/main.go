// Command agentcheck plays an agent against a dispatch server: it starts
// dispatch over stdio with a real MCP client and runs list, search, call,
// a spilled call and readresult, failing loudly on any surprise. The
// interop script runs it against the npm reference servers:
//
//	go run ./scripts/agentcheck DISPATCH_BINARY [dispatch flags...]
package main

import (
	"context"
	"encoding/json"
	"errors"
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
		fmt.Fprintln(os.Stderr, "usage: agentcheck DISPATCH_BINARY [dispatch flags...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "agentcheck:", err)
		os.Exit(1)
	}
	fmt.Println("agent session ok")
}

func run(bin string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := agent.Connect(ctx, "agentcheck", bin, args)
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "proxy-dispatch" {
		return fmt.Errorf("want one tool proxy-dispatch, got %d", len(tools.Tools))
	}

	steps := []struct {
		name string
		args map[string]any
		want string
	}{
		// Whether list says "ready" or "idle" depends on the catalog cache
		// (serve mode is lazy), so check what the agent needs: every server's tools.
		{"list", map[string]any{"action": "list"}, `"alias":"c3"`},
		{"list", map[string]any{"action": "list"}, `"get-sum"`},
		{"list", map[string]any{"action": "list"}, `"read_graph"`},
		{"search", map[string]any{"action": "search", "query": "add two numbers"}, `"name":"get-sum"`},
		{"info", map[string]any{"action": "info", "tool": "get-sum"}, `"inputSchema"`},
		{"call", map[string]any{"action": "call", "tool": "get-sum", "arguments": map[string]any{"a": 20, "b": 22}}, "is 42"},
	}
	for _, s := range steps {
		text, err := call(ctx, c, s.args)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if !strings.Contains(text, s.want) {
			return fmt.Errorf("%s: answer lacks %q: %s", s.name, s.want, text)
		}
	}

	text, err := call(ctx, c, map[string]any{"action": "call", "tool": "list_allowed_directories", "resultToFile": true})
	if err != nil {
		return fmt.Errorf("spilled call: %w", err)
	}
	var spilled struct {
		Spill struct{ ResultFile string }
	}
	if err := json.Unmarshal([]byte(text), &spilled); err != nil || spilled.Spill.ResultFile == "" {
		return fmt.Errorf("spilled call: no resultFile in %s", text)
	}
	text, err = call(ctx, c, map[string]any{"action": "readresult", "resultFile": spilled.Spill.ResultFile, "op": "head", "lines": 5})
	if err != nil {
		return fmt.Errorf("readresult: %w", err)
	}
	if !strings.Contains(text, "1:") {
		return fmt.Errorf("readresult head: %s", text)
	}
	if _, err := call(ctx, c, map[string]any{"action": "readresult", "resultFile": "/etc/passwd"}); err == nil {
		return errors.New("readresult read /etc/passwd: confinement is broken")
	}
	return nil
}

// call invokes proxy-dispatch and returns its first text item; an isError
// result is an error.
func call(ctx context.Context, c *client.Client, args map[string]any) (string, error) {
	_, text, err := agent.Call(ctx, c, args)
	return text, err
}
