//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestSession_StartRefusedWhileOneRuns: session start with DISPATCH_SESSION
// naming a live session would replace the variable and orphan that
// session; it is refused, saying how to stop it or start another beside it.
func TestSession_StartRefusedWhileOneRuns(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"))
	defer stopSession(t, env, socket)
	out, errOut, code := runIn(t, append(env, "DISPATCH_SESSION="+socket), "", dispatchBin, "--mcp", fixture("--demo"), "session", "start", "--sh")
	if code != exitUsage || strings.Contains(out, "DISPATCH_SESSION=") || !strings.Contains(errOut, "already running") || !strings.Contains(errOut, "session stop") {
		t.Errorf("a second session start: exit %d, stdout %q, stderr %q; want %d naming session stop", code, out, errOut, exitUsage)
	}
}

// TestSession_LogFlagsBelongToTheSession: the session logs a command's
// call at the level it was started with, so --log-level given to the
// command would change nothing; it is refused, naming the session's log
// and --no-session, as other session flags are.
func TestSession_LogFlagsBelongToTheSession(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"))
	defer stopSession(t, env, socket)
	env = append(env, "DISPATCH_SESSION="+socket)
	for _, flag := range [][]string{{"--log-level", "info"}, {"--log-format", "json"}} {
		_, errOut, code := runIn(t, env, "", dispatchBin, append(flag, "list")...)
		if code != exitUsage || !strings.Contains(errOut, "session.log") || !strings.Contains(errOut, "--no-session") {
			t.Errorf("%s in a session: exit %d: %s", flag[0], code, errOut)
		}
	}
}
