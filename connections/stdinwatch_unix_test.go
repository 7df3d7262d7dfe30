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
	// The stand-in is put in place before the transport's goroutines
	// start: swapped in afterwards, it raced with their reads of it.
	var noDeadlines error
	standIn := func(pipe *os.File) (*os.File, error) {
		fd, err := syscall.Dup(int(pipe.Fd())) // Fd makes the pipe blocking
		if err != nil {
			return nil, err
		}
		pipe.Close()
		blocking := os.NewFile(uintptr(fd), "stdin")
		noDeadlines = blocking.SetWriteDeadline(time.Now())
		return blocking, nil
	}
	tr := newStdioTransport(stdio("fx", fixtureServer.Path(t), "--hold-while", hold), newTailBuffer(0),
		stdioOptions{stdinTimeout: time.Second, stdinStandIn: standIn})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	if !errors.Is(noDeadlines, os.ErrNoDeadline) {
		t.Fatalf("the stand-in pipe has write deadlines (%v): the test would not test anything", noDeadlines)
	}

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
