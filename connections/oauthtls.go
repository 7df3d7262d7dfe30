package connections

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// insecureEndpointError: an authorization server endpoint that would be
// given credentials (a grant, a code verifier, a client secret, a refresh
// token) is plain http on a host that is not loopback. OAuth 2.1 requires
// TLS there; on loopback nothing crosses a network.
type insecureEndpointError struct {
	field    string // the metadata field naming the endpoint
	endpoint string
}

func (e *insecureEndpointError) Error() string {
	return fmt.Sprintf("the authorization server's %s %s is not https: dispatch sends OAuth credentials only over https (or http to a loopback address such as 127.0.0.1); tell the authorization server's operator", e.field, publicURL(e.endpoint))
}

func (e *insecureEndpointError) hintsItself() {}

// requireTLS refuses endpoint unless it is https, or http to a loopback
// host.
func requireTLS(field, endpoint string) error {
	if endpoint == "" {
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("the authorization server's %s is not a URL", field)
	}
	if strings.EqualFold(u.Scheme, "https") || (strings.EqualFold(u.Scheme, "http") && isLoopbackHost(u.Hostname())) {
		return nil
	}
	return &insecureEndpointError{field: field, endpoint: endpoint}
}

// requireTLSEndpoints checks every endpoint of meta dispatch sends
// credentials to, or sends the user to.
func requireTLSEndpoints(meta *AuthServerMetadata) error {
	for _, e := range []struct{ field, endpoint string }{
		{"token_endpoint", meta.TokenEndpoint},
		{"registration_endpoint", meta.RegistrationEndpoint},
		{"authorization_endpoint", meta.AuthorizationEndpoint},
	} {
		if err := requireTLS(e.field, e.endpoint); err != nil {
			return err
		}
	}
	return nil
}

// isLoopbackHost reports whether host names this machine: localhost or a
// loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
