package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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
	// Open opens the authorization URL (a browser). Its failure is not
	// fatal: ShowURL has already shown the URL to copy by hand.
	Open func(ctx context.Context, authURL string) error
	// ShowURL shows the authorization URL, always, before Open runs.
	ShowURL func(authURL string)
	// Timeout bounds the wait for the browser; DefaultLoginTimeout if 0.
	Timeout time.Duration
	// ClientName is the name registered dynamically.
	ClientName string
}

// LoginError names the step of a login that failed.
type LoginError struct {
	Step string // metadata, registration, authorization, token
	Hint string
	Err  error
}

func (e *LoginError) Error() string {
	msg := fmt.Sprintf("oauth %s: %v", e.Step, e.Err)
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}
func (e *LoginError) Unwrap() error { return e.Err }

// Login authorizes dispatch to cfg's server: it discovers the server's
// authorization server (mcp-go's handler does the metadata discovery, client
// registration, PKCE and token exchange), runs the authorization code flow
// through a loopback redirect, and keeps the client and tokens in tokens.
// mcp-go has no login flow of its own (its examples leave the redirect
// listener to the application), so the listener and the probe are here.
func Login(ctx context.Context, cfg ServerConfig, tokens *TokenFile, opts LoginOptions) error {
	if cfg.Transport == TransportStdio {
		return errors.New("oauth applies to http(s) servers only; this one is a command")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultLoginTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "dispatch"
	}
	settings := OAuthSettings{}
	if cfg.OAuth != nil {
		settings = *cfg.OAuth
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(settings.RedirectPort)))
	if err != nil {
		return &LoginError{Step: "authorization", Err: fmt.Errorf("listen for the redirect: %w", err), Hint: "free the port or change oauth.redirectPort"}
	}
	defer listener.Close()
	port := listener.Addr().(*net.TCPAddr).Port

	challenge, err := probe(ctx, cfg)
	if err != nil {
		return err
	}
	scopes := settings.Scopes
	if len(scopes) == 0 && challenge != nil {
		// The challenge's scope is the spec's first choice; mcp-go falls
		// back to scopes_supported itself.
		for _, v := range challenge.Header.Values("WWW-Authenticate") {
			if s := challengeParam(v, "scope"); s != "" {
				scopes = strings.Fields(s)
				break
			}
		}
	}
	if len(scopes) == 0 {
		scopes = scopesSupported(ctx, cfg.URL, challenge)
	}
	handler := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID:     settings.ClientID,
		ClientSecret: settings.ClientSecret,
		Scopes:       scopes,
		RedirectURI:  redirectURI(port),
		PKCEEnabled:  true,
		TokenStore:   serverTokens{file: tokens, cfg: cfg},
		HTTPClient:   newOAuthHTTPClient(),
	})
	base, err := url.Parse(cfg.URL)
	if err != nil {
		return fmt.Errorf("server URL: %w", err)
	}
	base.RawQuery, base.Fragment = "", ""
	handler.SetBaseURL(base.String())
	handler.HandleUnauthorizedResponse(challenge)
	if settings.GrantType == GrantClientCredentials {
		if err := clientCredentials(ctx, handler, settings, scopes, base.String(), serverTokens{file: tokens, cfg: cfg}); err != nil {
			return err
		}
		return tokens.update(cfg, func(e *TokenEntry) { e.ClientID, e.ClientSecret = settings.ClientID, settings.ClientSecret })
	}
	if _, err := handler.GetServerMetadata(ctx); err != nil {
		return &LoginError{Step: "metadata", Err: err, Hint: "check the server's URL; its authorization server could not be discovered"}
	}
	if handler.GetClientID() == "" {
		if err := handler.RegisterClient(ctx, opts.ClientName); err != nil {
			return &LoginError{Step: "registration", Err: err, Hint: "the server does not register clients dynamically: set oauth.clientId (and clientSecret) in its config"}
		}
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	state, err := transport.GenerateState()
	if err != nil {
		return fmt.Errorf("oauth: %w", err)
	}
	authURL, err := handler.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return &LoginError{Step: "authorization", Err: err}
	}
	code, err := awaitRedirect(ctx, listener, state, authURL, opts)
	if err != nil {
		return err
	}
	if err := handler.ProcessAuthorizationResponse(ctx, code, state, verifier); err != nil {
		return &LoginError{Step: "token", Err: err, Hint: "run dispatch auth login again"}
	}
	return tokens.update(cfg, func(e *TokenEntry) {
		e.ClientID, e.ClientSecret = handler.GetClientID(), handler.GetClientSecret()
		e.AuthMethod = handler.GetTokenEndpointAuthMethod()
	})
}

// probe sends initialize without a token and returns the server's answer
// when it is a 401 (its WWW-Authenticate names the resource metadata and
// perhaps the scope), else nil.
func probe(ctx context.Context, cfg ServerConfig) (*http.Response, error) {
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
	return resp, nil
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
			res.err = &LoginError{Step: "authorization", Err: fmt.Errorf("the authorization server refused: %.200q %.200q", q.Get("error"), q.Get("error_description")), Hint: "run dispatch auth login again"}
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
	if opts.Open != nil {
		opened := make(chan struct{})
		go func() {
			defer close(opened)
			_ = opts.Open(ctx, authURL) // the URL was shown: a missing browser is not fatal
		}()
		// The opener ends with ctx at the latest.
		defer func() { cancel(); <-opened }()
	}
	select {
	case res := <-results:
		return res.code, res.err
	case <-ctx.Done():
		return "", &LoginError{Step: "authorization", Err: fmt.Errorf("no redirect within %s: %w", opts.Timeout, ctx.Err()), Hint: "the server stays needs-auth; run dispatch auth login again"}
	}
}

// scopesSupported returns the protected resource metadata's
// scopes_supported, the spec's second choice of scopes (mcp-go asks for
// none when none are configured). The metadata is read from the URL the
// challenge named when it is on the server's own origin, else from the
// well-known URLs; nil when none answers.
func scopesSupported(ctx context.Context, serverURL string, challenge *http.Response) []string {
	server, err := url.Parse(serverURL)
	if err != nil {
		return nil
	}
	var candidates []string
	if challenge != nil {
		for _, v := range challenge.Header.Values("WWW-Authenticate") {
			if m := challengeParam(v, "resource_metadata"); m != "" {
				if u, err := url.Parse(m); err == nil && u.Scheme == server.Scheme && u.Host == server.Host {
					candidates = append(candidates, m)
				}
			}
		}
	}
	root := &url.URL{Scheme: server.Scheme, Host: server.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(server.Path, "/"); p != "" {
		candidates = append(candidates, root.String()+p)
	}
	candidates = append(candidates, root.String())
	client := &http.Client{Timeout: OAuthHTTPTimeout}
	for _, c := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c, nil)
		if err != nil {
			continue
		}
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		var prm struct {
			ScopesSupported []string `json:"scopes_supported"`
		}
		decodeErr := json.NewDecoder(io.LimitReader(resp.Body, maxChallengeBody)).Decode(&prm)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && decodeErr == nil {
			return prm.ScopesSupported
		}
	}
	return nil
}
