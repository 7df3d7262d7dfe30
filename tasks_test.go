package main

import (
	"context"
	"dispatch/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A tool the server runs only as a task (execution.taskSupport
// "required") is shown as such by list and info, and a call waits for the
// task, relaying its status as progress, and returns its result; a call
// that runs out of time cancels the task on the server.
func TestServe_TaskOnlyTool(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--task-tools", "--cancel-log", cancelLog))

	var list struct {
		Tools []struct {
			Name       string `json:"name"`
			RunsAsTask bool   `json:"runsAsTask"`
		} `json:"tools"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "connection": "c1", "limit": 100}), &list)
	asTask := map[string]bool{}
	for _, tool := range list.Tools {
		asTask[tool.Name] = tool.RunsAsTask
	}
	if !asTask["research"] || asTask["echo"] {
		t.Errorf("runsAsTask in list: research %v, echo %v", asTask["research"], asTask["echo"])
	}
	var info struct {
		RunsAsTask bool `json:"runsAsTask"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "tool": "research"}), &info)
	if !info.RunsAsTask {
		t.Error("info does not say research runs as a task")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "research", "arguments": map[string]any{"topic": "tides", "seconds": 1.5}},
		map[string]any{"progressToken": "research-progress"})
	if err != nil || r.IsError || r.text() != "report on tides" {
		t.Fatalf("research: %v %s", err, r.text())
	}
	tc.mu.Lock()
	relayed := 0
	for _, n := range tc.notifications {
		if n.Params.AdditionalFields["progressToken"] == "research-progress" &&
			strings.Contains(n.Params.AdditionalFields["message"].(string), "task working") {
			relayed++
		}
	}
	tc.mu.Unlock()
	if relayed == 0 {
		t.Error("no task status relayed as progress")
	}

	r = tc.mustCall(map[string]any{"action": "call", "tool": "research", "timeout": 1, "arguments": map[string]any{"topic": "x", "seconds": 600, "tag": "too-long"}})
	if !r.IsError || !strings.Contains(r.text(), "timed out") {
		t.Errorf("research past its limit: %s", r.text())
	}
	testkit.WaitFor(t, "the task to be cancelled on the server", 20*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled research too-long")
	})
}
