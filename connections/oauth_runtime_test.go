package connections

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A token the server refuses before its expiry is renewed once with the
// refresh token, and the request sent again.
func TestOAuth_RefreshOn401BeforeExpiry(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	login(t, cfg, tokens)
	first := secretsOf(t, tokens, cfg)
	as.revokeAccess() // an hour left, and refused all the same

	if got, err := callEcho(t, oauthConn(t, cfg, tokens, r), "x"); err != nil || got != "x" {
		t.Fatalf("call with a token refused early: %q, %v", got, err)
	}
	as.mu.Lock()
	refreshes := as.refreshes
	as.mu.Unlock()
	if refreshes != 1 {
		t.Errorf("refreshes = %d, want 1", refreshes)
	}
	if second := secretsOf(t, tokens, cfg); second[0] == first[0] {
		t.Error("the renewed token was not saved")
	}
}

// An expired client_credentials token is fetched again, no login needed;
// so is one the server refuses early.
func TestOAuth_ClientCredentialsRefetched(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "machine", Transport: TransportHTTP, URL: protectedServer(t, as),
		OAuth: &OAuthSettings{ClientID: fixtureClientID, ClientSecret: fixtureClientSecret, GrantType: GrantClientCredentials}}
	r := NewRedactor(cfg)
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
	if err := Login(context.Background(), cfg, tokens, LoginOptions{}); err != nil {
		t.Fatalf("login: %v", err)
	}
	expireSoon(t, tokens, cfg)
	if got, err := callEcho(t, oauthConn(t, cfg, tokens, r), "m"); err != nil || got != "m" {
		t.Fatalf("call with an expiring token: %q, %v", got, err)
	}
	as.mu.Lock()
	grants := as.ccGrants
	as.mu.Unlock()
	if grants < 2 {
		t.Fatalf("client_credentials grants = %d: the expiring token was not fetched again", grants)
	}

	as.revokeAccess()
	if got, err := callEcho(t, oauthConn(t, cfg, tokens, r), "n"); err != nil || got != "n" {
		t.Fatalf("call with a token refused early: %q, %v", got, err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.ccGrants <= grants {
		t.Error("a refused client_credentials token was not fetched again")
	}
}

// client_credentials with private_key_jwt: the assertion is signed with
// the configured key for the authorization server.
func TestLogin_ClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "client.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	as := newAuthServer(t)
	as.jwtKey = &key.PublicKey
	cfg := ServerConfig{Name: "machine", Transport: TransportHTTP, URL: protectedServer(t, as),
		OAuth: &OAuthSettings{ClientID: fixtureClientID, PrivateKeyFile: keyFile, GrantType: GrantClientCredentials}}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	if err := Login(context.Background(), cfg, tokens, LoginOptions{}); err != nil {
		t.Fatalf("login: %v", err)
	}
	if got, err := callEcho(t, oauthConn(t, cfg, tokens, nil), "j"); err != nil || got != "j" {
		t.Fatalf("call: %q, %v", got, err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.assertions != 1 {
		t.Errorf("verified assertions = %d, want 1", as.assertions)
	}

	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as.jwtKey = &other.PublicKey // the server knows another key now
	as.mu.Unlock()
	err = Login(context.Background(), cfg, NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil), LoginOptions{})
	as.mu.Lock()
	var le *LoginError
	if !errors.As(err, &le) || le.Step != "token" {
		t.Errorf("a key the server does not know: want a token-step error, got %v", err)
	}
}

func stepUpServer(t *testing.T) (*authServer, ServerConfig, *TokenFile) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServerWith(t, as, protectedOptions{callScope: "write"})}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), NewRedactor(cfg))
	login(t, cfg, tokens)
	return as, cfg, tokens
}

// A call that needs a wider scope (403 insufficient_scope) asks for it in
// the browser, when there is one, and is sent again.
func TestOAuth_StepUpInBrowser(t *testing.T) {
	as, cfg, tokens := stepUpServer(t)
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Tokens: tokens,
		Browser: &LoginOptions{Open: followBrowser, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if got, err := callEcho(t, set.Conns()[0], "w"); err != nil || got != "w" {
		t.Fatalf("call needing a wider scope: %q, %v", got, err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if n := len(as.authScope); n != 2 || as.authScope[1] != "echo write" {
		t.Errorf("authorization requests asked for %q, want a second one for \"echo write\"", as.authScope)
	}
}

// Without a person to ask, the call fails telling to log in, and that
// login asks for the wider scope.
func TestOAuth_StepUpWithoutBrowserNeedsLogin(t *testing.T) {
	as, cfg, tokens := stepUpServer(t)
	_, err := callEcho(t, oauthConn(t, cfg, tokens, nil), "w")
	if !errors.Is(err, ErrNeedsAuth) || !strings.Contains(err.Error(), "dispatch auth login remote") || !strings.Contains(err.Error(), "echo write") {
		t.Fatalf("want a needs-auth error naming the login and the scope, got %v", err)
	}
	login(t, cfg, tokens)
	as.mu.Lock()
	last := as.authScope[len(as.authScope)-1]
	as.mu.Unlock()
	if last != "echo write" {
		t.Fatalf("the login after the step-up asked for %q, want \"echo write\"", last)
	}
	if got, err := callEcho(t, oauthConn(t, cfg, tokens, nil), "w"); err != nil || got != "w" {
		t.Fatalf("call after the wider login: %q, %v", got, err)
	}
}

// urlAgent is an agent session that declares URL elicitation: it accepts
// (and opens the page, following its redirects) or declines.
type urlAgent struct {
	decline bool
	mu      sync.Mutex
	asked   []mcp.ElicitationParams
	notes   []string
}

func (a *urlAgent) ClientCapabilities() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}}
}

func (a *urlAgent) RequestClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p mcp.ElicitationParams
	if method != string(mcp.MethodElicitationCreate) || json.Unmarshal(params, &p) != nil {
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: method}
	}
	a.mu.Lock()
	a.asked = append(a.asked, p)
	a.mu.Unlock()
	if a.decline {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	if err := followBrowser(ctx, p.URL); err != nil {
		return nil, err
	}
	return json.RawMessage(`{"action":"accept"}`), nil
}

func (a *urlAgent) NotifyClient(method string, params any) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notes = append(a.notes, method)
	return true
}

// An agent that declares URL elicitation is sent to the authorization
// page of a server that needs it, and the call goes through.
func TestOAuth_ElicitationURLMode(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as), OAuth: &OAuthSettings{}}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), NewRedactor(cfg))
	c := oauthConn(t, cfg, tokens, nil)
	agent := &urlAgent{}
	ctx := WithUpstream(context.Background(), agent)
	raw, err := c.Call(ctx, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"e"}`), Timeout: 10 * time.Second})
	if err != nil || !strings.Contains(string(raw), `"e"`) {
		t.Fatalf("call through an agent taking URL elicitation: %s, %v", raw, err)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.asked) != 1 || agent.asked[0].Mode != mcp.ElicitationModeURL || !strings.HasPrefix(agent.asked[0].URL, as.URL+"/authorize?") || agent.asked[0].ElicitationID == "" {
		t.Errorf("elicitations = %+v, want one in URL mode for the authorization page", agent.asked)
	}
	if len(agent.notes) != 1 || agent.notes[0] != string(mcp.MethodNotificationElicitationComplete) {
		t.Errorf("notifications = %q, want the elicitation's completion", agent.notes)
	}
}

// A declined elicitation, or an agent without URL elicitation, leaves
// the error telling to run dispatch auth login.
func TestOAuth_ElicitationDeclinedNeedsLogin(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as), OAuth: &OAuthSettings{}}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	c := oauthConn(t, cfg, tokens, nil)
	for name, ctx := range map[string]context.Context{
		"declined":        WithUpstream(context.Background(), &urlAgent{decline: true}),
		"no elicitation":  WithUpstream(context.Background(), noElicitation{}),
		"from the shell:": context.Background(),
	} {
		_, err := c.Call(ctx, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{}`), Timeout: 10 * time.Second})
		if !errors.Is(err, ErrNeedsAuth) || !strings.Contains(err.Error(), "dispatch auth login remote") {
			t.Errorf("%s: want a needs-auth error naming the login, got %v", name, err)
		}
	}
	if st := c.State().Status; st != StatusNeedsAuth {
		t.Errorf("status = %s, want %s", st, StatusNeedsAuth)
	}
}

type noElicitation struct{}

func (noElicitation) ClientCapabilities() mcp.ClientCapabilities { return mcp.ClientCapabilities{} }
func (noElicitation) RequestClient(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("not asked")
}
func (noElicitation) NotifyClient(string, any) bool { return true }

// Discovery finds metadata where mcp-go's does not: protected resource
// metadata at the root well-known URL, and a 2025-03-26 server's
// authorization server metadata at its origin.
func TestDiscover_RootMetadataAndLegacyOrigin(t *testing.T) {
	as := newAuthServer(t)
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": base, "authorization_servers": []string{as.URL}, "scopes_supported": []string{"a"}})
	})
	base = serveLoopback(t, mux)
	target, err := discover(context.Background(), newOAuthHTTPClient(), base+"/mcp", nil)
	if err != nil || target.Server.TokenEndpoint != as.URL+"/token" || target.Resource != base || strings.Join(target.ScopesSupported, " ") != "a" {
		t.Fatalf("root metadata: %+v, %v", target, err)
	}

	// A 2025-03-26 server: no protected resource metadata, its own
	// origin is its authorization server.
	legacy, err := discover(context.Background(), newOAuthHTTPClient(), as.URL+"/mcp", nil)
	if err != nil || legacy.Server.TokenEndpoint != as.URL+"/token" || legacy.Resource != as.URL+"/mcp" {
		t.Fatalf("legacy: %+v, %v", legacy, err)
	}

	// Metadata naming another resource is refused.
	mux.HandleFunc("/.well-known/oauth-protected-resource/other", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": "https://victim.example/mcp", "authorization_servers": []string{as.URL}})
	})
	if _, err := discover(context.Background(), newOAuthHTTPClient(), base+"/other", nil); err == nil || !strings.Contains(err.Error(), "victim.example") {
		t.Errorf("metadata for another resource: want a refusal naming it, got %v", err)
	}
}

// A server asking for a wider scope again and again is stopped at
// MaxScopeStepUps, with an error saying so: the server answered, so it
// is neither "cannot reach" nor a lost connection.
func TestOAuth_StepUpLimitIsNotALostServer(t *testing.T) {
	as := newAuthServer(t)
	var growing atomic.Int32
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServerWith(t, as, protectedOptions{callScope: "write", growingScope: &growing})}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), NewRedactor(cfg))
	login(t, cfg, tokens)
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Tokens: tokens,
		Browser: &LoginOptions{Open: followBrowser, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	_, err = callEcho(t, set.Conns()[0], "w")
	if err == nil || !strings.Contains(err.Error(), "MaxScopeStepUps") {
		t.Fatalf("want the step-up limit named, got %v", err)
	}
	if errors.Is(err, ErrServerGone) || strings.Contains(err.Error(), "cannot reach") || strings.Contains(err.Error(), "connection lost") {
		t.Errorf("a server that answered is called unreachable or lost: %v", err)
	}
}
