package connections

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// authServer is a real OAuth 2.1 authorization server on loopback:
// metadata, dynamic registration, authorization with PKCE, tokens and
// refresh, with revocation for tests.
type authServer struct {
	t   *testing.T
	URL string

	mu        sync.Mutex
	expiresIn int                  // seconds, for new access tokens
	clients   map[string]bool      // registered client ids
	codes     map[string]authGrant // code -> grant
	access    map[string]bool      // valid access tokens
	refresh   map[string]bool      // valid refresh tokens
	refreshes int                  // refresh grants served
	resources []string             // resource parameters seen at the token endpoint
	scopes    map[string]string    // access or refresh token -> its scope
	authScope []string             // scope of each authorization request
	ccGrants  int                  // client_credentials grants served
	// jwtKey, when set, is the public key of the pre-registered client's
	// private_key_jwt assertions; assertions counts those verified.
	jwtKey     *ecdsa.PublicKey
	assertions int
	// endlessRegister makes /register answer with a JSON string that never
	// ends; registerSent counts the bytes it got out.
	endlessRegister bool
	registerSent    int64
	// endlessMetadata makes the authorization server metadata a JSON
	// string that never ends (its bytes count in registerSent too).
	endlessMetadata bool
	// omitPKCEMethods leaves code_challenge_methods_supported out of the
	// metadata: PKCE support cannot be verified.
	omitPKCEMethods bool
	// tokenRedirect, when set, answers every token request with a 307 to it.
	tokenRedirect string
	// tokenEndpoint, when set, is the token endpoint the metadata names.
	tokenEndpoint string
}

// The client pre-registered at every authServer.
const fixtureClientID, fixtureClientSecret = "machine-client", "machine-secret-0123456789"

type authGrant struct{ challenge, redirect, clientID, scope string }

func randomToken(t *testing.T, prefix string) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, expiresIn: 3600, clients: map[string]bool{}, codes: map[string]authGrant{}, access: map[string]bool{}, refresh: map[string]bool{}, scopes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{
			"issuer":                                a.URL,
			"authorization_endpoint":                a.URL + "/authorize",
			"token_endpoint":                        a.URL + "/token",
			"registration_endpoint":                 a.URL + "/register",
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
			"response_types_supported":              []string{"code"},
		}
		a.mu.Lock()
		if a.omitPKCEMethods {
			delete(meta, "code_challenge_methods_supported")
		}
		if a.tokenEndpoint != "" {
			meta["token_endpoint"] = a.tokenEndpoint
		}
		endless := a.endlessMetadata
		a.mu.Unlock()
		if endless {
			a.sendEndless(w, r, http.StatusOK)
			return
		}
		writeJSON(w, http.StatusOK, meta)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		endless := a.endlessRegister
		a.mu.Unlock()
		if endless {
			a.sendEndless(w, r, http.StatusCreated)
			return
		}
		id := randomToken(t, "client-")
		a.mu.Lock()
		a.clients[id] = true
		a.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		known := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		if !known || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := randomToken(t, "code-")
		a.mu.Lock()
		a.codes[code] = authGrant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), clientID: q.Get("client_id"), scope: q.Get("scope")}
		a.authScope = append(a.authScope, q.Get("scope"))
		a.mu.Unlock()
		to, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		back := to.Query()
		back.Set("code", code)
		back.Set("state", q.Get("state"))
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		redirect := a.tokenRedirect
		a.mu.Unlock()
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusTemporaryRedirect)
			return
		}
		if err := r.ParseForm(); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.resources = append(a.resources, r.PostForm.Get("resource"))
		scope := r.PostForm.Get("scope")
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			g, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("redirect_uri") != g.redirect {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
			scope = g.scope
		case "client_credentials":
			if !a.clientAuthenticated(r) {
				writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
				return
			}
			a.ccGrants++
		case "refresh_token":
			if !a.refresh[r.PostForm.Get("refresh_token")] {
				// Echoes the token, as careless servers do: dispatch must mask it.
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "refresh token " + r.PostForm.Get("refresh_token") + " revoked"})
				return
			}
			scope = a.scopes[r.PostForm.Get("refresh_token")]
			delete(a.refresh, r.PostForm.Get("refresh_token")) // rotation
			a.refreshes++
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		access, refresh := randomToken(t, "at-"), randomToken(t, "rt-")
		a.access[access], a.refresh[refresh] = true, true
		a.scopes[access], a.scopes[refresh] = scope, scope
		writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh, "expires_in": a.expiresIn})
	})
	a.URL = serveLoopback(t, mux)
	return a
}

// sendEndless writes a JSON string that never ends, until the client goes.
func (a *authServer) sendEndless(w http.ResponseWriter, r *http.Request, status int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	chunk := []byte(strings.Repeat("a", 64<<10))
	if _, err := w.Write([]byte(`{"client_id":"`)); err != nil {
		return
	}
	for r.Context().Err() == nil {
		n, err := w.Write(chunk)
		a.mu.Lock()
		a.registerSent += int64(n)
		a.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (a *authServer) valid(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.access[token]
}

// revokeAccess forgets the access tokens it issued and keeps the refresh
// tokens, as a server that rotates its signing keys does.
func (a *authServer) revokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string]bool{}
}

// scopeOf is the scope token was issued for.
func (a *authServer) scopeOf(token string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.scopes[token]
}

// clientAuthenticated checks the pre-registered client's credentials of a
// token request: client_secret_basic, or a private_key_jwt assertion
// signed by jwtKey for this server. Called with mu held.
func (a *authServer) clientAuthenticated(r *http.Request) bool {
	if a.jwtKey == nil {
		id, secret, ok := r.BasicAuth()
		return ok && id == fixtureClientID && secret == fixtureClientSecret
	}
	if r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return false
	}
	parts := strings.Split(r.PostForm.Get("client_assertion"), ".")
	if len(parts) != 3 {
		return false
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	h, errH := base64.RawURLEncoding.DecodeString(parts[0])
	c, errC := base64.RawURLEncoding.DecodeString(parts[1])
	sig, errS := base64.RawURLEncoding.DecodeString(parts[2])
	if errH != nil || errC != nil || errS != nil || json.Unmarshal(h, &header) != nil || json.Unmarshal(c, &claims) != nil || len(sig) != 64 {
		return false
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	rr, ss := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if header.Alg != "ES256" || !ecdsa.Verify(a.jwtKey, digest[:], rr, ss) {
		return false
	}
	if claims.Iss != fixtureClientID || claims.Sub != fixtureClientID || claims.Aud != a.URL || claims.Exp < time.Now().Unix() {
		return false
	}
	a.assertions++
	return true
}

// revokeAll forgets every token it issued, as a user revoking the app does.
func (a *authServer) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access, a.refresh = map[string]bool{}, map[string]bool{}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedServer serves an MCP server with an echo tool at /mcp that
// accepts only bearer tokens of as, and its protected resource metadata.
func protectedServer(t *testing.T, as *authServer) string {
	return protectedServerWith(t, as, protectedOptions{})
}

// protectedOptions vary protectedServer.
type protectedOptions struct {
	// callScope, when set, is the scope tools/call needs: a token without
	// it gets 403 insufficient_scope asking for "echo callScope".
	callScope string
	// redirectTo, when set, answers every authorized request with a 307
	// to it: a hostile or compromised server sending the token elsewhere.
	redirectTo string
	// refuseListen answers the listening stream (GET) 401 whatever the
	// token, and counts those GETs in listenRefused.
	refuseListen  bool
	listenRefused *atomic.Int32
	// growingScope, with callScope, asks each time for a scope no token
	// has yet: callScope followed by a number it counts up.
	growingScope *atomic.Int32
}

func protectedServerWith(t *testing.T, as *authServer, opts protectedOptions) string {
	mcpSrv := server.NewMCPServer("protected", "1", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("message")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	streamable := server.NewStreamableHTTPServer(mcpSrv)
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{as.URL}})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		const prefix = "Bearer "
		h := r.Header.Get("Authorization")
		refused := opts.refuseListen && r.Method == http.MethodGet
		if refused {
			opts.listenRefused.Add(1)
		}
		if refused || len(h) <= len(prefix) || !as.valid(h[len(prefix):]) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="echo"`, base))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if opts.redirectTo != "" {
			http.Redirect(w, r, opts.redirectTo, http.StatusTemporaryRedirect)
			return
		}
		callScope := opts.callScope
		if opts.growingScope != nil {
			callScope = fmt.Sprint(opts.callScope, opts.growingScope.Load())
		}
		if callScope != "" && !strings.Contains(" "+as.scopeOf(h[len(prefix):])+" ", " "+callScope+" ") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "read", http.StatusBadRequest)
				return
			}
			if strings.Contains(string(body), `"tools/call"`) {
				if opts.growingScope != nil {
					opts.growingScope.Add(1)
				}
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="echo %s", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, callScope, base))
				writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
				return
			}
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		streamable.ServeHTTP(w, r)
	})
	base = serveLoopback(t, mux)
	return base + "/mcp"
}

// followBrowser is a $BROWSER without a person: it GETs the authorization
// URL and follows the redirects to the loopback callback.
func followBrowser(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// capture is a loopback server of another origin that records what reaches
// it: the Authorization headers and bodies sent to it.
type capture struct {
	URL string

	mu   sync.Mutex
	seen []string // "Authorization: ..." and the bodies
}

func newCapture(t *testing.T) *capture {
	c := &capture{}
	c.URL = serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16)) // what arrived is the point, not its errors
		c.mu.Lock()
		c.seen = append(c.seen, "Authorization: "+r.Header.Get("Authorization"), string(body))
		c.mu.Unlock()
		http.Error(w, "captured", http.StatusTeapot)
	}))
	return c
}

// leaked returns what of secrets reached the capture server.
func (c *capture) leaked(secrets ...string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, s := range secrets {
		for _, got := range c.seen {
			if s != "" && strings.Contains(got, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
