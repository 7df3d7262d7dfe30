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
	// browser) or "client_credentials" (a machine client with a secret).
	GrantType string `json:"grantType,omitempty"`
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
}

func (f *fileOAuth) toSettings() (*OAuthSettings, error) {
	if f == nil {
		return nil, nil
	}
	s := &OAuthSettings{ClientID: f.ClientID, ClientSecret: f.ClientSecret, RedirectPort: f.RedirectPort, GrantType: f.GrantType}
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
	if s.ClientSecret != "" && s.ClientID == "" {
		return nil, fmt.Errorf("oauth.clientSecret without oauth.clientId: give the client id the secret belongs to")
	}
	return s, nil
}

// redirectURI is the loopback redirect URI for port.
func redirectURI(port int) string {
	return (&url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/callback"}).String()
}
