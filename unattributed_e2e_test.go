//go:build unix

package main

// A stdio server that cannot read a request answers a parse error to id
// null (it could not read the id either): the serial fixture's unreadable
// tool answers so, and never answers the call. Before, dispatch dropped
// that answer without a word, at any --log-level, and the call timed out
// with "no answer". Now the answer is logged at warn naming the server,
// and the call's time-out names it as the likely cause; the call is not
// failed early, since an answer to id null cannot be tied to it.

import (
	"strings"
	"testing"
)

const unattributedNote = `meanwhile the server answered id null with error -32700 "Parse error", as a server answers a message it could not read: most likely it could not read this request`

func TestCLI_ErrorToIDNullIsLoggedAndNamed(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--no-cache", "--timeout", "2s", "--mcp", fixture("--serial"), "call", "unreadable")
	if code != 3 {
		t.Errorf("exit %d, want 3 (the call timed out)", code)
	}
	for _, want := range []string{"level=WARN", "server c1 could not parse a request: Parse error", "code=-32700",
		"c1: call unreadable: timed out: no answer within 2s; " + unattributedNote} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// Over MCP a plain call takes the hot path, whose calls time out on
// their own clock.
func TestServe_ErrorToIDNullIsLoggedAndNamed(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--timeout", "2s", "--mcp", fixture("--serial"))
	tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "started"}}) // the hot path takes only a running server's calls
	tc.mustError(map[string]any{"action": "call", "tool": "unreadable"}, "timed out", unattributedNote)
	if !strings.Contains(tc.Stderr(), "server c1 could not parse a request: Parse error") {
		t.Errorf("dispatch's log lacks the warning:\n%s", tc.Stderr())
	}
	// An answer to id null since the last call is named; one before is not.
	text := tc.mustError(map[string]any{"action": "call", "tool": "block", "arguments": map[string]any{"ms": 4000}}, "timed out")
	if strings.Contains(text, "id null") {
		t.Errorf("a call that timed out after the answer to id null names it: %q", text)
	}
}

// A server answering "error": null with no result is named as at fault,
// in words a user can act on, not encoding/json's "unexpected end of JSON
// input" (found by the CLI review).
func TestCLI_AnswerWithNoResultIsNamed(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--serial"), "call", "no_result")
	if code == 0 {
		t.Errorf("exit 0 for a call the server answered with nothing")
	}
	for _, want := range []string{"c1: call no_result: server sent an invalid result", "holds no result and no error", "the server is at fault"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "unexpected end of JSON input") {
		t.Errorf("stderr still says encoding/json's words:\n%s", stderr)
	}
}
