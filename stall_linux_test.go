package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that stops reading its stdin, its pipe full of calls, must not
// stop dispatch from reading the agent's: a call to another server and a
// cancellation sent after those calls are answered while it is stuck,
// before any of its calls, and once it reads again its calls all succeed
// (none waited out --stdin-timeout). The order of the answers is the
// test, not their timing: the stuck server reads again only when the
// test removes its hold file, after both answers came.
func TestServe_StalledServerStallsNoOtherCall(t *testing.T) {
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// c1 the plain fixture, c2 the one that stalls. A generous
	// --stdin-timeout: c2 must not be given up on while the test runs.
	a := startRawAgent(t, "--stdin-timeout", "20s", "--threshold", "0", "--mcp", fixture("--stall-stdin-while", hold))
	call := func(id any, conn, tool, message string) string {
		args := map[string]any{"action": "call", "connection": conn, "tool": tool}
		if message != "" {
			args["arguments"] = map[string]any{"message": message}
		}
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": "proxy-dispatch", "arguments": args}})
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	// Both servers running with their catalogs at hand: calls take the
	// hot path, where the agent's reader writes them to the server.
	for i, warm := range []string{call(1, "c1", "echo", "warm"), call(2, "c2", "echo", "warm"), call(3, "c2", "stall_stdin", "")} {
		a.send(warm)
		if ans := a.next(); ans.Error != nil || strings.Contains(string(ans.Result), `"isError":true`) {
			t.Fatalf("warm-up %d: %s %+v\nstderr:\n%s", i, ans.Result, ans.Error, a.stderr)
		}
	}
	// Far more than the pipe holds (64 KiB on Linux), so that writing to
	// c2 would wait; then a call to c1 and the cancellation of the last
	// call to c2, which cannot have been written yet.
	const floods, floodBytes = 16, 16 << 10
	var lines strings.Builder
	message := strings.Repeat("m", floodBytes)
	for i := range floods {
		lines.WriteString(call(100+i, "c2", "echo", message) + "\n")
	}
	lines.WriteString(call(200, "c1", "echo", "other") + "\n")
	lastFlood := 100 + floods - 1
	fmt.Fprintf(&lines, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", lastFlood)
	written := make(chan error, 1)
	// On a goroutine: if dispatch stopped reading, this write waits too.
	go func() {
		_, err := io.WriteString(a.stdin, lines.String())
		written <- err
	}()

	var otherAnswered, cancelAnswered bool
	for !otherAnswered || !cancelAnswered {
		ans := a.next()
		switch id := string(ans.ID); id {
		case "200":
			otherAnswered = true
			if !strings.Contains(string(ans.Result), "other") {
				t.Errorf("the call to c1: %s %+v", ans.Result, ans.Error)
			}
		case fmt.Sprint(lastFlood):
			cancelAnswered = true
		default:
			t.Fatalf("call %s to the stuck server was answered (%s %+v) before the call to the other server and the cancellation: dispatch's reading waited on the stuck server\nstderr:\n%s",
				id, preview(ans.Result), ans.Error, a.stderr)
		}
	}
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	for range floods - 1 {
		ans := a.next()
		if ans.Error != nil || !strings.Contains(string(ans.Result), message) || strings.Contains(string(ans.Result), `"isError":true`) {
			t.Errorf("call %s to the server once it read again: %s %+v", ans.ID, preview(ans.Result), ans.Error)
		}
	}
	if err := <-written; err != nil {
		t.Fatalf("write to dispatch: %v", err)
	}
}

func preview(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
