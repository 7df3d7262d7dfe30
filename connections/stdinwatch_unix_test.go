//go:build unix

package connections

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// On Windows a server's stdin is a pipe without write deadlines. A server
// that stops reading must still be stopped within --stdin-timeout: here
// the same pipe is made one (blocking, so outside the poller, where
// SetWriteDeadline fails as it does on Windows), the server never reads
// (--hold-while), and a message far larger than the pipe holds is
// written. Without a timer standing in for the deadline the write waits
// until the test gives up.
func TestStdio_StdinTimeoutWithoutWriteDeadlines(t *testing.T) {
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(hold) })
	tr := newStdioTransport(stdio("fx", fixtureServer.Path(t), "--hold-while", hold), newTailBuffer(0), stdioOptions{stdinTimeout: time.Second})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })

	fd, err := syscall.Dup(int(tr.stdin.Fd())) // Fd makes the pipe blocking
	if err != nil {
		t.Fatal(err)
	}
	blocking := os.NewFile(uintptr(fd), "stdin")
	if err := blocking.SetWriteDeadline(time.Now()); !errors.Is(err, os.ErrNoDeadline) {
		t.Fatalf("the stand-in pipe has write deadlines (%v): the test would not test anything", err)
	}
	tr.stdin.Close()
	tr.stdin = blocking

	written := make(chan error, 1)
	go func() {
		written <- tr.SendNotification(context.Background(), mcp.JSONRPCNotification{
			JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: "notifications/message",
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"data": strings.Repeat("m", 4<<20)}}},
		})
	}()
	select {
	case err := <-written:
		if err == nil || !strings.Contains(err.Error(), "--stdin-timeout") {
			t.Errorf("a write to a server that never reads: %v; want it stopped as hung (--stdin-timeout)", err)
		}
	case <-time.After(30 * time.Second):
		os.Remove(hold) // let the write end
		t.Fatal("a write to a server that never reads, on a pipe without deadlines, still waits 30 s past --stdin-timeout (1 s)")
	}
}
