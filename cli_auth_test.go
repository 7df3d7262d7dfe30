package main

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// serveUnauthorized serves a real HTTP server that answers every request
// 401 with a bearer challenge, as an OAuth-protected MCP server does to a
// client without a token.
func serveUnauthorized(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/mcp"
}

func TestAuth_NeedsAuthInListAndCalls(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	url := serveUnauthorized(t)

	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", url, "list")
	if code != exitServer || !strings.Contains(stdout, "needs-auth") {
		t.Errorf("list: exit %d, stdout %q; want exit %d and needs-auth", code, stdout, exitServer)
	}
	if !strings.Contains(stderr, "dispatch auth login "+url) {
		t.Errorf("list stderr does not say how to log in: %q", stderr)
	}

	tc := startDispatch(t, nil, "--no-cache", "--mcp", url)
	if r := tc.mustCall(map[string]any{"action": "list"}); !strings.Contains(r.text(), "needs-auth") {
		t.Errorf("serve list: %s", r.text())
	}
	r := tc.mustCall(map[string]any{"action": "call", "tool": "x", "connection": "c1"})
	if !r.IsError || !strings.Contains(r.text(), "dispatch auth login") {
		t.Errorf("serve call: want an error telling to run dispatch auth login, got %s", r.text())
	}

	stdout, _, code = runCLI(t, "", "--mcp", url, "auth", "status")
	if code != 0 || !strings.Contains(stdout, url) {
		t.Errorf("auth status: exit %d, %q", code, stdout)
	}
	_, stderr, code = runCLI(t, "", "--mcp", url, "auth", "login", "nope")
	if code != exitUsage || !strings.Contains(stderr, url) {
		t.Errorf("auth login of an unknown server: exit %d, %q", code, stderr)
	}
}
