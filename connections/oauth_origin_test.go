package connections

import (
	"context"
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
}
