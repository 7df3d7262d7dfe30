package connections

import (
	"bytes"
	"context"
	"crypto"
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

// Token endpoint client authentication methods (RFC 6749 §2.3, RFC 7523).
const (
	authNone          = "none"
	authSecretBasic   = "client_secret_basic"
	authSecretPost    = "client_secret_post"
	authPrivateKeyJWT = "private_key_jwt"
)

// clientCreds is the OAuth client dispatch is to an authorization server:
// configured, registered dynamically, or a Client ID Metadata Document URL.
type clientCreds struct {
	ID     string
	Secret string
	// Method is how it authenticates at the token endpoint; chosen from
	// the server's metadata when empty.
	Method string
	// Key signs private_key_jwt assertions.
	Key crypto.Signer
}

// authMethod is the token endpoint authentication c uses with meta.
func (c clientCreds) authMethod(meta *AuthServerMetadata) string {
	switch {
	case c.Key != nil:
		return authPrivateKeyJWT
	case c.Method != "":
		return c.Method
	case c.Secret == "":
		return authNone
	}
	supported := meta.TokenEndpointAuthMethodsSupported
	if slices.Contains(supported, authSecretPost) && !slices.Contains(supported, authSecretBasic) {
		return authSecretPost
	}
	// RFC 8414: a server that lists none supports client_secret_basic.
	return authSecretBasic
}

// tokenError is an authorization server's refusal at its token endpoint.
type tokenError struct {
	Status      int
	Code        string
	Description string
}

func (e *tokenError) Error() string {
	msg := fmt.Sprintf("the token endpoint answered HTTP %d", e.Status)
	// Code and Description are masked of what the request sent
	// (withoutCredentials); quote masks the shapes of other credentials
	// before it cuts.
	if e.Code != "" {
		msg += " " + quote(nil, e.Code)
	}
	if e.Description != "" {
		msg += " (" + quote(nil, e.Description) + ")"
	}
	return msg
}

// refused reports whether the server refused the grant itself (a revoked
// refresh token, a wrong client), as opposed to failing.
func (e *tokenError) refused() bool { return e.Status >= 400 && e.Status < 500 }

// withoutCredentials masks in text (an authorization server's refusal)
// the credentials the request sent, raw and encoded, before it is cut
// short for an error message, which would leave a masked secret's start.
func withoutCredentials(text string, sent []string) string {
	for _, v := range sent {
		if len(v) < minSecretLen {
			continue
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			text = strings.ReplaceAll(text, form, Mask)
		}
	}
	return text
}

// requestToken posts form (a grant) to meta's token endpoint, authenticated
// as creds, and returns the token it answers.
func requestToken(ctx context.Context, hc *http.Client, meta *AuthServerMetadata, creds clientCreds, form url.Values) (*transport.Token, error) {
	method := creds.authMethod(meta)
	var basic bool
	switch method {
	case authSecretBasic:
		basic = true
	case authSecretPost:
		form.Set("client_id", creds.ID)
		form.Set("client_secret", creds.Secret)
	case authPrivateKeyJWT:
		assertion, err := clientAssertion(creds.Key, creds.ID, meta.Issuer, meta.TokenEndpointAuthSigningAlgs)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", creds.ID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", creds.ID)
	}
	// Metadata kept from before this check, or the default endpoints of
	// a server without metadata, are checked here.
	if err := requireTLS("token_endpoint", meta.TokenEndpoint); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("token endpoint %q: %w", meta.TokenEndpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: form-encoded before they become Basic's user and password.
		req.SetBasicAuth(url.QueryEscape(creds.ID), url.QueryEscape(creds.Secret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, withoutRequestURL(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read the token answer: %w", err)
	}
	var answer struct {
		transport.Token
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	decodeErr := json.Unmarshal(body, &answer)
	// Some servers (GitHub) answer 200 with an error in the body.
	if resp.StatusCode < 200 || resp.StatusCode > 299 || answer.Error != "" {
		status := resp.StatusCode
		if status < 400 {
			status = http.StatusBadRequest
		}
		sent := []string{creds.Secret, form.Get("client_secret"), form.Get("refresh_token"), form.Get("code"), form.Get("code_verifier"), form.Get("client_assertion")}
		return nil, &tokenError{Status: status, Code: withoutCredentials(answer.Error, sent), Description: withoutCredentials(answer.Description, sent)}
	}
	if decodeErr != nil || answer.AccessToken == "" {
		return nil, errors.New("the token endpoint's answer has no access_token")
	}
	token := answer.Token
	if token.ExpiresIn > 0 {
		token.ExpiresIn = min(token.ExpiresIn, MaxTokenLifetimeSeconds)
		token.ExpiresAt = time.Now().Add(time.Duration(token.ExpiresIn) * time.Second)
	}
	return &token, nil
}

// MaxTokenLifetimeSeconds caps the expires_in an authorization server
// gives a token (a year): a larger one (up to 2^63 seconds) would overflow
// the expiry time into the past, and the token would be refreshed on
// every request.
const MaxTokenLifetimeSeconds = 366 * 24 * 60 * 60

// registerClient registers a public client with redirectURI at meta's
// registration endpoint (RFC 7591) and returns it.
func registerClient(ctx context.Context, hc *http.Client, meta *AuthServerMetadata, name, redirectURI string, scopes []string) (clientCreds, error) {
	if meta.RegistrationEndpoint == "" {
		return clientCreds{}, errors.New("the authorization server offers no dynamic client registration")
	}
	request := map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": authNone,
	}
	if len(scopes) > 0 {
		request["scope"] = strings.Join(scopes, " ")
	}
	raw, err := json.Marshal(request)
	if err != nil {
		return clientCreds{}, err
	}
	if err := requireTLS("registration_endpoint", meta.RegistrationEndpoint); err != nil {
		return clientCreds{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.RegistrationEndpoint, bytes.NewReader(raw))
	if err != nil {
		return clientCreds{}, fmt.Errorf("registration endpoint %q: %w", meta.RegistrationEndpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return clientCreds{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return clientCreds{}, fmt.Errorf("read the registration answer: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var oe struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &oe) // a refusal that is not JSON still has its status
		msg := fmt.Sprintf("the registration endpoint answered HTTP %d", resp.StatusCode)
		if oe.Error != "" || oe.Description != "" {
			// Quoted: a hostile server's words, masked and bounded.
			msg += " " + quote(nil, oe.Error) + " " + quote(nil, oe.Description)
		}
		return clientCreds{}, errors.New(msg)
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &reg); err != nil || reg.ClientID == "" {
		return clientCreds{}, errors.New("the registration answer has no client_id")
	}
	creds := clientCreds{ID: reg.ClientID, Secret: reg.ClientSecret}
	switch reg.Method {
	case authNone, authSecretBasic, authSecretPost:
		creds.Method = reg.Method
	}
	return creds, nil
}
