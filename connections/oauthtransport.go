package connections

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxScopeStepUps bounds the authorizations one connection runs for wider
// scopes (403 insufficient_scope): a server that keeps asking for more
// gets an error, not an endless loop of browser pages.
const MaxScopeStepUps = 3

// oauthTransport sends a server's requests with its OAuth token, under
// mcp-go's HTTP transports. It is dispatch's, not mcp-go's handler
// (v1.2.1), because mcp-go turns every 401 into "authorization required"
// without trying the refresh token, reads a 403 insufficient_scope as an
// answer, and has no client_credentials grant to fetch again: here a token
// the server refuses early is renewed once and the request sent again, an
// expired client_credentials token is fetched again, and a request that
// needs a wider scope asks for it (a bounded number of times).
type oauthTransport struct {
	next   http.RoundTripper
	client *oauthClient
	// authorizer is how a person is sent to an authorization page for a
	// request made under ctx; nil when nobody can be asked (the error
	// then says to run dispatch auth login).
	authorizer func(ctx context.Context) *LoginOptions
	stepUps    atomic.Int32
}

func (t *oauthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	// Under http.Client, a redirect comes back here as a new request: the
	// token only ever goes to its server's origin.
	home, err := url.Parse(t.client.cfg.URL)
	if err != nil {
		closeBody(req)
		return nil, fmt.Errorf("the server's URL: %w", err)
	}
	if !sameOrigin(home, req.URL) {
		closeBody(req)
		return nil, &crossOriginError{from: home, to: req.URL}
	}
	token, err := t.client.accessToken(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	renewed := false
	for attempt := 0; ; attempt++ {
		out, err := withToken(req, token, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(out)
		if err != nil {
			return nil, err
		}
		replayable := req.Body == nil || req.GetBody != nil
		switch {
		case resp.StatusCode == http.StatusUnauthorized && replayable:
			discard(resp)
			if renewed {
				return nil, t.client.needsAuth("the server refused a token it was just given")
			}
			renewed = true
			// Refused before its expiry (revoked, or the server's clock
			// differs): renewed once, and the request sent again.
			if token, err = t.client.renew(ctx, token.AccessToken); err != nil {
				return nil, err
			}
		case resp.StatusCode == http.StatusForbidden && replayable:
			want, ok := insufficientScope(resp.Header)
			if !ok {
				return resp, nil
			}
			discard(resp)
			if err := t.stepUp(ctx, want); err != nil {
				return nil, err
			}
			if token, err = t.client.accessToken(ctx); err != nil {
				return nil, err
			}
		default:
			return resp, nil
		}
	}
}

// withToken is req carrying token; a retry (attempt > 0) gets a fresh copy
// of the body.
func withToken(req *http.Request, token *transport.Token, attempt int) (*http.Request, error) {
	out := req.Clone(req.Context())
	if attempt > 0 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("send the request again: %w", err)
		}
		out.Body = body
	}
	out.Header.Set("Authorization", "Bearer "+token.AccessToken)
	return out, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// discard reads what is left of a refused answer (bounded), so that the
// connection can carry the retry.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxChallengeBody))
	resp.Body.Close()
}

// insufficientScope returns the scopes a 403 challenge asks for, and
// whether it is an insufficient_scope challenge.
func insufficientScope(h http.Header) ([]string, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		if strings.EqualFold(challengeParam(v, "error"), "insufficient_scope") {
			return strings.Fields(challengeParam(v, "scope")), true
		}
	}
	return nil, false
}

// stepUp authorizes again with the scopes the server asked for added to
// the token's. Without a person to ask, the wider scopes are kept for the
// next dispatch auth login, and the error says to run it.
func (t *oauthTransport) stepUp(ctx context.Context, want []string) error {
	scopes, wider, err := t.client.stepUpScopes(want)
	if err != nil {
		return err
	}
	if !wider {
		return fmt.Errorf("%s refused the request (403 insufficient_scope) asking for scope %q, which dispatch already asked for: the account lacks that permission, and authorizing again would not help", publicURL(t.client.cfg.URL), strings.Join(want, " "))
	}
	if n := t.stepUps.Add(1); n > MaxScopeStepUps {
		return fmt.Errorf("%s asked for wider scopes %d times on this connection (MaxScopeStepUps is %d); now for %q: check the server's scope requirements", publicURL(t.client.cfg.URL), n, MaxScopeStepUps, strings.Join(want, " "))
	}
	if err := t.client.save(func(e *TokenEntry) { e.StepUpScopes = scopes }); err != nil {
		return err
	}
	var opts *LoginOptions
	if t.authorizer != nil {
		opts = t.authorizer(ctx)
	}
	if opts == nil {
		return t.client.needsAuth(fmt.Sprintf("this request needs the wider scope %q", strings.Join(scopes, " ")))
	}
	return t.client.login(ctx, *opts, scopes)
}
