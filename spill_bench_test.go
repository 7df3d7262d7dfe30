package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkServe_CallLarge measures a large result through dispatch over
// MCP: returned inline, or spilled to a file, against the baseline of the
// same call made to the fixture server directly. It reports throughput of
// the fixture's payload and the peak RSS (VmHWM) of the process the client
// talked to (dispatch, or the fixture for the baseline):
//
//	go test -run '^$' -bench BenchmarkServe_CallLarge -benchtime 10x .
func BenchmarkServe_CallLarge(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		for _, mode := range []string{"direct", "inline", "spill"} {
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, mode), func(b *testing.B) {
				largeArgs := map[string]any{"bytes": size}
				var (
					tr  *transport.Stdio
					pid int
					req map[string]any
				)
				switch mode {
				case "direct":
					tr, pid = startBenchServer(b, fixtureBin)
					req = map[string]any{"name": "large", "arguments": largeArgs}
				case "inline":
					tr, pid = startBenchServer(b, dispatchBin, "--no-cache", "--mcp", fixture())
					req = proxyCall(map[string]any{"action": "call", "tool": "large", "arguments": largeArgs, "resultSizeThreshold": 0})
				case "spill":
					tr, pid = startBenchServer(b, dispatchBin, "--no-cache", "--spill-dir", b.TempDir(), "--spill-max", "64GiB", "--mcp", fixture())
					req = proxyCall(map[string]any{"action": "call", "tool": "large", "arguments": largeArgs, "resultToFile": true})
				}
				b.SetBytes(int64(size))
				b.ResetTimer()
				for i := range b.N {
					text := benchCall(b, tr, i, req)
					if mode == "spill" && !strings.Contains(text, `"resultFile"`) {
						b.Fatalf("not spilled: %.200s", text)
					}
					if mode == "inline" && len(text) < size {
						b.Fatalf("inline result has %d bytes", len(text))
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(peakRSS(b, pid))/(1<<20), "peak-RSS-MiB")
			})
		}
	}
}

func proxyCall(args map[string]any) map[string]any {
	return map[string]any{"name": "proxy-dispatch", "arguments": args}
}

// startBenchServer starts a stdio MCP server, initializes it and returns
// its transport and pid.
func startBenchServer(b *testing.B, bin string, args ...string) (*transport.Stdio, int) {
	b.Helper()
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(bin, nil, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err := tr.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Logf("close dispatch: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	return tr, cmd.Process.Pid
}

// benchCall sends tools/call with params and returns the first text item.
func benchCall(b *testing.B, tr *transport.Stdio, i int, params map[string]any) string {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("b%d", i)), Method: "tools/call",
		Params: params,
	})
	if err != nil || resp.Error != nil {
		b.Fatalf("call: %v %v", err, resp)
	}
	var r toolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		b.Fatal(err)
	}
	if r.IsError {
		b.Fatalf("isError: %s", r.text())
	}
	return r.text()
}

// peakRSS returns the peak resident set size of process pid in bytes.
func peakRSS(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc status")
	return 0
}
