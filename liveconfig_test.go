package main

import (
	"context"
	"dispatch/internal/testkit"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func (tc *testClient) countNotifications(method string) int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	n := 0
	for _, note := range tc.notifications {
		if note.Method == method {
			n++
		}
	}
	return n
}

// writeConfigAtomically replaces path as editors save: a new file renamed
// over the old, so the watcher never reads half of one.
func writeConfigAtomically(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	writeFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

const listChanged = "notifications/tools/list_changed"

// A changed config file adds, removes and refilters servers under a
// running agent session, which is told with tools/list_changed; a call in
// flight on a removed server finishes; an invalid config is reported and
// the running one kept.
func TestLiveConfig_Agent(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	server := func(name string, extra ...string) string {
		args := append([]string{"--name", name}, extra...)
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		return fmt.Sprintf("[servers.%s]\ncommand = %q\nargs = [%s]\n", name, fixtureBin, strings.Join(quoted, ", "))
	}
	writeFile(t, config, server("keep")+server("drop"))
	tc := startDispatch(t, nil, "--config", config, "--config-poll", "100ms", "--cache-dir", t.TempDir(), "--log-level", "info")

	list := tc.mustOK(map[string]any{"action": "list"})
	checkText(t, "first list", list.text(), []string{`"c1"`, `"keep"`, `"c2"`, `"drop"`}, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inFlight := make(chan toolResult, 1)
	go func() {
		r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "drop/slow", "arguments": map[string]any{"seconds": 2, "steps": 4}},
			map[string]any{"progressToken": "slow-1"})
		if err != nil {
			r = toolResult{IsError: true}
		}
		inFlight <- r
	}()
	testkit.WaitFor(t, "the slow call to report progress", 30*time.Second, func() bool {
		return tc.countNotifications("notifications/progress") >= 1
	})

	// Remove drop, add fresh, deny echo on keep.
	writeConfigAtomically(t, config, server("keep")+"[servers.keep.tools]\ndeny = [\"echo\"]\n"+server("fresh"))
	testkit.WaitFor(t, "list_changed after the new config", 30*time.Second, func() bool { return tc.countNotifications(listChanged) >= 1 })
	r := <-inFlight
	if r.IsError || !strings.Contains(r.text(), "slept 2s") {
		t.Errorf("the call in flight on the removed server did not finish: %+v %s\nstderr:\n%s", r, r.text(), tc.Stderr())
	}
	list = tc.mustOK(map[string]any{"action": "list"})
	checkText(t, "list after the change", list.text(), []string{`"c1"`, `"keep"`, `"c3"`, `"fresh"`}, []string{`"drop"`, `"c2"`})
	refused := tc.mustCall(map[string]any{"action": "call", "tool": "keep/echo", "arguments": map[string]any{"message": "x"}})
	checkText(t, "keep/echo", refused.text(), []string{`tool "echo" is denied by servers.keep.tools.deny ("echo") in servers.toml`}, nil)
	fresh := tc.mustOK(map[string]any{"action": "call", "tool": "fresh/echo", "arguments": map[string]any{"message": "from fresh"}})
	checkText(t, "fresh/echo", fresh.text(), []string{"from fresh"}, nil)
	checkText(t, "stderr", tc.Stderr(), []string{"config applied", "added c3 (fresh)", "removed c2 (drop)", "refiltered c1 (keep)"}, nil)

	// An invalid config: reported, and the running servers kept.
	notes := tc.countNotifications(listChanged)
	writeConfigAtomically(t, config, server("keep")+"[servers.keep.tools]\ndeny = [\"[broken\"]\n")
	testkit.WaitFor(t, "the invalid config to be reported", 30*time.Second, func() bool {
		return strings.Contains(tc.Stderr(), "config changed but is invalid; keeping the running servers")
	})
	checkText(t, "stderr", tc.Stderr(), []string{"level=WARN", `tools.deny pattern \"[broken\" at line 5`}, nil)
	still := tc.mustOK(map[string]any{"action": "call", "tool": "fresh/echo", "arguments": map[string]any{"message": "still"}})
	checkText(t, "fresh/echo after the invalid config", still.text(), []string{"still"}, nil)
	if n := tc.countNotifications(listChanged); n != notes {
		t.Errorf("an invalid config sent list_changed (%d, was %d)", n, notes)
	}

	// Changing a server's args restarts it under its alias.
	writeConfigAtomically(t, config, server("keep", "--server-version", "2.0.0")+server("fresh"))
	testkit.WaitFor(t, "the restart", 30*time.Second, func() bool { return strings.Contains(tc.Stderr(), "restarted c1 (keep)") })
	echo := tc.mustOK(map[string]any{"action": "call", "tool": "c1/echo", "arguments": map[string]any{"message": "new keep"}})
	checkText(t, "c1/echo after restart", echo.text(), []string{"new keep"}, nil)
}

// One-shot commands never watch: the option is for serving.
func TestLiveConfig_PollMustNotBeNegative(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--mcp", fixture(), "--config-poll=-1s", "list")
	if code != exitUsage || !strings.Contains(stderr, "--config-poll must be a duration") {
		t.Errorf("exit %d, %s", code, stderr)
	}
}

// A resource read in flight on a server a new config removes finishes, as
// a tool call does: removal waits for reads and prompts too.
func TestLiveConfig_ReadInFlightFinishes(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.toml")
	server := func(name string) string {
		return fmt.Sprintf("[servers.%s]\ncommand = %q\nargs = [\"--name\", %q, \"--readables\"]\n", name, fixtureBin, name)
	}
	writeFile(t, config, server("keep")+server("drop"))
	tc := startDispatch(t, nil, "--config", config, "--config-poll", "100ms", "--cache-dir", t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inFlight := make(chan toolResult, 1)
	go func() {
		r, err := tc.call(ctx, map[string]any{"action": "call", "type": "resource", "uri": "fixture://read/wait", "connection": "drop"},
			map[string]any{"progressToken": "wait-1"})
		if err != nil {
			r = toolResult{IsError: true}
		}
		inFlight <- r
	}()
	testkit.WaitFor(t, "the read to report progress", 30*time.Second, func() bool {
		return tc.countNotifications("notifications/progress") >= 1
	})
	writeConfigAtomically(t, config, server("keep"))
	testkit.WaitFor(t, "list_changed after the new config", 30*time.Second, func() bool { return tc.countNotifications(listChanged) >= 1 })
	if r := <-inFlight; r.IsError || !strings.Contains(r.text(), "waited 2s") {
		t.Errorf("the read in flight on the removed server did not finish: %+v %s\nstderr:\n%s", r, r.text(), tc.Stderr())
	}
}
