//go:build unix

package main

import (
	"strings"
	"testing"
)

// An in-session call is a short process: what it allocates (package
// initialisation, the command-line grammar, one request and answer) stays
// under the garbage collector's first goal (4 MB), so no collection runs.
// Before, package initialisation alone allocated 2.2 MB and every call
// ran one.
func TestStartup_InSessionCallCollectsNoGarbage(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture())
	defer stopSession(t, env, socket)
	out, errOut, code := runIn(t, append(env, "GODEBUG=gctrace=1"), "", dispatchBin,
		"--session", socket, "call", "echo", "message=hello")
	if code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("call in session: exit %d: %s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "gc 1 @") {
		t.Errorf("a garbage collection ran during an in-session call:\n%s", errOut)
	}
}
