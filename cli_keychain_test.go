package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dispatch/connections"
	"dispatch/keychain"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// serveBearer serves a real MCP server (one tool, echo) over streamable
// HTTP that takes only requests carrying token as their bearer token.
func serveBearer(t *testing.T, token string) string {
	t.Helper()
	mcpSrv := server.NewMCPServer("bearer", "1", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("message")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	streamable := server.NewStreamableHTTPServer(mcpSrv)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		streamable.ServeHTTP(w, r)
	})}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/mcp"
}

// TestAuthKeychain_StatusCallLogout: a token kept in the OS keychain (under
// dispatch's own service name, as the CLI keeps it) is what the CLI sends
// to the server, auth status says the keychain holds it and never prints
// it, and auth logout deletes the keychain item. It writes the real
// keychain, so it runs only under scripts/keychain-test.sh.
func TestAuthKeychain_StatusCallLogout(t *testing.T) {
	if os.Getenv("DISPATCH_KEYCHAIN_TEST") != "1" {
		t.Skip("writes dispatch's items in the OS keychain: only under scripts/keychain-test.sh (DISPATCH_KEYCHAIN_TEST=1)")
	}
	state := isolateState(t)
	const access = "keychain-access-token-4f8e2b9d71c3"
	url := serveBearer(t, access)
	ctx := context.Background()
	// As dispatch writes them: the secrets in the keychain item named by
	// the server's URL, the rest in the token file.
	kc := keychain.New(connections.KeychainService, 0)
	if err := kc.Set(ctx, url, `{"accessToken":"`+access+`"}`); err != nil {
		t.Fatalf("DISPATCH_KEYCHAIN_TEST=1 but the OS keychain takes no item: %v", err)
	}
	t.Cleanup(func() { kc.Delete(ctx, url) }) //nolint:errcheck // best effort: gone already when the test passed
	entry := map[string]any{"url": url, "token": transport.Token{TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour)},
		"secretsIn": "keychain", "secretsVersion": "v1"}
	raw, err := json.Marshal(map[string]any{"version": 1, "entries": map[string]any{url + "\n": entry}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(state, "dispatch"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "dispatch", connections.TokenFileName), raw, 0o600); err != nil {
		t.Fatal(err)
	}

	// The file store is the default: it still reads what the keychain holds.
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", url, "call", "echo", `{"message":"via keychain"}`)
	if code != exitOK || stdout != "via keychain\n" {
		t.Fatalf("call with the keychain's token: exit %d, %q, %q", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "", "--mcp", url, "--token-store", "keychain", "auth", "status")
	if code != exitOK || !strings.Contains(stdout, " keychain ") || !strings.Contains(stdout, "logged in") || !strings.Contains(stdout, "go to the keychain store") {
		t.Errorf("auth status: exit %d, %q, %q; want the keychain as the entry's and the chosen store", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, access) {
		t.Error("auth status printed the token")
	}
	stdout, stderr, code = runCLI(t, "", "--mcp", url, "auth", "logout", url)
	if code != exitOK || !strings.Contains(stdout, "forgot") {
		t.Fatalf("auth logout: exit %d, %q, %q", code, stdout, stderr)
	}
	if _, err := kc.Get(ctx, url); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("the keychain item after logout: %v; want none", err)
	}
}
