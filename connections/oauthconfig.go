package connections

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// OAuthSettings are a server's `oauth` keys: a pre-registered client and
// the scopes and loopback port its authorization uses. A server without
// them still gets OAuth when it answers 401 and `dispatch auth login` ran
// (the client is then registered dynamically).
type OAuthSettings struct {
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret string   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// RedirectPort is the loopback port of the redirect URI
	// (http://127.0.0.1:PORT/callback); 0 picks a free one, which only
	// works with servers that register clients dynamically.
	RedirectPort int `json:"redirectPort,omitempty"`
	// GrantType is "authorization_code" (the default, a person in a
	// browser) or "client_credentials" (a machine client with a secret
	// or a private key).
	GrantType string `json:"grantType,omitempty"`
	// ClientMetadataURL is the https URL of a Client ID Metadata Document
	// describing dispatch as a client: used as the client id with
	// authorization servers that support such documents, instead of
	// registering dynamically.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// PrivateKeyFile is a PEM private key: the client authenticates at the
	// token endpoint with a JWT signed by it (private_key_jwt).
	PrivateKeyFile string `json:"privateKeyFile,omitempty"`
}

// fileOAuth is the oauth table as written in a TOML file or an mcpServers
// entry. callbackPort is Claude Code's name for redirectPort; scopes may be
// a list or one space-separated string, as VS Code and Claude Code write it.
type fileOAuth struct {
	ClientID     string `toml:"clientId" json:"clientId"`
	ClientSecret string `toml:"clientSecret" json:"clientSecret"`
	Scopes       any    `toml:"scopes" json:"scopes"`
	Scope        string `toml:"scope" json:"scope"`
	RedirectPort int    `toml:"redirectPort" json:"redirectPort"`
	CallbackPort int    `toml:"callbackPort" json:"callbackPort"`
	GrantType    string `toml:"grantType" json:"grantType"`
	// clientMetadataUrl: Claude Code and the TypeScript SDK spell it so.
	ClientMetadataURL string `toml:"clientMetadataUrl" json:"clientMetadataUrl"`
	PrivateKeyFile    string `toml:"privateKeyFile" json:"privateKeyFile"`
}

func (f *fileOAuth) toSettings() (*OAuthSettings, error) {
	if f == nil {
		return nil, nil
	}
	s := &OAuthSettings{ClientID: f.ClientID, ClientSecret: f.ClientSecret, RedirectPort: f.RedirectPort, GrantType: f.GrantType,
		ClientMetadataURL: f.ClientMetadataURL, PrivateKeyFile: f.PrivateKeyFile}
	switch f.GrantType {
	case "", "authorization_code", GrantClientCredentials:
	default:
		return nil, fmt.Errorf("oauth.grantType %q: want authorization_code or client_credentials", f.GrantType)
	}
	if s.RedirectPort == 0 {
		s.RedirectPort = f.CallbackPort
	}
	if s.RedirectPort < 0 || s.RedirectPort > 65535 {
		return nil, fmt.Errorf("oauth.redirectPort %d: want a TCP port from 1 to 65535, or 0 for any free one", s.RedirectPort)
	}
	switch v := f.Scopes.(type) {
	case nil:
	case string:
		s.Scopes = strings.Fields(v)
	case []any:
		for _, e := range v {
			str, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("oauth.scopes: want strings, got %T", e)
			}
			s.Scopes = append(s.Scopes, strings.Fields(str)...)
		}
	default:
		return nil, fmt.Errorf("oauth.scopes: want a list of strings or one space-separated string, got %T", v)
	}
	s.Scopes = append(s.Scopes, strings.Fields(f.Scope)...)
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// check reports settings that cannot work together. It runs when the file
// is read and again once ${VAR} references are expanded (ExpandEnv): a
// clientMetadataUrl written as a reference is checked then.
func (s *OAuthSettings) check() error {
	if s.ClientSecret != "" && s.ClientID == "" {
		return fmt.Errorf("oauth.clientSecret without oauth.clientId: give the client id the secret belongs to")
	}
	if s.PrivateKeyFile != "" && s.ClientID == "" {
		return fmt.Errorf("oauth.privateKeyFile without oauth.clientId: give the client id the key belongs to")
	}
	if s.GrantType == GrantClientCredentials && (s.ClientID == "" || (s.ClientSecret == "" && s.PrivateKeyFile == "")) {
		return fmt.Errorf("oauth.grantType client_credentials needs oauth.clientId and either oauth.clientSecret or oauth.privateKeyFile")
	}
	if s.ClientMetadataURL != "" && !envRef().MatchString(s.ClientMetadataURL) {
		// A Client ID Metadata Document's URL is the client id: https,
		// with a path (draft-ietf-oauth-client-id-metadata-document §3).
		u, err := url.Parse(s.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" {
			return fmt.Errorf("oauth.clientMetadataUrl %q: want an https URL with a path, where dispatch's client metadata document is served", s.ClientMetadataURL)
		}
	}
	return nil
}

// expandEnv returns a copy of s with expand applied to its string values
// (the copy, because configs share the pointer), checked again.
func (s *OAuthSettings) expandEnv(expand func(string) string) *OAuthSettings {
	out := *s
	out.ClientID = expand(s.ClientID)
	out.ClientSecret = expand(s.ClientSecret)
	out.ClientMetadataURL = expand(s.ClientMetadataURL)
	out.PrivateKeyFile = expand(s.PrivateKeyFile)
	out.Scopes = nil
	for _, scope := range s.Scopes {
		out.Scopes = append(out.Scopes, strings.Fields(expand(scope))...)
	}
	return &out
}

// redirectURI is the loopback redirect URI for port.
func redirectURI(port int) string {
	return (&url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/callback"}).String()
}
