package connections

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// GrantClientCredentials is the oauth.grantType of a machine client.
const GrantClientCredentials = "client_credentials"

// oauthClient is dispatch as the OAuth client of one server: it keeps the
// server's tokens in the token file, refreshes them, and fetches a new
// client_credentials token when one expires.
type oauthClient struct {
	cfg    ServerConfig
	name   string // the name dispatch auth login takes
	tokens *TokenFile
	hc     *http.Client
}

func newOAuthClient(cfg ServerConfig, name string, tokens *TokenFile) *oauthClient {
	return &oauthClient{cfg: cfg, name: name, tokens: tokens, hc: newOAuthHTTPClient()}
}

// usesOAuth reports whether cfg's requests carry OAuth tokens: it is an
// http(s) server with an oauth table, or somebody logged in to it.
func usesOAuth(cfg ServerConfig, tokens *TokenFile) (bool, error) {
	if tokens == nil || cfg.Transport == TransportStdio {
		return false, nil
	}
	if cfg.OAuth != nil {
		return true, nil
	}
	e, err := tokens.Entry(cfg)
	return e != nil, err
}

func (c *oauthClient) settings() OAuthSettings {
	if c.cfg.OAuth != nil {
		return *c.cfg.OAuth
	}
	return OAuthSettings{}
}

func (c *oauthClient) needsAuth(reason string) error {
	return &NeedsAuthError{Server: c.name, Reason: reason}
}

// accessToken returns a token to send: the stored one, or a renewed one when
// it expires within TokenRefreshMargin.
func (c *oauthClient) accessToken(ctx context.Context) (*transport.Token, error) {
	e, err := c.tokens.Entry(c.cfg)
	if err != nil {
		return nil, err
	}
	if e != nil && e.Token != nil && e.Token.AccessToken != "" && !expiresSoon(e.Token) {
		return e.Token, nil
	}
	stale := ""
	if e != nil && e.Token != nil {
		stale = e.Token.AccessToken
	}
	return c.renew(ctx, stale)
}

// expiresSoon reports whether t is within its refresh margin of expiry:
// TokenRefreshMargin, or half its lifetime when that is shorter.
func expiresSoon(t *transport.Token) bool {
	if t.ExpiresAt.IsZero() {
		return false
	}
	margin := TokenRefreshMargin
	if half := time.Duration(min(t.ExpiresIn, MaxTokenLifetimeSeconds)) * time.Second / 2; t.ExpiresIn > 0 && half < margin {
		margin = half
	}
	return time.Until(t.ExpiresAt) < margin
}

// renew replaces the access token stale (one the server refused, or about
// to expire): with the refresh token, or a new client_credentials grant. A
// token another caller or process stored since stale was read is used as
// it is. The refusal of the grant (a revoked refresh token) is a
// NeedsAuthError.
func (c *oauthClient) renew(ctx context.Context, stale string) (*transport.Token, error) {
	unlock, err := c.tokens.lockRenewal(ctx, c.cfg)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := c.tokens.Entry(c.cfg)
	if err != nil {
		return nil, err
	}
	if e != nil && e.Token != nil && e.Token.AccessToken != "" && e.Token.AccessToken != stale && !expiresSoon(e.Token) {
		return e.Token, nil
	}
	settings := c.settings()
	if settings.GrantType == GrantClientCredentials {
		token, err := c.clientCredentials(ctx, e, nil)
		if err != nil {
			return nil, err
		}
		return token, nil
	}
	if e == nil || e.Token == nil {
		return nil, c.needsAuth("not logged in")
	}
	if e.Token.RefreshToken == "" {
		return nil, c.needsAuth("the access token expired and no refresh token was given")
	}
	meta, resource, err := c.target(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("oauth refresh: %w", err)
	}
	creds, err := c.creds(e)
	if err != nil {
		return nil, fmt.Errorf("oauth refresh: %w", err)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {e.Token.RefreshToken}}
	if resource != "" {
		form.Set("resource", resource)
	}
	token, err := requestToken(ctx, c.hc, meta, creds, form)
	var te *tokenError
	if errors.As(err, &te) && te.refused() {
		reason := "the authorization server refused the refresh token: " + te.Error()
		// Dropped, not tried again on every use: dispatch auth status
		// then says a login is needed, as list does.
		if err := c.save(func(e *TokenEntry) { e.Token, e.LoginNeeded = nil, reason }); err != nil {
			return nil, err
		}
		return nil, c.needsAuth(reason)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth refresh: %w", err)
	}
	if token.RefreshToken == "" {
		token.RefreshToken = e.Token.RefreshToken // not rotated: still good
	}
	err = c.save(func(e *TokenEntry) {
		e.Token = token
		// An entry from before they were kept: discovered once more, then kept.
		if e.AuthServer == nil {
			e.AuthServer, e.Resource = meta, resource
		}
	})
	if err != nil {
		return nil, err
	}
	return token, nil
}

// save changes the server's entry, teaching the redactor the new secrets
// before anything else can see them.
func (c *oauthClient) save(change func(e *TokenEntry)) error {
	return c.tokens.update(c.cfg, change)
}

// target is where the server's tokens come from: the authorization server
// and resource the login discovered, or discovered now for an entry
// written before they were kept.
func (c *oauthClient) target(ctx context.Context, e *TokenEntry) (*AuthServerMetadata, string, error) {
	if e != nil && e.AuthServer != nil && e.AuthServer.TokenEndpoint != "" {
		return e.AuthServer, e.Resource, nil
	}
	t, err := discover(ctx, c.hc, c.cfg.URL, nil)
	if err != nil {
		return nil, "", err
	}
	return &t.Server, t.Resource, nil
}

// creds is the client the tokens were issued to: the configured one, else
// the one registered at login.
func (c *oauthClient) creds(e *TokenEntry) (clientCreds, error) {
	settings := c.settings()
	creds := clientCreds{ID: settings.ClientID, Secret: settings.ClientSecret}
	if creds.ID == "" && e != nil {
		creds = clientCreds{ID: e.ClientID, Secret: e.ClientSecret, Method: e.AuthMethod}
	}
	if settings.PrivateKeyFile != "" {
		key, err := loadPrivateKey(settings.PrivateKeyFile)
		if err != nil {
			return clientCreds{}, err
		}
		creds.Key = key
	}
	return creds, nil
}

// clientCredentials gets and stores a token with the client_credentials
// grant (a machine client: a secret or a private key, no person, no
// refresh token). It runs at login and again whenever the token expires.
// scopes are those to ask for; the last login's when nil.
func (c *oauthClient) clientCredentials(ctx context.Context, e *TokenEntry, scopes []string) (*transport.Token, error) {
	meta, resource, err := c.target(ctx, e)
	if err != nil {
		return nil, &LoginError{Step: "metadata", Err: err, Hint: "check the server's URL; its authorization server could not be discovered"}
	}
	creds, err := c.creds(nil)
	if err != nil {
		return nil, &LoginError{Step: "token", Err: err}
	}
	if scopes == nil && e != nil {
		scopes = e.Scopes
	}
	form := url.Values{"grant_type": {GrantClientCredentials}}
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	token, err := requestToken(ctx, c.hc, meta, creds, form)
	if err != nil {
		return nil, &LoginError{Step: "token", Err: err, Hint: "check oauth.clientId and oauth.clientSecret or oauth.privateKeyFile"}
	}
	err = c.save(func(e *TokenEntry) {
		e.ClientID, e.ClientSecret = creds.ID, creds.Secret
		e.AuthServer, e.Resource, e.Scopes, e.Token, e.LoginNeeded = meta, resource, scopes, token, ""
	})
	return token, err
}

// stepUpScopes returns the scopes to ask for when the server refused a
// request for want (403 insufficient_scope): those of the last
// authorization and want. ok is false when they add nothing: the token
// already has what the server asks for, and asking again cannot help.
func (c *oauthClient) stepUpScopes(want []string) (scopes []string, ok bool, err error) {
	e, err := c.tokens.Entry(c.cfg)
	if err != nil {
		return nil, false, err
	}
	var have []string
	if e != nil {
		have = e.Scopes
	}
	scopes = slices.Clone(have)
	for _, s := range want {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
			ok = true
		}
	}
	return scopes, ok, nil
}
