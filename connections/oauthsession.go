package connections

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// StatusNeedsAuth: the server wants OAuth authorization that nobody gave
// yet (or that was revoked); `dispatch auth login NAME` gives it.
const StatusNeedsAuth Status = "needs-auth"

// OAuthHTTPTimeout bounds each request to an authorization server.
const OAuthHTTPTimeout = 30 * time.Second

// ErrNeedsAuth is wrapped by errors of servers that need authorization.
var ErrNeedsAuth = errors.New("authorization needed")

// NeedsAuthError says which server needs authorization and how to give it.
type NeedsAuthError struct {
	Server string // the name to pass to dispatch auth login
	Reason string
}

func (e *NeedsAuthError) Error() string {
	name := e.Server
	if name == "" {
		name = "URL"
	}
	return fmt.Sprintf("%s needs OAuth authorization (%s): run `dispatch auth login %s` in a terminal (with the same --config/--mcp), then retry", e.Server, e.Reason, name)
}

func (e *NeedsAuthError) Unwrap() error { return ErrNeedsAuth }

// needsAuth turns mcp-go's "authorization required" and a bare 401 into a
// NeedsAuthError for the server called name; other errors are returned as
// they are.
func needsAuth(name string, err error) error {
	var own *NeedsAuthError
	switch {
	case errors.As(err, &own):
		// dispatch's own (oauthTransport), under mcp-go's wrapping.
		return own
	case errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		return &NeedsAuthError{Server: name, Reason: "no valid token: never logged in, or the refresh token was refused"}
	case errors.Is(err, transport.ErrUnauthorized), errors.Is(err, transport.ErrAuthorizationRequired):
		return &NeedsAuthError{Server: name, Reason: "the server answered 401"}
	}
	return err
}

// credentialHeaders returns the names of the configured headers that
// carry credentials (Authorization, X-Api-Key, ...; see
// credentialHeader), sorted: a 401 then means those credentials are
// wrong, not that OAuth is wanted.
func credentialHeaders(headers map[string]string) []string {
	var names []string
	for name, value := range headers {
		if credentialHeader(name, value) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// refusedHeaders explains a 401 from a server given credentials in
// headers: the values were refused, and OAuth would not help.
func refusedHeaders(names []string, err error) error {
	return fmt.Errorf("the server refused the credentials in the configured header %s (HTTP 401 Unauthorized): check their values in its config entry (a ${VAR} may be unset or stale); %w",
		strings.Join(names, ", "), err)
}
