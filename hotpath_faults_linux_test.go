package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dispatch/internal/testkit"
)

// hotCallLine is a plain tools/call of proxy-dispatch, the hot path's kind.
func hotCallLine(t *testing.T, id any, conn, tool string, arguments map[string]any) string {
	t.Helper()
	args := map[string]any{"action": "call", "connection": conn, "tool": tool, "arguments": arguments}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "proxy-dispatch", "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

// warmHot makes a call to each conn and checks it succeeded, so that
// their catalogs are at hand and the calls after take the hot path.
func warmHot(t *testing.T, a *rawAgent, conns ...string) {
	t.Helper()
	for i, conn := range conns {
		a.send(hotCallLine(t, fmt.Sprintf("warm-%d", i), conn, "echo", map[string]any{"message": "warm"}))
		if ans := a.next(); ans.Error != nil || !strings.Contains(string(ans.Result), "warm") || strings.Contains(string(ans.Result), `"isError":true`) {
			t.Fatalf("warm-up of %s: %s %+v\nstderr:\n%s", conn, ans.Result, ans.Error, a.stderr)
		}
	}
}

// An agent that stops reading its stdout must not get a healthy
// single-threaded server stopped as hung: dispatch's reader of the
// server's stdout waits on the agent, so the server waits on its stdout
// and stops reading its stdin, which is dispatch's doing, not the
// server's. Once the agent reads again every call succeeds.
//
// The agent stops reading for ten times --stdin-timeout: the pause only
// gives the watchdog its chance; the test asserts on the answers.
func TestServe_HotPathAgentNotReadingStopsNoServer(t *testing.T) {
	const stdinTimeout = 300 * time.Millisecond
	a := startRawAgent(t, "--stdin-timeout", stdinTimeout.String(), "--threshold", "0", "--max-in-flight", "2048",
		"--mcp", fixture("--serial"))
	warmHot(t, a, "c2")
	// Far more, both ways, than the pipes between the agent, dispatch and
	// the server hold (the agent's reader takes 16 answers, then stops):
	// writes to the server's stdin wait once it stops reading.
	const calls, answerBytes, padBytes = 200, 32 << 10, 2 << 10
	pad := strings.Repeat("p", padBytes)
	var lines strings.Builder
	for i := range calls {
		lines.WriteString(hotCallLine(t, i, "c2", "big", map[string]any{"bytes": answerBytes, "message": pad}) + "\n")
	}
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(a.stdin, lines.String())
		written <- err
	}()
	time.Sleep(10 * stdinTimeout)
	failed := 0
	for range calls {
		ans := a.next()
		if ans.Error != nil || strings.Contains(string(ans.Result), `"isError":true`) || !strings.Contains(string(ans.Result), strings.Repeat("y", answerBytes)) {
			if failed++; failed <= 3 {
				t.Errorf("call %s: %s %+v", ans.ID, preview(ans.Result), ans.Error)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d calls failed while the agent was not reading\nstderr:\n%s", failed, calls, a.stderr)
	}
	if err := <-written; err != nil {
		t.Fatalf("write to dispatch: %v", err)
	}
}

// A call followed, in the same write, by part of the next message is sent
// and answered without waiting for the rest of that message: the reader
// holds calls back (to batch them) only while it has whole lines at hand.
// --timeout is short so that a call held back fails instead of hanging.
func TestServe_HotPathCallBeforePartOfALineIsSent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	a := startRawAgent(t, "--timeout", "2s", "--mcp", fixture("--serial", "--serial-log", log))
	warmHot(t, a, "c2")
	second := hotCallLine(t, "B", "c2", "echo", map[string]any{"message": "second"})
	cut := len(second) / 2
	a.write(hotCallLine(t, "A", "c2", "echo", map[string]any{"message": "first"}) + "\n" + second[:cut])
	if ans := a.next(); string(ans.ID) != `"A"` || ans.Error != nil || !strings.Contains(string(ans.Result), "first") || strings.Contains(string(ans.Result), `"isError":true`) {
		t.Fatalf("the call before part of a line: %s %s %+v; want it answered while the line is incomplete", ans.ID, ans.Result, ans.Error)
	}
	a.send(second[cut:])
	if ans := a.next(); string(ans.ID) != `"B"` || ans.Error != nil || !strings.Contains(string(ans.Result), "second") {
		t.Fatalf("the call completed later: %s %s %+v", ans.ID, ans.Result, ans.Error)
	}
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if calls := strings.Count(string(seen), "call "); calls != 3 { // the warm-up, A, B
		t.Errorf("the server got %d calls; want 3:\n%s", calls, seen)
	}
}

// Calls to one server written together reach it in the order the agent
// wrote them, the last one too (it is not read ahead, so it is not held
// back with the others, but it must not overtake them).
func TestServe_HotPathBurstKeepsItsOrder(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	a := startRawAgent(t, "--mcp", fixture("--serial", "--serial-log", log))
	warmHot(t, a, "c2")
	const rounds, burst = 5, 5
	for round := range rounds {
		if err := os.WriteFile(log, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		var lines strings.Builder
		var want []string
		for k := range burst {
			message := fmt.Sprintf("r%d-%d", round, k)
			want = append(want, message)
			lines.WriteString(hotCallLine(t, message, "c2", "echo", map[string]any{"message": message}) + "\n")
		}
		a.write(lines.String())
		for range burst {
			if ans := a.next(); ans.Error != nil || strings.Contains(string(ans.Result), `"isError":true`) {
				t.Fatalf("call %s: %s %+v", ans.ID, ans.Result, ans.Error)
			}
		}
		seen, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(seen)), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "call" {
				got = append(got, f[2])
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("round %d: the server got the calls in the order %v; want %v", round, got, want)
		}
	}
}

// A server that closed its stdin but lives on: the calls written to it
// after fail to be written (a broken pipe), none of them reached it, so
// they go again to the server started afresh, and the old one is stopped.
func TestServe_HotPathBrokenStdinRestartsTheServer(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	a := startRawAgent(t, "--mcp", fixture("--serial", "--serial-log", log))
	warmHot(t, a, "c2")
	a.send(hotCallLine(t, "close", "c2", "close_stdin", map[string]any{}))
	if ans := a.next(); !strings.Contains(string(ans.Result), "stdin closed") {
		t.Fatalf("close_stdin: %s %+v", ans.Result, ans.Error)
	}
	const burst = 3
	var lines strings.Builder
	for k := range burst {
		lines.WriteString(hotCallLine(t, k, "c2", "echo", map[string]any{"message": fmt.Sprintf("after-%d", k)}) + "\n")
	}
	a.write(lines.String())
	for range burst {
		if ans := a.next(); ans.Error != nil || strings.Contains(string(ans.Result), `"isError":true`) || !strings.Contains(string(ans.Result), "after-") {
			t.Errorf("call %s after the server closed its stdin: %s %+v", ans.ID, preview(ans.Result), ans.Error)
		}
	}
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, line := range strings.Split(string(seen), "\n") {
		var pid int
		if _, err := fmt.Sscanf(line, "start %d", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the server started %d times; want twice (once afresh):\n%s", len(pids), seen)
	}
	testkit.WaitFor(t, "the server that closed its stdin to be stopped", 10*time.Second, func() bool {
		return syscall.Kill(pids[0], 0) != nil
	})
}

// A call still waiting on a server that dispatch replaced fails when the
// old server is stopped; that failure must not end the new server too.
func TestServe_HotPathOldServersCallSparesTheNewServer(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	a := startRawAgent(t, "--mcp", fixture("--serial", "--serial-log", log))
	warmHot(t, a, "c2")
	// Closes the server's stdin and never answers.
	a.send(hotCallLine(t, "silent", "c2", "close_stdin", map[string]any{"message": "silent"}))
	testkit.WaitFor(t, "the server to close its stdin", 30*time.Second, func() bool {
		seen, err := os.ReadFile(log)
		return err == nil && strings.Contains(string(seen), "stdin closed")
	})
	// Fails to be written, so the server is started afresh.
	a.send(hotCallLine(t, "after", "c2", "echo", map[string]any{"message": "after"}))
	for answered := map[string]bool{}; len(answered) < 2; {
		ans := a.next()
		answered[string(ans.ID)] = true
		if string(ans.ID) == `"after"` && !strings.Contains(string(ans.Result), `"after"`) {
			t.Fatalf("the call after the server closed its stdin: %s %+v", preview(ans.Result), ans.Error)
		}
	}
	// The old server is stopped, and its call has failed: the new one
	// serves the next call without being started again.
	a.send(hotCallLine(t, "next", "c2", "echo", map[string]any{"message": "next"}))
	if ans := a.next(); !strings.Contains(string(ans.Result), `"next"`) || strings.Contains(string(ans.Result), `"isError":true`) {
		t.Fatalf("the next call: %s %+v", preview(ans.Result), ans.Error)
	}
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if starts := strings.Count(string(seen), "start "); starts != 2 {
		t.Errorf("the server was started %d times; want twice (once afresh), the new one not ended by the old one's call:\n%s\nstderr:\n%s", starts, seen, a.stderr)
	}
}
