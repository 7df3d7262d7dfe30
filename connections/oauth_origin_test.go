package connections

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server that redirects its requests to another origin does not get the
// token sent there: the redirect is refused, and says so.
func TestOAuth_TokenNeverFollowsRedirectToAnotherOrigin(t *testing.T) {
	as := newAuthServer(t)
	thief := newCapture(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServerWith(t, as, protectedOptions{redirectTo: thief.URL + "/stolen"})}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	login(t, cfg, tokens)
	access := secretsOf(t, tokens, cfg)[0]

	_, err := callEcho(t, oauthConn(t, cfg, tokens, r), "x")
	if err == nil {
		t.Fatal("a call redirected to another origin succeeded")
	}
	if leaked := thief.leaked(access); len(leaked) > 0 {
		t.Fatalf("the access token reached another origin after a redirect")
	}
	if !strings.Contains(err.Error(), "another origin") {
		t.Errorf("error does not say the redirect went to another origin: %v", err)
	} else {
		t.Logf("error: %v", err)
	}
	checkCrossOriginWording(t, err, "put its new URL in the config")
}

// checkCrossOriginWording: a refused cross-origin redirect says what
// happened (the server was reached; it redirected, and dispatch did not
// follow with credentials) and one thing to do, the fix.
func checkCrossOriginWording(t *testing.T, err error, fix string) {
	t.Helper()
	msg := err.Error()
	for _, misleading := range []string{"cannot reach", "check oauth.clientId"} {
		if strings.Contains(msg, misleading) {
			t.Errorf("error says %q, which does not apply to a redirect: %v", misleading, err)
		}
	}
	for _, want := range []string{"redirected", "does not follow", fix} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
}

// A token endpoint that redirects to another origin does not get the grant,
// the client secret or the refresh token re-sent there.
func TestOAuth_TokenRequestNeverFollowsRedirectToAnotherOrigin(t *testing.T) {
	as := newAuthServer(t)
	thief := newCapture(t)
	cfg := ServerConfig{Name: "machine", Transport: TransportHTTP, URL: protectedServer(t, as),
		OAuth: &OAuthSettings{ClientID: fixtureClientID, ClientSecret: fixtureClientSecret, GrantType: GrantClientCredentials}}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	as.tokenRedirect = thief.URL + "/token"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := Login(ctx, cfg, tokens, LoginOptions{})
	if err == nil {
		t.Fatal("a login whose token endpoint redirects to another origin succeeded")
	}
	basic := "Basic "
	if leaked := thief.leaked(fixtureClientSecret, url.QueryEscape(fixtureClientSecret), basic); len(leaked) > 0 {
		t.Fatalf("the client's credentials reached another origin: %q", leaked)
	}
	if !strings.Contains(err.Error(), "another origin") {
		t.Errorf("error does not say the redirect went to another origin: %v", err)
	} else {
		t.Logf("error: %v", err)
	}
	checkCrossOriginWording(t, err, "authorization server's operator")
}

// A refusal that quotes a credential the request carried does not keep it,
// not even the part of it before the description is cut short.
func TestRequestToken_RefusalDoesNotQuoteCredentials(t *testing.T) {
	const secret = "cut-short-s3cret-value-0123456789"
	const refresh = "rt-0123456789abcdef0123456789"
	endpoint := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("token request: %v", err)
		}
		pad := strings.Repeat("x", 190) // the secret straddles the 200-character cut
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant",
			"error_description": pad + " " + r.PostForm.Get("client_secret") + " " + r.PostForm.Get("refresh_token") + " " + url.QueryEscape(secret)})
	}))
	meta := &AuthServerMetadata{Issuer: endpoint, TokenEndpoint: endpoint + "/token"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := requestToken(ctx, newOAuthHTTPClient(), meta, clientCreds{ID: "c", Secret: secret, Method: authSecretPost},
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	if err == nil {
		t.Fatal("a refused grant succeeded")
	}
	for _, part := range []string{secret[:8], refresh[:8]} {
		if strings.Contains(err.Error(), part) {
			t.Errorf("the refusal quotes a credential (%q): %v", part, err)
		}
	}
}

// An authorization server whose metadata does not list
// code_challenge_methods_supported is refused (2025-11-25: PKCE support
// must be verified), before any client is registered or page opened.
func TestLogin_RefusesMetadataWithoutPKCEMethods(t *testing.T) {
	as := newAuthServer(t)
	as.omitPKCEMethods = true
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opened := false
	err := Login(ctx, cfg, tokens, LoginOptions{Open: func(context.Context, string) error { opened = true; return nil }, ShowURL: func(string) {}, Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "code_challenge_methods_supported") {
		t.Fatalf("login against metadata without PKCE methods: want an error naming code_challenge_methods_supported, got %v", err)
	}
	as.mu.Lock()
	registered := len(as.clients)
	as.mu.Unlock()
	if opened || registered > 0 {
		t.Errorf("the login went on (page opened %v, clients registered %d)", opened, registered)
	}
}
