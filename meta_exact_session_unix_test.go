//go:build unix

package main

import "testing"

// In a shell session (unix sockets, so unix only, like the session tests
// whose helpers it uses) meta's numbers reach the server as written too.
func TestCLI_MetaNumbersExactInSession(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--no-cache", "--mcp", fixture("--raw-meta"))
	defer stopSession(t, env, socket)
	stdout, stderr, code := runIn(t, env, "", dispatchBin, "--session", socket, "call", "echo_raw_meta", "--meta", exactMeta)
	if code != exitOK {
		t.Fatalf("in a session: exit %d: %s", code, stderr)
	}
	checkExactMeta(t, "in a session", stdout)
}
