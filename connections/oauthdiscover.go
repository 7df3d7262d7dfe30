package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The discovery of a server's authorization server is dispatch's own, not
// mcp-go's (v1.2.1): mcp-go looks for the protected resource metadata only
// at the path-based well-known URL (never at the root one, where the
// 2025-11-25 spec says to look next), and without it looks for the
// authorization server's metadata only with the server's path inserted
// (never at the origin, where the 2025-03-26 spec puts it). It then falls
// back to /register, /authorize and /token, which such servers do not
// have. Its handler also keeps the resource indicator only from its own
// discovery, so what is found elsewhere cannot be handed to it: the whole
// client side of the flow is here (oauthclient.go, oauthlogin.go).

// AuthServerMetadata is what dispatch uses of an authorization server's
// metadata (RFC 8414, OpenID Connect Discovery). It is kept in the token
// file, so that a refresh needs no discovery.
type AuthServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgs      []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
}

// protectedResource is a server's protected resource metadata (RFC 9728).
type protectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// authTarget is what discovery found for a server: the resource its tokens
// are bound to (RFC 8707), its authorization server, and the scopes its
// metadata lists.
type authTarget struct {
	Resource        string
	Server          AuthServerMetadata
	ScopesSupported []string
	// DefaultEndpoints: a 2025-03-26 server without metadata, whose
	// endpoints are the spec's defaults.
	DefaultEndpoints bool
}

// discover finds the authorization server of the MCP server at serverURL.
// The protected resource metadata is read from the challenge's
// resource_metadata, else the path-based well-known URL, else the root one
// (2025-11-25). Without any, the server is a 2025-03-26 one: its
// authorization server is its own origin, with metadata at the origin's
// well-known URLs, else the default /authorize, /token and /register.
func discover(ctx context.Context, hc *http.Client, serverURL string, challenge http.Header) (*authTarget, error) {
	server, err := url.Parse(serverURL)
	if err != nil || server.Scheme == "" || server.Host == "" {
		return nil, fmt.Errorf("server URL %q is not an absolute http(s) URL", publicURL(serverURL))
	}
	resource := canonicalResource(server)
	prm, prmURL, err := findProtectedResource(ctx, hc, server, challenge)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		return legacyTarget(ctx, hc, server, resource)
	}
	if prm.Resource != "" {
		if !resourceBindsTo(prm.Resource, resource) {
			return nil, fmt.Errorf("the protected resource metadata at %s is for %q, not for this server (%s): refusing to get tokens for another resource", prmURL, prm.Resource, resource)
		}
		resource = prm.Resource
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("the protected resource metadata at %s names no authorization server", prmURL)
	}
	issuer := prm.AuthorizationServers[0]
	meta, err := findAuthServerMetadata(ctx, hc, issuer, true)
	if err != nil {
		return nil, err
	}
	if meta == nil {
		issuerURL, err := url.Parse(issuer)
		if err != nil || issuerURL.Host == "" {
			return nil, fmt.Errorf("the protected resource metadata at %s names %q, not an authorization server URL", prmURL, issuer)
		}
		meta = defaultEndpoints(issuerURL)
	}
	return &authTarget{Resource: resource, Server: *meta, ScopesSupported: prm.ScopesSupported}, nil
}

// legacyTarget is the 2025-03-26 discovery: the authorization base URL is
// the server's origin.
func legacyTarget(ctx context.Context, hc *http.Client, server *url.URL, resource string) (*authTarget, error) {
	origin := &url.URL{Scheme: server.Scheme, Host: server.Host}
	meta, err := findAuthServerMetadata(ctx, hc, origin.String(), false)
	if err != nil {
		return nil, err
	}
	if meta == nil {
		return &authTarget{Resource: resource, Server: *defaultEndpoints(origin), DefaultEndpoints: true}, nil
	}
	return &authTarget{Resource: resource, Server: *meta}, nil
}

// defaultEndpoints are the 2025-03-26 spec's endpoints for an
// authorization server without metadata.
func defaultEndpoints(base *url.URL) *AuthServerMetadata {
	origin := (&url.URL{Scheme: base.Scheme, Host: base.Host}).String()
	return &AuthServerMetadata{Issuer: origin, AuthorizationEndpoint: origin + "/authorize", TokenEndpoint: origin + "/token", RegistrationEndpoint: origin + "/register"}
}

// canonicalResource is the server URL as a resource indicator: no query, no
// fragment, no user info.
func canonicalResource(u *url.URL) string {
	return (&url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}).String()
}

// resourceBindsTo reports whether a resource named by protected resource
// metadata covers the server: same origin, and a path equal to the
// server's or a parent of it at a segment boundary (servers mounted at
// /mcp often name their origin).
func resourceBindsTo(resource, server string) bool {
	r, errR := url.Parse(resource)
	s, errS := url.Parse(server)
	if errR != nil || errS != nil {
		return false
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) || r.RawQuery != "" || r.Fragment != "" {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// findProtectedResource returns the first protected resource metadata found,
// and its URL; nil when there is none.
func findProtectedResource(ctx context.Context, hc *http.Client, server *url.URL, challenge http.Header) (*protectedResource, string, error) {
	var candidates []string
	for _, v := range challenge.Values("WWW-Authenticate") {
		if m := challengeParam(v, "resource_metadata"); m != "" {
			if u, err := url.Parse(m); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
				candidates = append(candidates, m)
			}
		}
	}
	root := &url.URL{Scheme: server.Scheme, Host: server.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(server.Path, "/"); p != "" && p != "/" {
		candidates = append(candidates, root.String()+p)
	}
	candidates = append(candidates, root.String())
	for _, c := range candidates {
		var prm protectedResource
		found, err := getMetadata(ctx, hc, c, &prm)
		if err != nil {
			return nil, "", err
		}
		if found {
			return &prm, c, nil
		}
	}
	return nil, "", nil
}

// findAuthServerMetadata reads the metadata of the authorization server
// issuer from the URLs the spec lists, in its order: RFC 8414 and OpenID
// Connect Discovery, with the issuer's path inserted after the well-known
// prefix, and OpenID's appended form. With checkIssuer, metadata naming
// another issuer is refused (RFC 8414 §3.3). Nil when none is found.
func findAuthServerMetadata(ctx context.Context, hc *http.Client, issuer string, checkIssuer bool) (*AuthServerMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("authorization server %q is not an http(s) URL", issuer)
	}
	origin := &url.URL{Scheme: u.Scheme, Host: u.Host}
	path := strings.Trim(u.Path, "/")
	var candidates []string
	if path == "" {
		candidates = []string{origin.String() + "/.well-known/oauth-authorization-server", origin.String() + "/.well-known/openid-configuration"}
	} else {
		candidates = []string{
			origin.String() + "/.well-known/oauth-authorization-server/" + path,
			origin.String() + "/.well-known/openid-configuration/" + path,
			origin.String() + "/" + path + "/.well-known/openid-configuration",
		}
	}
	for _, c := range candidates {
		var meta AuthServerMetadata
		found, err := getMetadata(ctx, hc, c, &meta)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if checkIssuer && strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("the authorization server metadata at %s names issuer %q, not %q: refusing it", c, meta.Issuer, issuer)
		}
		if meta.AuthorizationEndpoint == "" || meta.TokenEndpoint == "" {
			return nil, fmt.Errorf("the authorization server metadata at %s lacks authorization_endpoint or token_endpoint", c)
		}
		if err := requireTLSEndpoints(&meta); err != nil {
			return nil, err
		}
		return &meta, nil
	}
	return nil, nil
}

// getMetadata GETs a JSON metadata document into v. A status other than 200
// or an answer that is not JSON is "not here" (false), so that the next
// candidate is tried; a network failure or the caller giving up is an
// error.
func getMetadata(ctx context.Context, hc *http.Client, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", DefaultProtocolVersion)
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("read %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxChallengeBody)) // lets the connection be reused
		return false, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		var tooLarge *answerTooLargeError
		if errors.As(err, &tooLarge) {
			return false, err
		}
		return false, nil
	}
	return true, nil
}
