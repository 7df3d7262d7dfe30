package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// sendHang starts a hang call with request id id on conn, in the
// background; its answer (when cancelled) is sent to done.
func sendHang(tc *testClient, ctx context.Context, id, conn, tag string, done chan<- toolResult) {
	go func() {
		resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(id),
			Method:  "tools/call",
			Params: map[string]any{"name": "proxy-dispatch", "arguments": map[string]any{
				"action": "call", "tool": "hang", "connection": conn, "arguments": map[string]any{"tag": tag}}},
		})
		var r toolResult
		if err == nil && resp.Error == nil {
			if err := json.Unmarshal(resp.Result, &r); err != nil {
				r = toolResult{}
			}
		}
		if done != nil {
			done <- r
		}
	}()
}

func cancelRequest(t *testing.T, tc *testClient, id string) {
	t.Helper()
	if err := tc.tr.SendNotification(context.Background(), mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/cancelled", Params: mcp.NotificationParams{
			AdditionalFields: map[string]any{"requestId": id, "reason": "test gave up"}}},
	}); err != nil {
		t.Fatal(err)
	}
}

// Many slow calls in flight never stop dispatch from reading stdin: a list
// sent after 120 calls that never end is answered, and a cancellation of
// the last of them reaches the server. (mcp-go's stdio server queued calls
// past 100 behind the slow ones, and ran them on its read loop once its
// queue was full.)
func TestServe_ManySlowCallsDoNotBlockReading(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	// Two servers, so that each fixture serves fewer calls than its own
	// worker pool: what is measured is dispatch.
	tc := startDispatch(t, nil, "--no-cache",
		"--mcp", fixture("--cancel-log", cancelLog, "--name", "a"),
		"--mcp", fixture("--cancel-log", cancelLog, "--name", "b"))
	for _, conn := range []string{"c1", "c2"} {
		tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": conn, "arguments": map[string]any{"message": "up"}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Slow calls that report progress every second, which shows each one
	// reached its server. The last, the target, is cancelled below.
	const slow = 120
	targetDone := make(chan error, 1)
	for i := range slow + 1 {
		id, conn, tag := fmt.Sprintf("slow-%d", i), fmt.Sprintf("c%d", 1+i%2), fmt.Sprintf("s%d", i)
		if i == slow {
			id, tag = "target", "target"
		}
		go func() {
			_, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{
				JSONRPC: mcp.JSONRPC_VERSION,
				ID:      mcp.NewRequestId(id),
				Method:  "tools/call",
				Params: map[string]any{"name": "proxy-dispatch", "_meta": map[string]any{"progressToken": "p-" + tag},
					"arguments": map[string]any{"action": "call", "tool": "slow", "connection": conn,
						"arguments": map[string]any{"seconds": 600, "steps": 600, "tag": tag}}},
			})
			if id == "target" {
				targetDone <- err
			}
		}()
	}
	// Hang detectors, generous: each comes at once when dispatch goes on
	// reading, and never when it stops.
	testkit.WaitFor(t, "every slow call to reach its server", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		seen := map[any]bool{}
		for _, n := range tc.notifications {
			seen[n.Params.AdditionalFields["progressToken"]] = true
		}
		return len(seen) >= slow+1
	})
	listCtx, cancelList := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancelList()
	r, err := tc.call(listCtx, map[string]any{"action": "list"}, nil)
	if err != nil || r.IsError {
		t.Fatalf("list with %d slow calls in flight: %v %s\nstderr:\n%s", slow+1, err, r.text(), tc.Stderr())
	}
	cancelRequest(t, tc, "target")
	testkit.WaitFor(t, "the cancellation to reach the server", 20*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled slow target")
	})
	select {
	case err := <-targetDone:
		if err != nil {
			t.Errorf("the cancelled call: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("the cancelled call was never answered")
	}
	if strings.Contains(tc.Stderr(), "queue full") {
		t.Errorf("a library line reached stderr:\n%s", tc.Stderr())
	}
}

// Past --max-in-flight a request is answered at once with an error saying
// dispatch is busy and what to do, and reading goes on: a cancellation
// frees a place.
func TestServe_MaxInFlightAnswersBusy(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--max-in-flight", "3", "--mcp", fixture())
	tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "up"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The hang calls are sent from goroutines, so a list may reach dispatch
	// between them and take the place one of them wanted: that one is
	// answered busy and sent again, until all three hold a place.
	answers := make([]chan toolResult, 3)
	send := func(i int) {
		answers[i] = make(chan toolResult, 1)
		sendHang(tc, ctx, fmt.Sprintf("hang-%d", i), "c1", fmt.Sprintf("h%d", i), answers[i])
	}
	for i := range answers {
		send(i)
	}
	var busy toolResult
	testkit.WaitFor(t, "a busy answer", 20*time.Second, func() bool {
		for i, ch := range answers {
			select {
			case r := <-ch:
				if !strings.Contains(r.text(), "busy") {
					t.Fatalf("hang-%d answered before it was cancelled: %s", i, r.text())
				}
				send(i)
			default:
			}
		}
		r := tc.mustCall(map[string]any{"action": "list"})
		busy = r
		return r.IsError
	})
	for _, want := range []string{"busy", "3 requests", "--max-in-flight", "cancel"} {
		if !strings.Contains(busy.text(), want) {
			t.Errorf("busy answer %q lacks %q", busy.text(), want)
		}
	}
	cancelRequest(t, tc, "hang-0")
	select {
	case <-answers[0]:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call was never answered")
	}
	testkit.WaitFor(t, "a place to free up", 20*time.Second, func() bool {
		return !tc.mustCall(map[string]any{"action": "list"}).IsError
	})
}
