package main

import (
	"context"
	"dispatch/connections"
	"dispatch/internal/testkit"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// readLines is the lines of file so far (none if it does not exist yet).
func readLines(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if text := strings.TrimSpace(string(data)); text != "" {
		return strings.Split(text, "\n")
	}
	return nil
}

// waitLines waits until file has n lines and returns them.
func waitLines(t *testing.T, file string, n int) []string {
	t.Helper()
	testkit.WaitFor(t, "the fixture to record an answer", 20*time.Second, func() bool { return len(readLines(t, file)) >= n })
	return readLines(t, file)
}

// TestServeHTTP_RootsListAfterChangeReachesItsSession: a server that asks
// for the roots on notifications/roots/list_changed, with no call in
// flight, asks the session that sent the change, whichever of two it is;
// during another session's call on that server it is refused as
// ambiguous rather than answered with the other session's roots.
func TestServeHTTP_RootsListAfterChangeReachesItsSession(t *testing.T) {
	record := filepath.Join(t.TempDir(), "roots")
	d := startHTTPDispatch(t, nil, "--mcp", fixture("--client-requests", "--roots-on-change", record))
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	// The servers must be running to hear of the change.
	callText(context.Background(), t, cb, map[string]any{"action": "call", "connection": "c2", "tool": "echo", "arguments": map[string]any{"message": "start"}})
	waitOutAttribution() // bob's call is not what the roots/list answers
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, s := range []struct {
		name string
		c    *client.Client
	}{{"ada", ca}, {"bob", cb}, {"ada", ca}} {
		if err := s.c.RootListChanges(ctx); err != nil {
			t.Fatalf("%s: send roots/list_changed: %v", s.name, err)
		}
		lines := waitLines(t, record, i+1)
		if want := "roots: file:///work/" + s.name; lines[i] != want {
			t.Errorf("after %s's roots change the server got %q, want %q", s.name, lines[i], want)
		}
	}
	// While bob's call runs on that server, the roots/list answering
	// ada's change could be bob's call's: neither is asked.
	bobDone := make(chan struct{})
	go func() {
		defer close(bobDone)
		callText(context.Background(), t, cb, map[string]any{"action": "call", "connection": "c2", "tool": "slow", "arguments": map[string]any{"seconds": 1.5}})
	}()
	time.Sleep(300 * time.Millisecond) // bob's call is under way
	if err := ca.RootListChanges(ctx); err != nil {
		t.Fatalf("ada: send roots/list_changed: %v", err)
	}
	lines := waitLines(t, record, 4)
	if !strings.HasPrefix(lines[3], "error: ") || !strings.Contains(lines[3], "ambiguous") {
		t.Errorf("after ada's roots change during bob's call the server got %q, want an error naming the ambiguity", lines[3])
	}
	<-bobDone
	if got := strings.Join(ada.questions(), ","); got != "roots,roots" {
		t.Errorf("ada was asked %q, want roots twice", got)
	}
	if got := strings.Join(bob.questions(), ","); got != "roots" {
		t.Errorf("bob was asked %q, want roots once", got)
	}
}

// TestServeHTTP_RequestWithNoCallGoesToTheOnlySession: a server's request
// that no call caused (none in flight on that server, nor ended within
// connections.AttributionWindow) goes to the one session open; with two
// open it is refused, saying it cannot tell which to ask. One that comes
// within the window of the call that caused it goes to that call's
// session, whichever others are open.
func TestServeHTTP_RequestWithNoCallGoesToTheOnlySession(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada := &namedAgent{name: "ada"}
	ca := ada.connect(t, d)
	dir := t.TempDir()
	sampleLater := func(c *client.Client, file string, ms time.Duration) []string {
		t.Helper()
		text, isErr := callFixture(t, c, "sample-when-idle", map[string]any{"prompt": "later", "file": file, "ms": ms.Milliseconds()})
		if isErr {
			t.Fatalf("sample-when-idle: %s", text)
		}
		return waitLines(t, file, 1)
	}
	past := connections.AttributionWindow + 300*time.Millisecond
	if got := sampleLater(ca, filepath.Join(dir, "one"), past); got[0] != "answer: ada sampled: later" {
		t.Errorf("with one session open the server's sampling got %q, want ada's answer", got)
	}
	bob := &namedAgent{name: "bob"}
	bob.connect(t, d)
	if got := sampleLater(ca, filepath.Join(dir, "soon"), 100*time.Millisecond); got[0] != "answer: ada sampled: later" {
		t.Errorf("just after ada's call, with two sessions open, the server's sampling got %q, want ada's answer", got)
	}
	got := sampleLater(ca, filepath.Join(dir, "two"), past)
	if !strings.HasPrefix(got[0], "error: ") || !strings.Contains(got[0], "2 sessions open") || !strings.Contains(got[0], "ambiguous") {
		t.Errorf("long after ada's call, with two sessions open, the server's sampling got %q, want an error naming the ambiguity", got)
	}
	if q := bob.questions(); len(q) != 0 {
		t.Errorf("bob was asked %q", q)
	}
	if got := strings.Join(ada.questions(), ","); got != "sampling: later,sampling: later" {
		t.Errorf("ada was asked %q, want sampling twice", got)
	}
}

func setLevel(t *testing.T, c *client.Client, level mcp.LoggingLevel) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: level}}); err != nil {
		t.Fatalf("setLevel %s: %v", level, err)
	}
}

func (a *namedAgent) forgetLogs() {
	a.mu.Lock()
	a.logs = nil
	a.mu.Unlock()
}

// TestServeHTTP_LogsReachTheCallingSession: with two sessions, each
// holding a listening stream and asking for every level, a server's logs
// during (or just after) one session's call reach that session, all of
// them, and the other session none while its own call runs on another
// server or none at all. While the other session's call runs on the same
// server, logs trailing the first session's call could be either's: they
// reach neither (the first session's logs used to reach the other).
func TestServeHTTP_LogsReachTheCallingSession(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--mcp", fixture("--client-requests", "--name", "second"))
	ada, bob := &namedAgent{name: "ada"}, &namedAgent{name: "bob"}
	ca, cb := ada.connect(t, d), bob.connect(t, d)
	for _, conn := range []string{"c1", "c2"} {
		if text, isErr := callText(context.Background(), t, ca, map[string]any{"action": "call", "connection": conn, "tool": "echo", "arguments": map[string]any{"message": "start"}}); isErr {
			t.Fatalf("echo on %s: %s", conn, text)
		}
	}
	setLevel(t, ca, mcp.LoggingLevelDebug)
	setLevel(t, cb, mcp.LoggingLevelDebug)
	hasAll := func(a *namedAgent) bool {
		return allOf(allLevels, func(level string) bool { return slices.Contains(a.fixtureLogs(), level+" message") })
	}
	for _, tt := range []struct {
		name    string
		bobOn   string // where bob's slow call runs; "" none
		tool    string
		args    map[string]any
		adaGets bool
	}{
		{"bob's call on another server", "c2", "log-levels", nil, true},
		{"no other call, logs trail the result", "", "log-after-result", nil, true},
		{"bob's call on the same server, logs trail the result", "c1", "log-after-result", nil, false},
		{"bob's call on the same server, logs long after the result", "c1", "log-after-result", map[string]any{"ms": 600}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			waitOutAttribution()
			ada.forgetLogs()
			bob.forgetLogs()
			bobDone := make(chan struct{})
			if tt.bobOn != "" {
				go func() {
					defer close(bobDone)
					callText(context.Background(), t, cb, map[string]any{"action": "call", "connection": tt.bobOn, "tool": "slow",
						"arguments": map[string]any{"seconds": 2, "steps": 2}})
				}()
				time.Sleep(300 * time.Millisecond) // bob's call is under way
			} else {
				close(bobDone)
			}
			callFixture(t, ca, tt.tool, tt.args)
			if tt.adaGets {
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) && !hasAll(ada) {
					time.Sleep(20 * time.Millisecond)
				}
				if !hasAll(ada) {
					t.Errorf("ada did not get all her logs from one call: %q", ada.fixtureLogs())
				}
			}
			<-bobDone
			time.Sleep(200 * time.Millisecond) // a log bob should not get would be here by now
			if got := bob.fixtureLogs(); len(got) != 0 {
				t.Errorf("bob got ada's logs: %q", got)
			}
			if got := ada.fixtureLogs(); !tt.adaGets && len(got) != 0 {
				t.Errorf("ada got logs that could be bob's call's: %q", got)
			}
		})
	}
}
