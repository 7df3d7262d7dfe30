//go:build unix

package main

import (
	"context"
	"dispatch/internal/testkit"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func parsePID(s string) (int, error) {
	s = strings.Trim(s, ".,;:()[]{}\"'")
	n, err := strconv.Atoi(s)
	if err != nil || n <= 1 {
		return 0, fmt.Errorf("not a pid: %q", s)
	}
	return n, nil
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	stat := string(data)
	if i := strings.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// rssBytes is the resident memory of process pid, from /proc.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read memory of %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("parse %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// pidsIn returns the numbers in text that follow word (e.g. "grandchild 123").
func pidsIn(text, word string) []int {
	var pids []int
	fields := strings.Fields(text)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == word {
			if pid, err := parsePID(fields[i+1]); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// reaped reports whether pid is gone entirely: not running, and not a
// zombie waiting for its parent either.
func reaped(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return os.IsNotExist(err)
}

// A server that exits while a grandchild holds its stdout open is seen to
// exit at once (dispatch waits on the process, not on stdout's EOF): the
// call fails with its exit status instead of running into the call
// timeout, the server is reaped, and the rest of its process group ends.
func TestFault_ExitWhileGrandchildHoldsStdout(t *testing.T) {
	tc, cmd := startDispatchProc(t, "", nil, "--no-cache", "--timeout", "90s", "--mcp", fixture())
	tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "x"}})
	servers := childPIDs(t, cmd.Process.Pid)
	if len(servers) != 1 {
		t.Fatalf("dispatch has children %v, want the one fixture server", servers)
	}
	began := time.Now()
	r := tc.mustCall(map[string]any{"action": "call", "tool": "exit_leaving_grandchild"})
	took := time.Since(began)
	if !r.IsError || !strings.Contains(r.text(), "exited with status 5") {
		t.Fatalf("call that exits the server (after %s) = %s; want the exit status", took, r.text())
	}
	// A hang detector, far below the 90 s call timeout it used to wait for.
	if took > 30*time.Second {
		t.Errorf("the exit was reported after %s", took)
	}
	grandchildren := pidsIn(r.text(), "grandchild")
	if len(grandchildren) != 1 {
		t.Fatalf("no grandchild pid in the error's stderr tail: %s", r.text())
	}
	t.Cleanup(func() {
		if processAlive(grandchildren[0]) {
			if err := syscall.Kill(grandchildren[0], syscall.SIGKILL); err != nil {
				t.Logf("kill grandchild: %v", err)
			}
		}
	})
	testkit.WaitFor(t, "the server to be reaped", 10*time.Second, func() bool { return reaped(servers[0]) })
	testkit.WaitFor(t, "the grandchild to be stopped", 10*time.Second, func() bool { return !processAlive(grandchildren[0]) })
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	if c := list.Connections[0]; c.Status != "failed" || !strings.Contains(c.Error, "exited with status 5") {
		t.Errorf("list after the server exited = %+v; want failed with its exit status", c)
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "back"}}); r.text() != "back" {
		t.Errorf("echo after the exit = %q", r.text())
	}
}

// A server that floods dispatch with ping requests and never reads its
// stdin makes dispatch stop reading it once MaxServerRequests are
// unanswered, and is stopped as hung once a write to it has made no
// progress for --stdin-timeout; dispatch's memory stays bounded meanwhile
// and the other server is unaffected.
func TestFault_RequestFloodIsBounded(t *testing.T) {
	tc, cmd := startDispatchProc(t, "", nil, "--no-cache", "--stdin-timeout", "2s",
		"--mcp", fixture("--flood-pings"), "--mcp", fixture("--demo"))
	type answer struct {
		r   toolResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "echo", "connection": "c1", "arguments": map[string]any{"message": "x"}}, nil)
		answered <- answer{r, err}
	}()
	// Before the bound, dispatch grew by a goroutine and an answer per
	// ping: past 1 GB within seconds.
	const maxRSS = 256 << 20
	var got answer
	var peak int64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case got = <-answered:
			waiting = false
		case <-tick.C:
			if rss := rssBytes(t, cmd.Process.Pid); rss > peak {
				peak = rss
				if peak > maxRSS {
					t.Fatalf("dispatch uses %d MiB while a server floods it with requests", peak>>20)
				}
			}
		}
	}
	t.Logf("dispatch peak RSS while flooded: %d MiB", peak>>20)
	if got.err != nil {
		t.Fatalf("call: %v\nstderr:\n%s", got.err, tc.Stderr())
	}
	if !got.r.IsError || !strings.Contains(got.r.text(), "stopped reading its stdin") || !strings.Contains(got.r.text(), "--stdin-timeout") {
		t.Errorf("call to the flooding server = %s; want it treated as hung, naming --stdin-timeout", got.r.text())
	}
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	if c := list.Connections[0]; c.Status != "failed" || !strings.Contains(c.Error, "stopped reading its stdin") {
		t.Errorf("list after the flood = %+v; want failed, saying why", c)
	}
	if r := tc.mustOK(map[string]any{"action": "call", "tool": "get_weather", "connection": "c2", "arguments": map[string]any{"city": "Oslo"}}); !strings.Contains(r.text(), "Oslo") {
		t.Errorf("c2 after c1 flooded = %s", r.text())
	}
}
