//go:build unix

package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Each fault gets a test that checks dispatch's answer AND that the next
// call works.

func TestFault_CrashMidCallRestartsOnNextCall(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--name", "crashy"), "--mcp", fixture("--demo"))
	r := tc.mustCall(map[string]any{"action": "call", "tool": "crash", "connection": "c1"})
	if !r.IsError || !strings.Contains(r.text(), "c1") || !strings.Contains(r.text(), "exited with status 2") {
		t.Fatalf("crash = %s", r.text())
	}
	// The other connection never noticed.
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "get_weather", "arguments": map[string]any{"city": "Rome"}}); !strings.Contains(r.text(), "Rome") {
		t.Errorf("c2 after c1 crashed = %s", r.text())
	}
	// The next call restarts the server.
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": "c1", "arguments": map[string]any{"message": "back"}}); r.text() != "back" {
		t.Errorf("echo after crash = %q", r.text())
	}
	var entry struct {
		Status   string
		Restarts int `json:"restartsLastMinute"`
	}
	raw := tc.mustOK(map[string]any{"action": "list"}).text()
	var full struct{ Connections []json.RawMessage }
	if err := json.Unmarshal([]byte(raw), &full); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(full.Connections[0], &entry); err != nil {
		t.Fatal(err)
	}
	if entry.Status != "ready" || entry.Restarts != 1 {
		t.Errorf("c1 after restart: %s", full.Connections[0])
	}
}

func TestFault_CrashLoopIsBounded(t *testing.T) {
	// Every call crashes the server; restarts are limited per minute and
	// the refusal says so instead of restarting forever.
	tc := startDispatch(t, nil, "--no-cache", "--max-restarts", "2", "--mcp", fixture("--crash-after", "1"))
	var last string
	for i := 0; i < 6; i++ {
		r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "x"}})
		if !r.IsError {
			t.Fatalf("call %d succeeded on a server that crashes on every call", i)
		}
		last = r.text()
	}
	if !strings.Contains(last, "restarted 2 times in the last minute") || !strings.Contains(last, "--max-restarts") ||
		!strings.Contains(last, "next start allowed in") {
		t.Errorf("after a crash loop: %s", last)
	}
	// list says when the limit lets it start again.
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	if c := list.Connections[0]; c.Status != "failed" || c.RetryIn == "" {
		t.Errorf("list while the restart limit holds = %+v, want status failed and retryIn", c)
	}
}

// A stdio server that dies while idle shows as failed, with how it ended,
// before anything calls it; the next call starts it again.
func TestFault_IdleServerDeathShowsInList(t *testing.T) {
	tc, cmd := startDispatchProc(t, "", nil, "--no-cache", "--mcp", fixture())
	echo := map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "x"}}
	tc.mustOK(echo)
	servers := childPIDs(t, cmd.Process.Pid)
	if len(servers) != 1 {
		t.Fatalf("dispatch has children %v, want the one fixture server", servers)
	}
	if err := syscall.Kill(servers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var c struct{ Status, Error string }
	testkit.WaitFor(t, "list to show the server failed", 20*time.Second, func() bool {
		var list listResponse
		decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
		c.Status, c.Error = list.Connections[0].Status, list.Connections[0].Error
		return c.Status != "ready"
	})
	if c.Status != "failed" || !strings.Contains(c.Error, "killed") {
		t.Errorf("after kill -9 of an idle server: status %q, error %q; want failed, killed", c.Status, c.Error)
	}
	if r := tc.mustOK(echo); r.text() != "x" {
		t.Errorf("echo after the server died = %q", r.text())
	}
}

func TestFault_StartupFailuresAreExplained(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		wants []string
	}{
		{"exits at startup", fixture("--fail-at-start"), []string{"exited with status 3", "failed at start"}},
		{"garbage on stdout", fixture("--garbage-at-start"), []string{"no initialize answer within 2s", "not JSON-RPC", "Traceback"}},
		{"command missing", "/no/such/server", []string{`command "server" not found`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := startDispatch(t, nil, "--no-cache", "--connect-timeout", "2s", "--mcp", tt.spec, "--mcp", fixture("--demo"))
			var list listResponse
			decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
			bad, good := list.Connections[0], list.Connections[1]
			if bad.Status != "failed" {
				t.Errorf("c1 status %s, want failed", bad.Status)
			}
			for _, w := range tt.wants {
				if !strings.Contains(bad.Error, w) {
					t.Errorf("c1 error %q lacks %q", bad.Error, w)
				}
			}
			if good.Status != "ready" || good.ToolCount == 0 {
				t.Errorf("c2 = %+v, want ready: one broken server must not stop the others", good)
			}
			if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": "c2", "arguments": map[string]any{"message": "fine"}}); r.text() != "fine" {
				t.Errorf("c2 echo = %q", r.text())
			}
		})
	}
}

// A server that keeps failing to start is retried at once the first time,
// then backs off (1s doubling), and list says when it will be tried again.
func TestFault_StartupFailureBacksOff(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--fail-at-start"))
	echo := map[string]any{"action": "call", "tool": "echo", "connection": "c1", "arguments": map[string]any{"message": "x"}}
	backingOff := ""
	for i := 0; i < 6 && backingOff == ""; i++ {
		r := tc.mustCall(echo)
		if !r.IsError {
			t.Fatalf("call %d succeeded on a server that fails at start", i)
		}
		if strings.Contains(r.text(), "backing off") {
			backingOff = r.text()
		} else if !strings.Contains(r.text(), "exited with status 3") {
			t.Errorf("call %d: %s", i, r.text())
		}
	}
	if !strings.Contains(backingOff, "retrying in") || !strings.Contains(backingOff, "failed at start") {
		t.Fatalf("no back-off after repeated start failures; last answer: %q", backingOff)
	}
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	if c := list.Connections[0]; c.Status != "failed" || c.RetryIn == "" {
		t.Errorf("list while backing off = %+v, want status failed and retryIn", c)
	}
}

func TestFault_HangTimesOutPerServerAndPerRequest(t *testing.T) {
	dir := t.TempDir()
	cancelLog := filepath.Join(dir, "cancel.log")
	cfg := filepath.Join(dir, "servers.toml")
	writeFile(t, cfg, fmt.Sprintf("[servers.slowpoke]\ncommand = %q\nargs = [\"--cancel-log\", %q]\ntimeout = \"300ms\"\n", fixtureBin, cancelLog))
	tc := startDispatch(t, nil, "--no-cache", "--timeout", "1h", "--config", cfg)

	r := tc.mustCall(map[string]any{"action": "call", "tool": "hang", "arguments": map[string]any{"tag": "server-timeout"}})
	if !r.IsError || !strings.Contains(r.text(), "timed out: no answer within 300ms") ||
		!strings.Contains(r.text(), `the "timeout" setting of server c1 (slowpoke) in its config`) {
		t.Errorf("hang under a 300ms server timeout = %s; want the limit and where it is set", r.text())
	}
	r = tc.mustCall(map[string]any{"action": "call", "tool": "hang", "timeout": 0.2})
	if !r.IsError || !strings.Contains(r.text(), "no answer within 200ms") || !strings.Contains(r.text(), `set by "timeout" for this call`) {
		t.Errorf("hang under a request timeout of 0.2 = %s; want the limit and where it is set", r.text())
	}
	// The request's own timeout overrides the server's.
	r = tc.mustCall(map[string]any{"action": "call", "tool": "slow", "timeout": 5, "arguments": map[string]any{"seconds": 0.6, "steps": 1}})
	if r.IsError {
		t.Errorf("slow with timeout 5 (server timeout 300ms): %s", r.text())
	}
	testkit.WaitFor(t, "the hung call to be cancelled downstream", 10*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled hang server-timeout")
	})
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "still here"}}); r.text() != "still here" {
		t.Errorf("echo after timeout = %q", r.text())
	}
}

func TestFault_HugeLinesAndStderrFloods(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--max-message", "8MiB", "--threshold", "1MiB", "--mcp", fixture())

	// Larger than --max-message: refused with the limit named, no hang.
	r := tc.mustCall(map[string]any{"action": "call", "tool": "huge_line", "arguments": map[string]any{"bytes": 20 << 20}})
	if !r.IsError || !strings.Contains(r.text(), "exceeds the limit of 8.0 MiB") || !strings.Contains(r.text(), "--max-message") {
		t.Errorf("20 MiB line with --max-message 8MiB = %.300s", r.text())
	}
	// dispatch's own refusal: the server sent no error (before: "server
	// error -32603: message of …").
	if strings.Contains(r.text(), "server error") || strings.Contains(r.text(), "-32603") {
		t.Errorf("20 MiB line: dispatch's refusal reads as the server's error: %.300s", r.text())
	}
	// Under it: arrives whole (here spilled, since it passes --threshold).
	r = tc.mustOK(map[string]any{"action": "call", "tool": "huge_line", "arguments": map[string]any{"bytes": 6 << 20}})
	var resp struct{ Spill struct{ Bytes int64 } }
	decodeText(t, r, &resp)
	if resp.Spill.Bytes != 6<<20 {
		t.Errorf("6 MiB line spilled as %d bytes", resp.Spill.Bytes)
	}
	// 20 MiB of stderr: drained and bounded, the call answers.
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "stderr_flood", "arguments": map[string]any{"bytes": 20 << 20}}); r.text() != "ok" {
		t.Errorf("stderr_flood = %q", r.text())
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "after"}}); r.text() != "after" {
		t.Errorf("echo after floods = %q", r.text())
	}
}

func TestFault_HTTPServerRestartReconnects(t *testing.T) {
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for _, mode := range []string{"http", "sse"} {
		t.Run(mode, func(t *testing.T) {
			stop := startFixtureAt(t, mode, addr)
			url := "http://" + addr + "/mcp"
			spec := url
			if mode == "sse" {
				spec = "sse+http://" + addr + "/sse"
			}
			tc := startDispatch(t, nil, "--no-cache", "--mcp", spec)
			if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "one"}}); r.text() != "one" {
				t.Fatalf("echo = %q", r.text())
			}
			stop()
			r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "gone"}})
			if !r.IsError || !strings.Contains(r.text(), "c1") {
				t.Errorf("call to a stopped server = %s", r.text())
			}
			stop = startFixtureAt(t, mode, addr)
			// The next use reconnects.
			if r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "two"}}); r.IsError || r.text() != "two" {
				t.Errorf("first call after the server came back: %s", r.text())
			}
			// The server restarts while dispatch is idle: the first call
			// finds the old session unknown and must reconnect, not fail.
			stop()
			stop = startFixtureAt(t, mode, addr)
			defer stop()
			if r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "three"}}); r.IsError || r.text() != "three" {
				t.Errorf("first call after an idle restart: %s", r.text())
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// startFixtureAt runs the fixture over mode at addr and returns a stop
// function (idempotent).
func startFixtureAt(t *testing.T, mode, addr string) func() {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(fixtureBin, "--transport", mode, "--addr", addr, "--ready-file", ready)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		if err := cmd.Process.Kill(); err != nil {
			t.Logf("kill fixture: %v", err)
		}
		if err := cmd.Wait(); err != nil {
			t.Logf("fixture: %v", err)
		}
	}
	t.Cleanup(stop)
	testkit.WaitFor(t, "fixture "+mode+" at "+addr, 20*time.Second, func() bool {
		_, err := os.Stat(ready)
		return err == nil
	})
	return stop
}

// Starting a server is bounded by --connect-timeout, never by the time
// limit of the call that happens to start it: a server that takes 3 s to
// start but whose calls may take 1 s still starts, whether its catalog
// was cached or not.
func TestFault_StartIsNotBoundedByTheCallTimeout(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.toml")
	writeFile(t, cfg, fmt.Sprintf("[servers.slowstart]\ncommand = %q\nargs = [\"--startup-delay\", \"3s\"]\ntimeout = \"1s\"\n", fixtureBin))
	d := func(args ...string) (string, string, int) {
		return runCLI(t, "", append([]string{"--cache-dir", filepath.Join(dir, "cache"), "--config", cfg}, args...)...)
	}
	if out, stderr, code := d("--no-cache", "call", "echo", `{"message":"uncached"}`); code != exitOK || out != "uncached\n" {
		t.Fatalf("call without a cached catalog: exit %d, %q\n%s", code, out, stderr)
	}
	if _, stderr, code := d("list"); code != exitOK {
		t.Fatalf("list: exit %d\n%s", code, stderr)
	}
	// The catalog is cached now, so the call itself starts the server.
	if out, stderr, code := d("call", "echo", `{"message":"cached"}`); code != exitOK || out != "cached\n" {
		t.Fatalf("call with a cached catalog: exit %d, %q\n%s", code, out, stderr)
	}
	// The call's limit still bounds the call, and the error names it.
	_, stderr, code := d("call", "hang", `{}`)
	if code != exitServer || !strings.Contains(stderr, "timed out: no answer within 1s") ||
		!strings.Contains(stderr, `"timeout" setting of server c1 (slowstart)`) {
		t.Errorf("hang: exit %d, stderr %q; want the server's 1s timeout named", code, stderr)
	}
	// A start that outlives --connect-timeout says so.
	_, stderr, code = d("--connect-timeout", "1s", "call", "echo", `{"message":"x"}`)
	if code != exitServer || !strings.Contains(stderr, "no initialize answer within 1s (--connect-timeout)") {
		t.Errorf("start beyond --connect-timeout: exit %d, stderr %q", code, stderr)
	}
}

// An agent that gives up on a call while the call is starting its server
// stops that start, and the server is not counted as failing: no error,
// no back-off, and the next call starts it at once.
func TestServe_AbandonedStartIsNotAFailure(t *testing.T) {
	dir := t.TempDir()
	hold := filepath.Join(dir, "hold")
	cache := filepath.Join(dir, "cache")
	spec := fixture("--hold-while", hold)
	// Cache the catalog, so that only a call starts the server.
	if _, stderr, code := runCLI(t, "", "--cache-dir", cache, "--mcp", spec, "list"); code != exitOK {
		t.Fatalf("list: exit %d\n%s", code, stderr)
	}
	writeFile(t, hold, "")
	tc, cmd := startDispatchProc(t, "", nil, "--cache-dir", cache, "--mcp", spec)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		// Its answer, if any, does not matter: the agent gave up.
		if _, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("held"),
			Method: "tools/call", Params: map[string]any{"name": "proxy-dispatch", "arguments": map[string]any{
				"action": "call", "tool": "echo", "arguments": map[string]any{"message": "never"}}}}); err != nil {
			t.Logf("held call: %v", err)
		}
	}()
	var server int
	testkit.WaitFor(t, "the call to start the server", 30*time.Second, func() bool {
		pids := childPIDs(t, cmd.Process.Pid)
		if len(pids) == 1 {
			server = pids[0]
		}
		return server != 0
	})
	if err := tc.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": "held", "reason": "gave up"}},
	}}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the abandoned start's server to be stopped", 30*time.Second, func() bool { return !processAlive(server) })

	// The start's own goroutine ends a moment after its server: until then
	// list shows the connection still connecting.
	var list listResponse
	testkit.WaitFor(t, "the abandoned start to end", 30*time.Second, func() bool {
		list = listResponse{}
		decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
		return list.Connections[0].Status != "connecting"
	})
	if c := list.Connections[0]; c.Status != "idle" || c.Error != "" || c.RetryIn != "" {
		t.Errorf("after an abandoned start: %+v, want idle with no error", c)
	}
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "now"}}); r.text() != "now" {
		t.Errorf("echo after an abandoned start = %q", r.text())
	}
}

// silentListener accepts TCP connections and never answers: an SSE server
// that hangs before its endpoint event.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return ln.Addr().String()
}

func TestFault_SilentSSEServerIsBoundedByConnectTimeout(t *testing.T) {
	silent := "sse+http://" + silentListener(t) + "/sse"

	// One-shot: the start gives up at --connect-timeout and says so.
	_, stderr, code := runCLI(t, "", "--no-cache", "--connect-timeout", "1s", "--mcp", silent, "list")
	if code != exitServer || !strings.Contains(stderr, "--connect-timeout") {
		t.Errorf("list against a silent SSE server: exit %d, stderr %s", code, stderr)
	}

	// Serving: the silent server does not hold up the others.
	tc := startDispatch(t, nil, "--no-cache", "--connect-timeout", "1s", "--mcp", silent, "--mcp", fixture())
	var list struct {
		Connections []struct{ Alias, Status, Error string }
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	if len(list.Connections) != 2 || list.Connections[0].Status != "failed" || !strings.Contains(list.Connections[0].Error, "--connect-timeout") ||
		list.Connections[1].Status != "ready" {
		t.Errorf("list = %+v", list.Connections)
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "still here"}}); r.text() != "still here" {
		t.Errorf("call on the other server = %q", r.text())
	}
}

// A server that starts an answer and never ends its line: the call fails
// as soon as the answer crosses --max-message, naming the limit (not the
// call's timeout), and once the line has gone on for OverlongLineFactor
// times the limit the server is stopped, so that the next calls reach a
// server started afresh instead of waiting behind the line for ever.
func TestFault_EndlessLineStopsTheServer(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	tc := startDispatch(t, nil, "--no-cache", "--max-message", "1MiB", "--timeout", "20s",
		"--mcp", fixture("--serial", "--serial-log", log))
	r := tc.mustCall(map[string]any{"action": "call", "tool": "endless"})
	if !r.IsError || !strings.Contains(r.text(), "exceeds the limit of 1.0 MiB") || !strings.Contains(r.text(), "--max-message") {
		t.Fatalf("endless line with --max-message 1MiB = %.300s; want the limit named", r.text())
	}
	if strings.Contains(r.text(), "server error") || strings.Contains(r.text(), "-32603") {
		t.Errorf("endless line: dispatch's refusal reads as the server's error: %.300s", r.text())
	}
	// A call sent meanwhile may meet the old server as it is stopped: it
	// then says why; the one after reaches the new server.
	r = tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "after"}})
	if r.IsError {
		if !strings.Contains(r.text(), "without ending it") {
			t.Fatalf("echo after the endless line = %.300s; want the server's fault named", r.text())
		}
		r = tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "after"}})
	}
	if r.text() != "after" {
		t.Fatalf("echo after the endless line = %.300s", r.text())
	}
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if starts := strings.Count(string(seen), "start "); starts != 2 {
		t.Errorf("the server started %d times; want 2 (stopped and started afresh):\n%s", starts, seen)
	}
	if r := tc.mustOK(map[string]any{"action": "list"}); !strings.Contains(r.text(), "endless") && !strings.Contains(r.text(), "c1") {
		t.Errorf("list after the endless line = %.300s", r.text())
	}
}

// A server that announces its tools changed and then reads nothing more:
// a call to it by name is resolved from the tool list already known and
// fails at its own time limit (--timeout), not after --connect-timeout
// spent waiting for a fresh list; and list answers within
// --connect-timeout, saying the server is not answering, with the tools
// last known of it. The ping sent once the call timed out goes unanswered
// too (within --timeout, at least WedgeProbeTimeout): the server is
// stopped as wedged, list says so,
// and the next call starts it afresh.
func TestFault_WedgedServerResolvesFromKnownTools(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--timeout", "3s", "--connect-timeout", "2s", "--mcp", fixture("--serial"))
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "wedge"}); r.text() != "wedged" {
		t.Fatalf("wedge = %q", r.text())
	}
	// Past the debounce of tools/list_changed: the refresh it starts is
	// now stuck waiting on the deaf server, as in the field.
	time.Sleep(500 * time.Millisecond)
	r := tc.mustCall(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "deaf"}})
	if !r.IsError || !strings.Contains(r.text(), "no answer within 3s") || !strings.Contains(r.text(), "--timeout") {
		t.Errorf("echo to the wedged server = %.400s; want the call's own time limit (--timeout 3s)", r.text())
	}
	r = tc.mustOK(map[string]any{"action": "list"})
	var list struct {
		Connections []struct {
			Alias     string   `json:"alias"`
			Error     string   `json:"error"`
			ToolNames []string `json:"toolNames"`
		} `json:"connections"`
	}
	decodeText(t, r, &list)
	if len(list.Connections) != 1 {
		t.Fatalf("list = %.400s", r.text())
	}
	c := list.Connections[0]
	if !strings.Contains(c.Error, "not answering") || !strings.Contains(c.Error, "--connect-timeout") || !slices.Contains(c.ToolNames, "echo") {
		t.Errorf("list of the wedged server = %+v; want the error, that it is not answering, and its last known tools", c)
	}
	// Search finds its tools in the same last known list, beside the error.
	var found struct {
		Hits []struct {
			Name string `json:"name"`
		} `json:"hits"`
		Unreachable []string `json:"unreachable"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "search", "query": "echo"}), &found)
	if len(found.Hits) == 0 || found.Hits[0].Name != "echo" || len(found.Unreachable) != 1 {
		t.Errorf("search of the wedged server's tools = %+v; want echo from its last known list, and the server named unreachable", found)
	}
	testkit.WaitFor(t, "list to show the server stopped as wedged", 30*time.Second, func() bool {
		decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
		c = list.Connections[0]
		return strings.Contains(c.Error, "wedged")
	})
	if !strings.Contains(c.Error, "--timeout") || !strings.Contains(c.Error, "WedgeProbeTimeout") {
		t.Errorf("list of the server stopped as wedged = %+v; want the limit named", c)
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "afresh"}}); r.text() != "afresh" {
		t.Errorf("echo after the wedged server was stopped = %.400s", r.text())
	}
}
