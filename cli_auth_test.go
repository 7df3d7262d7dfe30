package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
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
	isolateState(t)
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

	// A URL with a query (which may hold a key) is named without it in
	// the hint, and auth login takes that name.
	withKey := url + "?api_key=abcdef1234567890XYZ"
	_, stderr, _ = runCLI(t, "", "--no-cache", "--mcp", withKey, "list")
	if !strings.Contains(stderr, "dispatch auth login "+url+"`") {
		t.Errorf("list stderr does not name the URL without its query: %q", stderr)
	}
	_, stderr, _ = runCLI(t, "", "--mcp", withKey, "auth", "login", url)
	if strings.Contains(stderr, "no http(s) server") {
		t.Errorf("auth login does not take the name the hint gave: %q", stderr)
	}
}

// echoingAuthServer serves, on one loopback origin, an MCP endpoint that
// answers 401, its protected-resource metadata, authorization server
// metadata and a token endpoint that refuses every grant quoting the
// client secret it got, raw and form-encoded, as careless servers do.
func echoingAuthServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource": %q, "authorization_servers": [%q]}`, base+"/mcp", base)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer": %q, "authorization_endpoint": %q, "token_endpoint": %q, "code_challenge_methods_supported": ["S256"]}`, base, base+"/authorize", base+"/token")
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_, encoded, _ := r.BasicAuth() // form-encoded before Basic (RFC 6749 §2.3.1)
		raw, err := url.QueryUnescape(encoded)
		if err != nil {
			raw = encoded
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		desc := "client secret " + raw + " is wrong (sent as " + encoded + ")"
		if err := json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": desc}); err != nil {
			t.Errorf("token answer: %v", err)
		}
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return base + "/mcp"
}

// An authorization server that quotes the client secret in its refusal
// does not get it printed by dispatch auth login, raw or form-encoded.
func TestAuth_LoginErrorMasksSecrets(t *testing.T) {
	isolateState(t)
	const secret = "echoed+s3cret/value 42"
	t.Setenv("ECHOED_OAUTH_SECRET", secret)
	config := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, config, fmt.Sprintf("[servers.echo]\nurl = %q\noauth = { clientId = \"machine\", clientSecret = \"${ECHOED_OAUTH_SECRET}\", grantType = \"client_credentials\" }\n", echoingAuthServer(t)))

	_, stderr, code := runCLI(t, "", "--config", config, "auth", "login", "echo")
	if code == 0 {
		t.Fatalf("login with a refused secret succeeded: %q", stderr)
	}
	if !strings.Contains(stderr, "invalid_client") {
		t.Errorf("stderr does not say why the login failed: %q", stderr)
	}
	for _, form := range []string{secret, url.QueryEscape(secret), "s3cret"} {
		if strings.Contains(stderr, form) {
			t.Errorf("stderr shows the client secret (%q): %q", form, stderr)
		}
	}
}

// The auth commands concern servers reached by URL: with none configured
// they say so and how to give one (the config file dispatch runs with, or
// --mcp with a URL), never to add a command, which has no OAuth; and
// auth status does not print an empty table as if all were well.
func TestAuth_NoHTTPServerSaysHowToConfigureOne(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"no servers, status", []string{"auth", "status"}},
		{"no servers, login", []string{"auth", "login", "remote"}},
		{"a command only, status", []string{"--mcp", fixture(), "auth", "status"}},
		{"a command only, logout", []string{"--mcp", fixture(), "auth", "logout", "c1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d (stdout %q), want %d", code, stdout, exitUsage)
			}
			for _, want := range []string{"no http(s) server is configured", "--config FILE", "--mcp https://"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			if strings.Contains(stderr, "COMMAND") {
				t.Errorf("stderr %q suggests a command server, which has no OAuth", stderr)
			}
		})
	}
}

// A server given credentials in a header (not Authorization) that
// answers 401 refused those credentials: the error says so and names the
// header, and does not send the user to OAuth, which would not help.
func TestAuth_RefusedHeaderCredentialsAreNotOAuth(t *testing.T) {
	isolateState(t)
	url := startFixtureHTTP(t, "http", "--require-header", "X-Api-Key=rightkey12345")
	cfg := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, cfg, "[servers.web]\nurl = "+strconvQuote(url)+"\nheaders = { X-Api-Key = \"wrongkey12345\" }\n")
	_, stderr, code := runCLI(t, "", "--no-cache", "--config", cfg, "call", "web/echo", "message=hi")
	if code == 0 || strings.Contains(stderr, "auth login") || !strings.Contains(stderr, "refused the credentials in the configured header X-Api-Key") {
		t.Errorf("call with a wrong X-Api-Key: exit %d, stderr %q; want the header named as refused, no OAuth hint", code, stderr)
	}
	if strings.Contains(stderr, "wrongkey12345") {
		t.Errorf("the header's value leaked: %q", stderr)
	}
}
