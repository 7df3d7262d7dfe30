package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// GrantClientCredentials is the oauth.grantType of a machine client.
const GrantClientCredentials = "client_credentials"

// maxTokenResponse bounds a token endpoint's answer.
const maxTokenResponse = 1 << 20

// clientCredentials gets a token with the client_credentials grant and a
// client secret, which mcp-go's handler does not do (it knows only the
// authorization code and refresh grants). The token has no refresh token:
// when it expires the server is needs-auth until the next login.
func clientCredentials(ctx context.Context, h *transport.OAuthHandler, settings OAuthSettings, scopes []string, resource string, store transport.TokenStore) error {
	if settings.ClientID == "" || settings.ClientSecret == "" {
		return &LoginError{Step: "token", Err: errors.New("grantType client_credentials needs oauth.clientId and oauth.clientSecret"), Hint: "set both in the server's config"}
	}
	meta, err := h.GetServerMetadata(ctx)
	if err != nil {
		return &LoginError{Step: "metadata", Err: err, Hint: "check the server's URL; its authorization server could not be discovered"}
	}
	form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	basic := !slices.Contains(meta.TokenEndpointAuthMethodsSupported, "client_secret_post")
	if !basic {
		form.Set("client_id", settings.ClientID)
		form.Set("client_secret", settings.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return &LoginError{Step: "token", Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: form-encoded before they become Basic's user and password.
		req.SetBasicAuth(url.QueryEscape(settings.ClientID), url.QueryEscape(settings.ClientSecret))
	}
	resp, err := (&http.Client{Timeout: OAuthHTTPTimeout}).Do(req)
	if err != nil {
		return &LoginError{Step: "token", Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if err != nil {
		return &LoginError{Step: "token", Err: fmt.Errorf("read the token answer: %w", err)}
	}
	if resp.StatusCode != http.StatusOK {
		var oe struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &oe) // a non-JSON refusal still has its status
		return &LoginError{Step: "token", Err: fmt.Errorf("HTTP %d %.100q %.200q", resp.StatusCode, oe.Error, oe.Description), Hint: "check oauth.clientId and oauth.clientSecret"}
	}
	var token transport.Token
	if err := json.Unmarshal(body, &token); err != nil || token.AccessToken == "" {
		return &LoginError{Step: "token", Err: errors.New("the token endpoint's answer has no access_token")}
	}
	if token.ExpiresIn > 0 {
		token.ExpiresAt = time.Now().Add(time.Duration(token.ExpiresIn) * time.Second)
	}
	return store.SaveToken(ctx, &token)
}
