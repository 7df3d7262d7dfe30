package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// startTaskServer serves, over streamable HTTP, a real mcp-go server with
// one tool that must be called as a task. cancelled receives the topic of
// each task whose work was cancelled.
func startTaskServer(t *testing.T) (ServerConfig, <-chan string) {
	t.Helper()
	cancelled := make(chan string, 10)
	// mcp-go v1.2.1 runs a task's handler under the context of the
	// tools/call that created it, which ends as soon as the task is: the
	// handler works detached and learns of tasks/cancel from the hook.
	cancelRequests := make(chan struct{}, 10)
	hooks := &server.TaskHooks{}
	hooks.AddOnTaskCancelled(func(context.Context, server.TaskMetrics) { cancelRequests <- struct{}{} })
	srv := server.NewMCPServer("tasks", "1", server.WithToolCapabilities(false), server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(hooks))
	tool := mcp.NewTool("research", mcp.WithString("topic"), mcp.WithNumber("seconds"))
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	srv.AddTool(tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-cancelRequests:
			cancelled <- req.GetString("topic", "")
			return mcp.NewToolResultError("cancelled"), nil
		case <-time.After(time.Duration(req.GetFloat("seconds", 0) * float64(time.Second))):
		}
		return mcp.NewToolResultText("report on " + req.GetString("topic", "")), nil
	})
	// abandon gives up at once as cancelled (mcp-go takes a handler's
	// context.Canceled for that), its error as the status message: as
	// long as the server likes.
	abandon := mcp.NewTool("abandon", mcp.WithNumber("bytes"))
	abandon.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	srv.AddTool(abandon, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("%s: %w", strings.Repeat("m", req.GetInt("bytes", 0)), context.Canceled)
	})
	url := serveLoopback(t, server.NewStreamableHTTPServer(srv)) + "/mcp"
	return ServerConfig{Transport: TransportHTTP, URL: url}, cancelled
}

func TestConn_CallAsTask(t *testing.T) {
	cfg, cancelled := startTaskServer(t)
	c := testConn(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var (
		mu       sync.Mutex
		progress []string
	)
	raw, err := c.Call(ctx, CallRequest{Tool: "research", Arguments: json.RawMessage(`{"topic":"go","seconds":1.5}`), AsTask: true,
		Timeout: 20 * time.Second, OnProgress: func(p map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, p["message"].(string))
		}})
	if err != nil || !strings.Contains(string(raw), "report on go") {
		t.Fatalf("research as a task: %s, %v", raw, err)
	}
	mu.Lock()
	if len(progress) == 0 || !strings.Contains(progress[0], "task working") {
		t.Errorf("progress relayed = %q", progress)
	}
	mu.Unlock()

	// Without AsTask the server refuses it: what dispatch fixed.
	if _, err := c.Call(ctx, CallRequest{Tool: "research", Arguments: json.RawMessage(`{"topic":"x"}`), Timeout: 5 * time.Second}); err == nil ||
		!strings.Contains(err.Error(), "requires task augmentation") {
		t.Errorf("plain call of a task-only tool: %v", err)
	}

	// A call that outlives its limit cancels its task on the server.
	_, err = c.Call(ctx, CallRequest{Tool: "research", Arguments: json.RawMessage(`{"topic":"slow","seconds":600}`), AsTask: true, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("task past its limit: %v", err)
	}
	select {
	case topic := <-cancelled:
		if topic != "slow" {
			t.Errorf("cancelled %q", topic)
		}
	case <-time.After(20 * time.Second):
		t.Error("the task was not cancelled on the server")
	}
}

// A task the server cancels with a status message as long as it likes:
// the error carries its start, bounded with a note, not all of it.
func TestConn_CancelledTaskMessageBounded(t *testing.T) {
	cfg, _ := startTaskServer(t)
	c := testConn(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Call(ctx, CallRequest{Tool: "abandon", Arguments: json.RawMessage(`{"bytes":1000000}`), AsTask: true, Timeout: 20 * time.Second})
	if !errors.Is(err, ErrTaskCancelled) {
		t.Fatalf("a task the server cancelled: %v, want ErrTaskCancelled", err)
	}
	if msg := err.Error(); len(msg) > MaxServerErrorMessage+1000 || !strings.Contains(msg, "(MaxServerErrorMessage)") {
		t.Errorf("the error is %d bytes, or lacks the note of its cut: %.200s…%s", len(msg), msg, msg[max(0, len(msg)-300):])
	}
}

// A task whose status message, while it works, is as long as its server
// likes (here 1 MB, changing at each poll): each progress notification
// dispatch makes of it carries its start, masked, then bounded with a
// note, not all of it. Before: 1,000,017 bytes a notification.
func TestConn_TaskStatusProgressBounded(t *testing.T) {
	const key = "sk-0123456789abcdefghij"
	polls := 0
	var mu sync.Mutex
	url := hostileServer(t, `{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}`, func(method string, _ json.RawMessage) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		working := func(n int) map[string]any {
			// The credential straddles the cut.
			message := strings.Repeat("w", MaxServerErrorMessage-5) + key + strings.Repeat(fmt.Sprint(n), 1_000_000)
			return map[string]any{"taskId": "t1", "status": "working", "statusMessage": message, "pollInterval": 1}
		}
		switch method {
		case "tools/call":
			return map[string]any{"task": working(0)}, nil
		case "tasks/get":
			if polls++; polls < 3 {
				return working(polls), nil
			}
			return map[string]any{"taskId": "t1", "status": "completed"}, nil
		case "tasks/result":
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}, nil
		}
		return nil, &RPCError{Code: -32601, Message: "Method not found"}
	})
	c := testConn(t, ServerConfig{Transport: TransportHTTP, URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var progress []string
	raw, err := c.Call(ctx, CallRequest{Tool: "slow", Arguments: json.RawMessage(`{}`), AsTask: true, Timeout: 20 * time.Second,
		OnProgress: func(p map[string]any) { progress = append(progress, p["message"].(string)) }})
	if err != nil || !strings.Contains(string(raw), "done") {
		t.Fatalf("the task's call: %s, %v", raw, err)
	}
	if len(progress) != 3 {
		t.Errorf("%d progress notifications, want 3 (one a status)", len(progress))
	}
	for i, msg := range progress {
		if len(msg) > MaxServerErrorMessage+300 || !strings.Contains(msg, "(MaxServerErrorMessage)") || !strings.HasPrefix(msg, "task working: www") {
			t.Errorf("progress %d is %d bytes, or lacks its start or the note of its cut: %.100s…%s", i, len(msg), msg, msg[max(0, len(msg)-200):])
		}
		if strings.Contains(msg, key[:6]) {
			t.Errorf("progress %d shows the start of a credential: …%s", i, msg[max(0, len(msg)-300):])
		}
	}
}
