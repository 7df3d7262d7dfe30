package connections

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func oauthConn(t *testing.T, cfg ServerConfig, tokens *TokenFile, r *Redactor) *Conn {
	t.Helper()
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Tokens: tokens, Redactor: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return set.Conns()[0]
}

func login(t *testing.T, cfg ServerConfig, tokens *TokenFile) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shown := ""
	err := Login(ctx, cfg, tokens, LoginOptions{Open: followBrowser, ShowURL: func(u string) { shown = u }, Timeout: 15 * time.Second})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if !strings.Contains(shown, "code_challenge=") || !strings.Contains(shown, "resource=") {
		t.Errorf("authorization URL lacks PKCE or resource: %s", shown)
	}
}

// secretsOf returns the client secret and tokens kept for cfg.
func secretsOf(t *testing.T, tokens *TokenFile, cfg ServerConfig) []string {
	t.Helper()
	e, err := tokens.Entry(cfg)
	if err != nil || e == nil || e.Token == nil {
		t.Fatalf("no token kept for %s: %v", cfg.URL, err)
	}
	return []string{e.Token.AccessToken, e.Token.RefreshToken}
}

func TestLogin_CodeFlowThenCall(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), "state", TokenFileName), r)

	before := oauthConn(t, cfg, tokens, r)
	_, err := callEcho(t, before, "hi")
	if !errors.Is(err, ErrNeedsAuth) || !strings.Contains(err.Error(), "dispatch auth login remote") {
		t.Fatalf("call before login: want a needs-auth error naming the login command, got %v", err)
	}
	if st := before.State().Status; st != StatusNeedsAuth {
		t.Errorf("status before login = %s, want %s", st, StatusNeedsAuth)
	}

	login(t, cfg, tokens)
	info, err := os.Stat(tokens.Path())
	if err != nil {
		t.Fatal(err)
	}
	checkPerm(t, "token file", info, 0o600)
	for _, s := range secretsOf(t, tokens, cfg) {
		if got := r.String("token " + s); strings.Contains(got, s) {
			t.Errorf("redactor does not mask a token: %q", got)
		}
	}
	as.mu.Lock()
	resources := append([]string(nil), as.resources...)
	as.mu.Unlock()
	if len(resources) == 0 || resources[0] != cfg.URL {
		t.Errorf("token request resource = %q, want %s", resources, cfg.URL)
	}

	// needs-auth is not a failure to back off from: the same connection
	// works at once after the login.
	got, err := callEcho(t, before, "hi")
	if err != nil || got != "hi" {
		t.Fatalf("call after login: %q, %v", got, err)
	}
}

func TestOAuth_RefreshBeforeExpiry(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	login(t, cfg, tokens)
	first := secretsOf(t, tokens, cfg)
	expireSoon(t, tokens, cfg)

	c := oauthConn(t, cfg, tokens, r)
	if got, err := callEcho(t, c, "x"); err != nil || got != "x" {
		t.Fatalf("call: %q, %v", got, err)
	}
	as.mu.Lock()
	refreshes := as.refreshes
	as.mu.Unlock()
	if refreshes == 0 {
		t.Fatal("a token about to expire was not refreshed")
	}
	second := secretsOf(t, tokens, cfg)
	if second[0] == first[0] || second[1] == first[1] {
		t.Error("the refreshed tokens were not saved")
	}
}

func TestOAuth_RevokedRefreshNeedsAuth(t *testing.T) {
	as := newAuthServer(t)
	as.expiresIn = 5
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	login(t, cfg, tokens)
	secrets := secretsOf(t, tokens, cfg)
	as.revokeAll()

	var logs bytes.Buffer
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Tokens: tokens, Redactor: r,
		Logger: slog.New(NewRedactingHandler(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}), r))})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	c := set.Conns()[0]
	_, err = callEcho(t, c, "x")
	if !errors.Is(err, ErrNeedsAuth) || !strings.Contains(err.Error(), "refused the refresh token") || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("call with a revoked refresh token: want needs-auth quoting the refusal, got %v", err)
	}
	if st := c.State(); st.Status != StatusNeedsAuth {
		t.Errorf("status = %s, want %s", st.Status, StatusNeedsAuth)
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) || strings.Contains(c.State().LastError, s) {
			t.Error("a token appears in the error")
		}
		if strings.Contains(logs.String(), s) {
			t.Error("a token appears in the log")
		}
	}
}

func TestOAuth_TwoServersTwoAuthServers(t *testing.T) {
	asA, asB := newAuthServer(t), newAuthServer(t)
	a := ServerConfig{Name: "a", Transport: TransportHTTP, URL: protectedServer(t, asA)}
	b := ServerConfig{Name: "b", Transport: TransportHTTP, URL: protectedServer(t, asB)}
	r := NewRedactor(a, b)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	login(t, a, tokens)
	login(t, b, tokens)
	for _, cfg := range []ServerConfig{a, b} {
		if got, err := callEcho(t, oauthConn(t, cfg, tokens, r), cfg.Name); err != nil || got != cfg.Name {
			t.Errorf("%s: %q, %v", cfg.Name, got, err)
		}
	}
	if secretsOf(t, tokens, a)[0] == secretsOf(t, tokens, b)[0] {
		t.Error("the two servers share a token")
	}
}

func TestLogin_BrowserNeverComesBack(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	err := Login(context.Background(), cfg, tokens, LoginOptions{Timeout: 200 * time.Millisecond})
	var le *LoginError
	if !errors.As(err, &le) || le.Step != "authorization" {
		t.Fatalf("want an authorization-step error, got %v", err)
	}
	if _, err := callEcho(t, oauthConn(t, cfg, tokens, nil), "x"); !errors.Is(err, ErrNeedsAuth) {
		t.Errorf("after an abandoned login: want needs-auth, got %v", err)
	}
}

// An authorization server answer too large to read (its metadata, or a
// registration) gets one hint, the one about its size: not that one plus
// the step's usual hint, which would send the person to the wrong fix
// (the server's URL, or a clientId for a server that does register).
func TestLogin_TooLargeAnswerGetsOneHint(t *testing.T) {
	for _, tt := range []struct {
		name    string
		set     func(*authServer)
		step    string
		usually string // the step's hint for other failures
	}{
		{"metadata", func(a *authServer) { a.endlessMetadata = true }, "metadata", "could not be discovered"},
		{"registration", func(a *authServer) { a.endlessRegister = true }, "registration", "does not register clients dynamically"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := newAuthServer(t)
			tt.set(as)
			cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
			tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
			err := Login(context.Background(), cfg, tokens, LoginOptions{Timeout: 5 * time.Second})
			var le *LoginError
			if !errors.As(err, &le) || le.Step != tt.step || !strings.Contains(err.Error(), "larger than") {
				t.Fatalf("want a %s-step error naming the bound, got %v", tt.step, err)
			}
			if strings.Contains(err.Error(), tt.usually) {
				t.Errorf("the error adds the %s step's usual hint to the size's: %v", tt.step, err)
			}
			if n := strings.Count(err.Error(), "check "); n != 1 {
				t.Errorf("%d hints (\"check ...\"), want one: %v", n, err)
			}
		})
	}
}

// A hostile authorization server answering registration with no end must
// not be read until the timeout: the answer is cut at maxOAuthResponse.
func TestLogin_EndlessRegistrationAnswerIsCut(t *testing.T) {
	as := newAuthServer(t)
	as.endlessRegister = true
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	err := Login(context.Background(), cfg, tokens, LoginOptions{Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("want an error naming the bound, got %v", err)
	}
	as.mu.Lock()
	sent := as.registerSent
	as.mu.Unlock()
	// Kernel buffers hold some more than was read; far less than the
	// gigabytes read in OAuthHTTPTimeout without the bound.
	if sent > 64*maxOAuthResponse {
		t.Errorf("the client took %d bytes of an endless answer", sent)
	}
}

func TestLoadFile_OAuthKeys(t *testing.T) {
	toml := "[servers.gh]\nurl = \"https://example.com/mcp\"\noauth = { clientId = \"id1\", clientSecret = \"s3cret-value\", scopes = [\"repo\", \"read:org\"], redirectPort = 8765 }\n"
	json := `{"mcpServers": {"gh": {"type": "http", "url": "https://example.com/mcp", "oauth": {"clientId": "id1", "callbackPort": 8765, "scopes": "repo read:org"}}}}`
	for name, path := range map[string]string{"toml": writeConfig(t, "s.toml", toml), "json": writeConfig(t, "s.json", json)} {
		t.Run(name, func(t *testing.T) {
			configs, err := LoadFile(path, envLookup(nil))
			if err != nil {
				t.Fatal(err)
			}
			o := configs[0].OAuth
			if o == nil || o.ClientID != "id1" || o.RedirectPort != 8765 || strings.Join(o.Scopes, " ") != "repo read:org" {
				t.Fatalf("oauth = %+v", o)
			}
		})
	}
	bad := writeConfig(t, "bad.toml", "[servers.gh]\nurl = \"https://example.com/mcp\"\noauth = { redirectPort = 70000 }\n")
	if _, err := LoadFile(bad, envLookup(nil)); err == nil || !strings.Contains(err.Error(), "redirectPort") {
		t.Errorf("redirectPort 70000: want an error naming it, got %v", err)
	}
	if r := NewRedactor(ServerConfig{OAuth: &OAuthSettings{ClientID: "id1", ClientSecret: "s3cret-value"}}); strings.Contains(r.String("x s3cret-value"), "s3cret") {
		t.Error("the client secret is not masked")
	}
}

func TestLogin_ClientCredentials(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "machine", Transport: TransportHTTP, URL: protectedServer(t, as),
		OAuth: &OAuthSettings{ClientID: fixtureClientID, ClientSecret: fixtureClientSecret, GrantType: GrantClientCredentials}}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	// No browser: a machine client never opens one.
	err := Login(context.Background(), cfg, tokens, LoginOptions{Open: func(context.Context, string) error {
		t.Error("client_credentials opened a browser")
		return nil
	}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if got, err := callEcho(t, oauthConn(t, cfg, tokens, r), "m"); err != nil || got != "m" {
		t.Fatalf("call: %q, %v", got, err)
	}

	wrong := cfg
	wrong.OAuth = &OAuthSettings{ClientID: fixtureClientID, ClientSecret: "wrong-secret-value", GrantType: GrantClientCredentials}
	err = Login(context.Background(), wrong, NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil), LoginOptions{})
	var le *LoginError
	if !errors.As(err, &le) || le.Step != "token" || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("wrong secret: want a token-step error without the secret, got %v", err)
	}
}

// ${VAR} in the oauth table is expanded like every other field, the
// expanded secret is masked, and an unset variable stops the load.
func TestLoadFile_OAuthExpandsEnv(t *testing.T) {
	env := map[string]string{"OAUTH_ID": "Iv1.abc", "OAUTH_SECRET": "expanded-s3cret-value", "KEYS": "/keys"}
	toml := "[servers.gh]\nurl = \"https://example.com/mcp\"\noauth = { clientId = \"${OAUTH_ID}\", clientSecret = \"${OAUTH_SECRET}\", privateKeyFile = \"${KEYS}/c.pem\", scopes = [\"${OAUTH_ID}-scope\"] }\n"
	json := `{"mcpServers": {"gh": {"type": "http", "url": "https://example.com/mcp", "oauth": {"clientId": "${env:OAUTH_ID}", "clientSecret": "${OAUTH_SECRET}", "privateKeyFile": "${KEYS}/c.pem", "scopes": "${OAUTH_ID}-scope"}}}}`
	for name, path := range map[string]string{"toml": writeConfig(t, "s.toml", toml), "json": writeConfig(t, "s.json", json)} {
		t.Run(name, func(t *testing.T) {
			configs, err := LoadFile(path, envLookup(env))
			if err != nil {
				t.Fatal(err)
			}
			o := configs[0].OAuth
			if o == nil || o.ClientID != "Iv1.abc" || o.ClientSecret != "expanded-s3cret-value" || o.PrivateKeyFile != "/keys/c.pem" || strings.Join(o.Scopes, " ") != "Iv1.abc-scope" {
				t.Fatalf("oauth = %+v", o)
			}
			if got := NewRedactor(configs...).String("x expanded-s3cret-value"); strings.Contains(got, "s3cret") {
				t.Errorf("the expanded client secret is not masked: %q", got)
			}
		})
	}
	unset := writeConfig(t, "unset.toml", "[servers.gh]\nurl = \"https://example.com/mcp\"\noauth = { clientId = \"id\", clientSecret = \"${NOPE_SECRET}\" }\n")
	if _, err := LoadFile(unset, envLookup(env)); err == nil || !strings.Contains(err.Error(), "NOPE_SECRET is not set") {
		t.Errorf("unset variable in oauth.clientSecret: want a not-set error naming it, got %v", err)
	}
}
