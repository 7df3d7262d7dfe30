//go:build unix

package connections

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A server dying, its stdin closed before the process has exited, fails
// a write with a broken pipe: the request's error must be how the server
// ended (its exit status), as when the exit is seen first, not the broken
// pipe, which says nothing of why. The order is the test's, not luck's:
// the server closes its stdin, the write meets the broken pipe while the
// server is still alive, and only then does the server exit.
func TestStdio_BrokenPipeReportsTheExitStatus(t *testing.T) {
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	diag := newTailBuffer(0)
	tr := newStdioTransport(stdio("fx", fixtureServer.Path(t), "--close-stdin-exit-when-gone", hold), diag, stdioOptions{})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	waitFor(t, "the server to close its stdin", func() bool { return strings.Contains(diag.Tail(10, 4096), "stdin closed") })

	answer := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(context.Background(), transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("d1"), Method: "ping"})
		answer <- err
	}()
	waitFor(t, "the write to meet the broken pipe", tr.broken.Load)
	if err := os.Remove(hold); err != nil { // now the server exits
		t.Fatal(err)
	}
	select {
	case err := <-answer:
		if err == nil || !strings.Contains(err.Error(), "exited with status 4") || strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("a write to a server dying with its stdin closed: %v; want its exit status, not the broken pipe", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request was never answered")
	}
}
