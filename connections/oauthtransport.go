package connections

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxScopeStepUps bounds the authorizations one connection runs for wider
// scopes (403 insufficient_scope): a server that keeps asking for more
// gets an error, not an endless loop of browser pages.
const MaxScopeStepUps = 3

// MaxListenRefusals bounds the tries of a listening stream (the GET that
// carries the server's requests and notifications) that the server
// refuses with 401 although a renewed token was just sent: mcp-go tries
// again every second forever, and each try would refresh the token.
// After these, dispatch stops listening (calls still work) and says so.
const MaxListenRefusals = 3

// listenRetryBase is the wait before the second try of a refused
// listening stream; each later try waits twice as long.
const listenRetryBase = time.Second

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
	// listenRefusals counts the listening stream's 401s in a row.
	listenRefusals atomic.Int32
	log            *slog.Logger
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
		return nil, &crossOriginError{from: home, to: req.URL, carried: "the server's access token",
			fix: "if the server has moved there, put its new URL in the config"}
	}
	token, err := t.client.accessToken(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	listening := isListeningStream(req)
	if listening {
		if resp, err := t.beforeListening(req); resp != nil || err != nil {
			return resp, err
		}
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
		case resp.StatusCode == http.StatusUnauthorized && listening && (renewed || t.listenRefusals.Load() > 0):
			discard(resp)
			return t.listenRefused(req)
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
			if listening && resp.StatusCode < 300 {
				t.listenRefusals.Store(0)
			}
			return resp, nil
		}
	}
}

// isListeningStream reports whether req opens a streamable HTTP session's
// listening stream: a GET on a session.
func isListeningStream(req *http.Request) bool {
	return req.Method == http.MethodGet && req.Header.Get(headerSessionID) != ""
}

// beforeListening waits before another try of a listening stream the
// server refused, longer each time; after MaxListenRefusals it answers
// for the server that the stream is not offered (405), which makes mcp-go
// stop listening.
func (t *oauthTransport) beforeListening(req *http.Request) (*http.Response, error) {
	n := t.listenRefusals.Load()
	if n >= MaxListenRefusals {
		return notListening(req), nil
	}
	if n == 0 {
		return nil, nil
	}
	wait := time.NewTimer(listenRetryBase << (n - 1))
	defer wait.Stop()
	select {
	case <-wait.C:
		return nil, nil
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
}

// listenRefused counts a refusal of the listening stream, says so in the
// log, and gives up on the stream after MaxListenRefusals.
func (t *oauthTransport) listenRefused(req *http.Request) (*http.Response, error) {
	n := t.listenRefusals.Add(1)
	server := publicURL(t.client.cfg.URL)
	if n >= MaxListenRefusals {
		t.log.Warn("oauth: stopped listening to the server: it refused the listening stream (401) with a token its requests accept; its requests and notifications outside calls will not arrive until it reconnects",
			"server", server, "refusals", n)
		return notListening(req), nil
	}
	t.log.Warn("oauth: the server refused the listening stream (401) with a token just renewed; trying again later",
		"server", server, "refusals", n, "max", MaxListenRefusals, "retry_in", (listenRetryBase << (n - 1)).String())
	return nil, t.client.needsAuth("the server refused the listening stream with a token it was just given")
}

// notListening is the answer of a server that offers no listening stream.
func notListening(req *http.Request) *http.Response {
	return &http.Response{StatusCode: http.StatusMethodNotAllowed, Status: "405 Method Not Allowed (dispatch stopped listening: the server kept refusing the stream)",
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: http.NoBody, Request: req}
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
		return &scopeRefusal{fmt.Sprintf("%s refused the request (403 insufficient_scope) asking for scope %q, which dispatch already asked for: the account lacks that permission, and authorizing again would not help", publicURL(t.client.cfg.URL), strings.Join(want, " "))}
	}
	if n := t.stepUps.Add(1); n > MaxScopeStepUps {
		return &scopeRefusal{fmt.Sprintf("%s asked for wider scopes %d times on this connection (MaxScopeStepUps is %d); now for %q: check the server's scope requirements", publicURL(t.client.cfg.URL), n, MaxScopeStepUps, strings.Join(want, " "))}
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

// scopeRefusal is a server's 403 insufficient_scope that dispatch does not
// answer with a wider authorization: the server answered, and is there.
type scopeRefusal struct{ msg string }

func (e *scopeRefusal) Error() string   { return e.msg }
func (e *scopeRefusal) serverAnswered() {}
