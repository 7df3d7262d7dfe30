package connections

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// ErrAuthorizationDeclined: the person asked to authorize declined.
var ErrAuthorizationDeclined = errors.New("authorization declined")

// oauthWrapper puts the server's OAuth client under its HTTP transport.
func (c *Conn) oauthWrapper() func(http.RoundTripper) http.RoundTripper {
	client := newOAuthClient(c.Config, c.authName(), c.opts.Tokens)
	return func(next http.RoundTripper) http.RoundTripper {
		return &oauthTransport{next: next, client: client, authorizer: c.stepUpAuthorizer, log: c.log}
	}
}

// stepUpAuthorizer is how a request that needs a wider scope is authorized:
// through the agent when it can show a URL, else in the shell's browser
// (Options.Browser), else not (nil).
func (c *Conn) stepUpAuthorizer(ctx context.Context) *LoginOptions {
	if opts := c.agentAuthorizer(ctx); opts != nil {
		return opts
	}
	return c.opts.Browser
}

// agentAuthorizer sends the person at the agent to the authorization page
// through elicitation in URL mode, when the agent session that made the
// request declared it; nil otherwise. Only a request of an agent session
// asks: a server started in the background (--eager, a catalog refresh)
// never puts a page in front of the user unasked.
func (c *Conn) agentAuthorizer(ctx context.Context) *LoginOptions {
	up := upstreamFrom(ctx)
	if up == nil {
		return nil
	}
	if caps := up.ClientCapabilities(); caps.Elicitation == nil || caps.Elicitation.URL == nil {
		return nil
	}
	var id string
	return &LoginOptions{
		Open: func(ctx context.Context, authURL string) error {
			var err error
			id, err = elicitAuthorization(ctx, up, c.authName(), authURL)
			return err
		},
		Completed: func() {
			// Tells the agent the page it opened has done its work.
			up.NotifyClient(string(mcp.MethodNotificationElicitationComplete), map[string]any{"elicitationId": id})
		},
		Timeout: ServerRequestTimeout,
	}
}

// elicitAuthorization asks the agent to have its user open authURL
// (elicitation, URL mode) and returns the elicitation's id; an answer
// other than accept is ErrAuthorizationDeclined.
func elicitAuthorization(ctx context.Context, up Upstream, server, authURL string) (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := "dispatch-auth-" + hex.EncodeToString(b)
	params, err := json.Marshal(mcp.ElicitationParams{
		Mode:          mcp.ElicitationModeURL,
		Message:       fmt.Sprintf("%s needs your authorization: open the page to sign in and allow dispatch access.", server),
		URL:           authURL,
		ElicitationID: id,
	})
	if err != nil {
		return "", err
	}
	raw, err := up.RequestClient(ctx, string(mcp.MethodElicitationCreate), params)
	if err != nil {
		return "", fmt.Errorf("ask the agent to open the authorization page: %w", err)
	}
	var result struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return "", fmt.Errorf("the agent's answer to the authorization page: %w", err)
	}
	if result.Action != string(mcp.ElicitationResponseActionAccept) {
		return "", fmt.Errorf("%w: the agent's user answered %.20q", ErrAuthorizationDeclined, result.Action)
	}
	return id, nil
}

// ensureAuthorized is ensure, and when the server needs authorization and
// the agent can show a URL, the authorization through the agent and one
// more start.
func (c *Conn) ensureAuthorized(ctx context.Context) (*session, error) {
	sess, err := c.ensureOnce(ctx)
	if err == nil || !errors.Is(err, ErrNeedsAuth) || c.opts.Tokens == nil || c.Config.Transport == TransportStdio {
		return sess, err
	}
	opts := c.agentAuthorizer(ctx)
	if opts == nil {
		return nil, err
	}
	// One authorization at a time: the calls waiting here then find the
	// token the first one got.
	c.authMu.Lock()
	defer c.authMu.Unlock()
	if sess, err = c.ensureOnce(ctx); err == nil || !errors.Is(err, ErrNeedsAuth) {
		return sess, err
	}
	if lerr := newOAuthClient(c.Config, c.authName(), c.opts.Tokens).login(ctx, *opts, nil); lerr != nil {
		var na *NeedsAuthError
		if errors.As(err, &na) {
			return nil, c.fail("connect", fmt.Errorf("%w (the authorization through the agent did not complete: %v)", na, lerr), false)
		}
		return nil, err
	}
	return c.ensureOnce(ctx)
}
