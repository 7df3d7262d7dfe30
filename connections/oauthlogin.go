package connections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// DefaultLoginTimeout bounds the browser step of a login: past it the
// server stays needs-auth and the login can simply be run again.
const DefaultLoginTimeout = 5 * time.Minute

// maxChallengeBody bounds what is read of the server's answer to the
// probe that starts a login.
const maxChallengeBody = 64 << 10

// LoginOptions say how the person is sent to the authorization page.
type LoginOptions struct {
	// Open opens the authorization URL (a browser, or the agent's user
	// through URL elicitation). Its failure is not fatal, ShowURL has
	// already shown the URL to copy by hand, unless it is
	// ErrAuthorizationDeclined: the person said no.
	Open func(ctx context.Context, authURL string) error
	// ShowURL shows the authorization URL, always, before Open runs.
	ShowURL func(authURL string)
	// Timeout bounds the wait for the browser; DefaultLoginTimeout if 0.
	Timeout time.Duration
	// ClientName is the name registered dynamically.
	ClientName string
	// Completed, when set, is called once the tokens are kept.
	Completed func()
}

// LoginError names the step of a login that failed.
type LoginError struct {
	Step string // metadata, registration, authorization, token
	Hint string
	Err  error
}

func (e *LoginError) Error() string {
	msg := fmt.Sprintf("oauth %s: %v", e.Step, e.Err)
	var self hintsItself
	if e.Hint != "" && !errors.As(e.Err, &self) {
		msg += ": " + e.Hint
	}
	return msg
}
func (e *LoginError) Unwrap() error { return e.Err }

// Login authorizes dispatch to cfg's server and keeps the client and
// tokens in tokens: it discovers the server's authorization server
// (oauthdiscover.go), gets a client (configured, a Client ID Metadata
// Document, or registered dynamically), and runs the authorization code
// flow with PKCE through a loopback redirect; a client_credentials client
// gets its token directly.
func Login(ctx context.Context, cfg ServerConfig, tokens *TokenFile, opts LoginOptions) error {
	if cfg.Transport == TransportStdio {
		return errors.New("oauth applies to http(s) servers only; this one is a command")
	}
	return newOAuthClient(cfg, "", tokens).login(ctx, opts, nil)
}

// login runs the authorization; extra are scopes to ask for beyond the
// usual choice (a step-up).
func (c *oauthClient) login(ctx context.Context, opts LoginOptions, extra []string) error {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultLoginTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "dispatch"
	}
	settings := c.settings()
	entry, err := c.tokens.Entry(c.cfg)
	if err != nil {
		return err
	}
	var listener net.Listener
	if settings.GrantType != GrantClientCredentials {
		// Before the probe: a port taken by something else fails at once.
		listener, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(settings.RedirectPort)))
		if err != nil {
			return &LoginError{Step: "authorization", Err: fmt.Errorf("listen for the redirect: %w", err), Hint: "free the port or change oauth.redirectPort"}
		}
		defer listener.Close()
	}
	challenge, err := probe(ctx, c.cfg)
	if err != nil {
		return err
	}
	target, err := discover(ctx, c.hc, c.cfg.URL, challenge)
	if err != nil {
		return &LoginError{Step: "metadata", Err: err, Hint: "check the server's URL; its authorization server could not be discovered"}
	}
	scopes := chooseScopes(settings, challenge, target)
	if entry != nil {
		scopes = union(scopes, entry.StepUpScopes)
	}
	scopes = union(scopes, extra)
	if settings.GrantType == GrantClientCredentials {
		// Discovered now: the entry keeps them for every later re-fetch.
		err := c.save(func(e *TokenEntry) { e.AuthServer, e.Resource = &target.Server, target.Resource })
		if err != nil {
			return err
		}
		fresh, err := c.tokens.Entry(c.cfg)
		if err != nil {
			return err
		}
		_, err = c.clientCredentials(ctx, fresh, scopes)
		return err
	}
	meta := &target.Server
	if len(meta.CodeChallengeMethodsSupported) == 0 && !target.DefaultEndpoints {
		// 2025-11-25: without the list, PKCE support cannot be verified,
		// and the client must refuse. A 2025-03-26 server without any
		// metadata (default endpoints) has nothing to list: its spec
		// requires PKCE of every authorization server.
		return &LoginError{Step: "metadata", Err: errors.New("the authorization server's metadata does not list code_challenge_methods_supported, so its PKCE support cannot be verified"), Hint: "MCP requires PKCE (S256) and clients must refuse such a server; ask its operator to publish code_challenge_methods_supported"}
	}
	if len(meta.CodeChallengeMethodsSupported) > 0 && !slices.Contains(meta.CodeChallengeMethodsSupported, "S256") {
		return &LoginError{Step: "metadata", Err: fmt.Errorf("the authorization server does not support PKCE with S256 (it lists %s)", strings.Join(meta.CodeChallengeMethodsSupported, ", ")), Hint: "MCP requires it; the server cannot be used"}
	}
	redirect := redirectURI(listener.Addr().(*net.TCPAddr).Port)
	creds, err := c.loginClient(ctx, settings, meta, redirect, scopes, opts.ClientName)
	if err != nil {
		return err
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	state, err := transport.GenerateState()
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	authURL, err := authorizationURL(meta, creds.ID, redirect, scopes, state, transport.GenerateCodeChallenge(verifier), target.Resource)
	if err != nil {
		return &LoginError{Step: "authorization", Err: err}
	}
	code, err := awaitRedirect(ctx, listener, state, authURL, opts)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}}
	if target.Resource != "" {
		form.Set("resource", target.Resource)
	}
	token, err := requestToken(ctx, c.hc, meta, creds, form)
	if err != nil {
		return &LoginError{Step: "token", Err: err, Hint: "run dispatch auth login again"}
	}
	err = c.save(func(e *TokenEntry) {
		e.ClientID, e.ClientSecret, e.AuthMethod = creds.ID, creds.Secret, creds.Method
		e.AuthServer, e.Resource, e.Scopes, e.StepUpScopes, e.Token, e.LoginNeeded = meta, target.Resource, scopes, nil, token, ""
	})
	if err == nil && opts.Completed != nil {
		opts.Completed()
	}
	return err
}

// loginClient is the client that asks for authorization: the configured
// one; else the Client ID Metadata Document's URL when the authorization
// server takes such documents; else one registered dynamically.
func (c *oauthClient) loginClient(ctx context.Context, settings OAuthSettings, meta *AuthServerMetadata, redirect string, scopes []string, name string) (clientCreds, error) {
	if settings.ClientID != "" {
		return c.creds(nil)
	}
	if settings.ClientMetadataURL != "" && meta.ClientIDMetadataDocumentSupported {
		return clientCreds{ID: settings.ClientMetadataURL, Method: authNone}, nil
	}
	creds, err := registerClient(ctx, c.hc, meta, name, redirect, scopes)
	if err != nil {
		hint := "the server does not register clients dynamically: set oauth.clientId (and clientSecret) in its config"
		if meta.ClientIDMetadataDocumentSupported {
			hint = "the server takes Client ID Metadata Documents: set oauth.clientMetadataUrl, or oauth.clientId"
		}
		return clientCreds{}, &LoginError{Step: "registration", Err: err, Hint: hint}
	}
	return creds, nil
}

// chooseScopes picks the scopes to ask for, in the spec's order: the
// configured ones, else the challenge's scope, else the protected resource
// metadata's scopes_supported, else none.
func chooseScopes(settings OAuthSettings, challenge http.Header, target *authTarget) []string {
	if len(settings.Scopes) > 0 {
		return slices.Clone(settings.Scopes)
	}
	for _, v := range challenge.Values("WWW-Authenticate") {
		if s := challengeParam(v, "scope"); s != "" {
			return strings.Fields(s)
		}
	}
	return slices.Clone(target.ScopesSupported)
}

// union is a with the elements of b it lacks appended.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// authorizationURL is the authorization request (PKCE S256, RFC 8707
// resource).
func authorizationURL(meta *AuthServerMetadata, clientID, redirect string, scopes []string, state, challenge, resource string) (string, error) {
	u, err := url.Parse(meta.AuthorizationEndpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("the authorization endpoint %q is not an http(s) URL", meta.AuthorizationEndpoint)
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", clientID)
	q.Set("redirect_uri", redirect)
	q.Set("state", state)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	if resource != "" {
		q.Set("resource", resource)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// probe sends initialize without a token and returns the headers of the
// server's answer when it is a 401 (its WWW-Authenticate names the
// resource metadata and perhaps the scope), else nil.
func probe(ctx context.Context, cfg ServerConfig) (http.Header, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + DefaultProtocolVersion + `","capabilities":{},"clientInfo":{"name":"dispatch","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: OAuthHTTPTimeout}).Do(req)
	if err != nil {
		return nil, &LoginError{Step: "metadata", Err: explainHTTPErr(cfg, err)}
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, maxChallengeBody)); err != nil {
		return nil, &LoginError{Step: "metadata", Err: fmt.Errorf("read the server's answer: %w", err)}
	}
	if resp.StatusCode != http.StatusUnauthorized {
		// Not an error: some servers accept anonymous initialize and
		// want a token later; discovery then uses the well-known URLs.
		return nil, nil
	}
	return resp.Header, nil
}

// challengeParam returns param's value in a WWW-Authenticate challenge.
func challengeParam(header, param string) string {
	lower := strings.ToLower(header)
	for from := 0; ; {
		i := strings.Index(lower[from:], param+"=")
		if i < 0 {
			return ""
		}
		i += from
		from = i + len(param) + 1
		if i > 0 && !strings.ContainsRune(" ,\t", rune(lower[i-1])) {
			continue
		}
		rest := header[from:]
		if strings.HasPrefix(rest, `"`) {
			if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
				return rest[1 : 1+end]
			}
			return ""
		}
		if end := strings.IndexAny(rest, ", "); end >= 0 {
			return rest[:end]
		}
		return rest
	}
}

// awaitRedirect shows and opens authURL, and waits for the browser to come
// back to the loopback listener with the code for state.
func awaitRedirect(ctx context.Context, listener net.Listener, state, authURL string, opts LoginOptions) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	type result struct {
		code string
		err  error
	}
	results := make(chan result, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			// Not ours (a stale tab, or a forged request): keep waiting.
			http.Error(w, "unexpected state: close this tab and use the newest login link", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = &LoginError{Step: "authorization", Err: errors.New("the authorization server refused: " + quote(nil, q.Get("error")) + " " + quote(nil, q.Get("error_description"))), Hint: "run dispatch auth login again"}
		case q.Get("code") == "":
			res.err = &LoginError{Step: "authorization", Err: errors.New("the redirect carried no code")}
		default:
			res.code = q.Get("code")
		}
		select {
		case results <- res:
		default:
		}
		if res.err != nil {
			http.Error(w, "dispatch: authorization failed; see the terminal", http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "dispatch: authorized; you can close this tab.")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(listener) // ends with Close below; ErrServerClosed is expected
	}()
	defer func() {
		srv.Close()
		<-served
	}()
	if opts.ShowURL != nil {
		opts.ShowURL(authURL)
	}
	declined := make(chan error, 1)
	if opts.Open != nil {
		opened := make(chan struct{})
		go func() {
			defer close(opened)
			// The URL was shown: a missing browser is not fatal, but a
			// person who declined will not come back.
			if err := opts.Open(ctx, authURL); errors.Is(err, ErrAuthorizationDeclined) {
				declined <- err
			}
		}()
		// The opener ends with ctx at the latest.
		defer func() { cancel(); <-opened }()
	}
	select {
	case res := <-results:
		return res.code, res.err
	case err := <-declined:
		return "", &LoginError{Step: "authorization", Err: err, Hint: "the server stays needs-auth; run dispatch auth login in a terminal, or retry and accept"}
	case <-ctx.Done():
		return "", &LoginError{Step: "authorization", Err: fmt.Errorf("no redirect within %s: %w", opts.Timeout, ctx.Err()), Hint: "the server stays needs-auth; run dispatch auth login again"}
	}
}
