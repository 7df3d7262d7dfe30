package main

import (
	"dispatch/internal/testkit"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startConformanceServer builds and runs mcp-go's own conformance example
// server (streamable HTTP, from the module cache) and returns its MCP URL.
func startConformanceServer(t *testing.T) string {
	t.Helper()
	bin, err := testkit.Build(t.TempDir(), "conformance", "github.com/mark3labs/mcp-go/examples/conformance")
	if err != nil {
		t.Fatalf("build mcp-go's conformance server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "CONFORMANCE_ADDR="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start conformance server: %v", err)
	}
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); err != nil {
			t.Logf("stop conformance server: %v", err)
		}
		_ = cmd.Wait() // killed: its exit status says nothing
	})
	testkit.WaitFor(t, "the conformance server", 30*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return "http://" + addr + "/mcp"
}

// TestRelay_ConformanceServer runs mcp-go's conformance server's sampling,
// elicitation and logging tools through dispatch over streamable HTTP.
func TestRelay_ConformanceServer(t *testing.T) {
	url := startConformanceServer(t)
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--mcp", url)

	if r := callFixtureTool(tc, "test_sampling", map[string]any{"prompt": "conform"}); r.text() != "LLM response: sampled: conform" {
		t.Errorf("test_sampling = %q (isError %v)", r.text(), r.IsError)
	}
	r := callFixtureTool(tc, "test_elicitation", map[string]any{"message": "Who are you?"})
	checkText(t, "test_elicitation", r.text(), []string{"action=accept", "name:Ada"}, nil)
	if r := callFixtureTool(tc, "test_tool_with_logging", nil); r.IsError {
		t.Fatalf("test_tool_with_logging: %s", r.text())
	}
	// mcp-go's streamable HTTP server can drop a notification sent just
	// before its handler returns (see testdata/fixture/README.md), as this
	// tool's last one: the first two must arrive, in order, named.
	testkit.WaitFor(t, "the conformance server's logs", 30*time.Second, func() bool {
		return len(tc.logsFrom("c1/conformance-test-server")) >= 2
	})
	got := strings.Join(tc.logsFrom("c1/conformance-test-server"), "|")
	if !strings.HasPrefix("Tool execution started|Tool processing data|Tool execution completed", got) || !strings.HasPrefix(got, "Tool execution started|Tool processing data") {
		t.Errorf("logs = %q", got)
	}
}
