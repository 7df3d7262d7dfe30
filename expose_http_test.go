package main

import (
	"bytes"
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// freeAddr returns a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// An exposed tool's call over serve --listen runs in the calling session:
// its result file is that session's, readable by it and by no other.
func TestExpose_HTTPSessionsKeepTheirFiles(t *testing.T) {
	addr := freeAddr(t)
	cmd := exec.Command(dispatchBin, "serve", "--listen", addr, "--cache-dir", t.TempDir(), "--threshold", "2KiB",
		"--mcp", fixture(), "--expose", "large")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); err != nil {
			t.Logf("stop dispatch: %v", err)
		}
		_ = cmd.Wait() // killed: its exit status says nothing
	})
	testkit.WaitFor(t, "dispatch listening", 30*time.Second, func() bool {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			_ = conn.Close()
		}
		return err == nil
	})
	url := "http://" + addr + "/mcp"
	a, _ := connectHTTP(t, url, nil)
	b, _ := connectHTTP(t, url, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", name, err, stderr.String())
		}
		return res
	}
	textOf := func(res *mcp.CallToolResult) string {
		if len(res.Content) == 0 {
			return ""
		}
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			return tc.Text
		}
		return ""
	}
	tools, err := a.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "proxy-dispatch large" { // proxy-dispatch first, then the exposed tools in order
		t.Fatalf("tools over HTTP = %v", names)
	}
	var spilled CallSpill
	res := call(a, "large", map[string]any{"bytes": 20000})
	if err := json.Unmarshal([]byte(textOf(res)), &spilled); err != nil || spilled.Spill.ResultFile == "" {
		t.Fatalf("large over HTTP was not saved to a file: %s", textOf(res))
	}
	own := call(a, "proxy-dispatch", map[string]any{"action": "readresult", "resultFile": spilled.Spill.ResultFile, "op": "head", "lines": 2})
	if own.IsError {
		t.Errorf("the session that made the file cannot read it: %s", textOf(own))
	}
	other := call(b, "proxy-dispatch", map[string]any{"action": "readresult", "resultFile": spilled.Spill.ResultFile, "op": "head", "lines": 2})
	if !other.IsError {
		t.Errorf("another session read the file: %s", textOf(other))
	}
}
