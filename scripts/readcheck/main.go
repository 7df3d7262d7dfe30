// Command readcheck plays an agent reading resources and getting prompts
// through dispatch: it starts dispatch over stdio against
// server-everything with a real MCP client, lists its resources,
// templates and prompts, reads a static and a dynamic resource, reads a
// blob from a template (saved to a file), gets args-prompt, and reads a
// resource_link that get-resource-links returned next. The interop script
// runs it with server-everything as the first server (c1):
//
//	go run ./scripts/readcheck DISPATCH_BINARY [dispatch flags...]
package main

import (
	"context"
	"encoding/json"
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
		fmt.Fprintln(os.Stderr, "usage: readcheck DISPATCH_BINARY [dispatch flags...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "readcheck:", err)
		os.Exit(1)
	}
	fmt.Println("resources and prompts ok")
}

func run(bin string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := agent.Connect(ctx, "readcheck", bin, args)
	if err != nil {
		return err
	}
	defer c.Close()

	var list struct {
		Resources []struct{ URI, URITemplate string }
		Prompts   []struct{ Name string }
	}
	if err := callJSON(ctx, c, map[string]any{"action": "list", "type": "resource", "connection": "c1"}, &list); err != nil {
		return err
	}
	var resources, templates int
	for _, r := range list.Resources {
		if r.URITemplate != "" {
			templates++
		} else {
			resources++
		}
	}
	if resources != 7 || templates != 2 {
		return fmt.Errorf("list type=resource: %d resources and %d templates; want 7 and 2", resources, templates)
	}
	if err := callJSON(ctx, c, map[string]any{"action": "list", "type": "prompt", "connection": "c1"}, &list); err != nil {
		return err
	}
	if len(list.Prompts) != 4 {
		return fmt.Errorf("list type=prompt: %d prompts; want 4", len(list.Prompts))
	}

	var read struct {
		Contents []struct {
			URI, MimeType, Text, Blob, ResultFile, Format string
			Bytes                                         int64
		}
	}
	if err := callJSON(ctx, c, map[string]any{"action": "call", "type": "resource", "uri": "demo://resource/static/document/architecture.md"}, &read); err != nil {
		return err
	}
	if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "Architecture") {
		return fmt.Errorf("architecture.md: %+v", read.Contents)
	}
	if err := callJSON(ctx, c, map[string]any{"action": "call", "type": "resource", "uri": "demo://resource/dynamic/text/2"}, &read); err != nil {
		return err
	}
	if len(read.Contents) != 1 || !strings.HasPrefix(read.Contents[0].Text, "Resource 2:") {
		return fmt.Errorf("dynamic/text/2: %+v", read.Contents)
	}
	if err := callJSON(ctx, c, map[string]any{"action": "call", "type": "resource", "uri": "demo://resource/dynamic/blob/{resourceId}", "arguments": map[string]any{"resourceId": "3"}}, &read); err != nil {
		return err
	}
	blob := read.Contents[0]
	if blob.ResultFile == "" || blob.Blob != "" || blob.Format != "binary" {
		return fmt.Errorf("dynamic/blob/3 was not saved to a file: %+v", blob)
	}
	if data, err := os.ReadFile(blob.ResultFile); err != nil || !strings.HasPrefix(string(data), "Resource 3:") || int64(len(data)) != blob.Bytes {
		return fmt.Errorf("dynamic/blob/3 file %s: %q, %v", blob.ResultFile, data, err)
	}

	var prompt struct {
		Messages []json.RawMessage
	}
	if err := callJSON(ctx, c, map[string]any{"action": "call", "type": "prompt", "prompt": "args-prompt", "arguments": map[string]any{"city": "Reykjavik"}}, &prompt); err != nil {
		return err
	}
	if len(prompt.Messages) == 0 || !strings.Contains(string(prompt.Messages[0]), "Reykjavik") {
		return fmt.Errorf("args-prompt: messages do not name the city: %s", prompt.Messages)
	}

	// A resource_link a tool returned is read next, by its URI alone.
	res, err := callTool(ctx, c, map[string]any{"action": "call", "tool": "get-resource-links", "arguments": map[string]any{"count": 2}})
	if err != nil {
		return err
	}
	var link string
	for _, item := range res.Content {
		if l, ok := item.(mcp.ResourceLink); ok {
			link = l.URI
			break
		}
	}
	if link == "" {
		return fmt.Errorf("get-resource-links returned no resource_link: %+v", res.Content)
	}
	if err := callJSON(ctx, c, map[string]any{"action": "call", "type": "resource", "uri": link}, &read); err != nil {
		return fmt.Errorf("read the link %s: %w", link, err)
	}
	if len(read.Contents) != 1 || read.Contents[0].URI != link || (read.Contents[0].Text == "" && read.Contents[0].ResultFile == "") {
		return fmt.Errorf("read the link %s: %+v", link, read.Contents)
	}
	return nil
}

func callTool(ctx context.Context, c *client.Client, args map[string]any) (*mcp.CallToolResult, error) {
	res, _, err := agent.Call(ctx, c, args)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", args, err)
	}
	return res, nil
}

// callJSON calls proxy-dispatch and decodes its JSON text answer into v.
func callJSON(ctx context.Context, c *client.Client, args map[string]any, v any) error {
	res, err := callTool(ctx, c, args)
	if err != nil {
		return err
	}
	t, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return fmt.Errorf("%v: answer is not text: %+v", args, res.Content)
	}
	if err := json.Unmarshal([]byte(t.Text), v); err != nil {
		return fmt.Errorf("%v: decode %q: %w", args, t.Text, err)
	}
	return nil
}
