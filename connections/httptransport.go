package connections

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
)

// headerSessionID is the streamable HTTP session header.
const headerSessionID = "Mcp-Session-Id"

// httpRoundTripper sits under mcp-go's HTTP transports. mcp-go takes only a
// 404 as "the server forgot the session", but servers built on the
// TypeScript SDK (server-everything among them) answer 400 "No valid
// session ID provided" after a restart: such an answer is turned into the
// 404 it means, so that the session is re-initialized instead of every later
// call failing. It also remembers the last error status and the start of
// its body, which mcp-go drops when initialize is refused. And it watches
// how deep and how long the answers are (guardAnswer), and keeps the ids
// of the server's requests exact (serverids.go).
type httpRoundTripper struct {
	base http.RoundTripper

	// nesting fails the requests whose answers nest too deep to decode,
	// or are longer than limits allow.
	nesting nestingGuard
	limits  httpLimits
	// ids are the surrogates of the server's request ids (serverids.go).
	ids serverIDs
	// sseRequests, for a legacy SSE server, answers its requests
	// (sserequests.go).
	sseRequests *sseServerRequests
	// sseURL, for a legacy SSE server, is its SSE URL, whose origin all
	// the session's requests must go to (sseendpoint.go).
	sseURL *url.URL
	// refusalSlots holds a token per refusal of a server's request being
	// posted (serveridsfull.go).
	refusalSlots chan struct{}

	// redactor masks what errors quote of the server's answers before
	// they are cut (quote): a server may echo the request's credential.
	redactor *Redactor

	mu         sync.Mutex
	lastStatus int
	lastBody   string // masked
	lastUnread bool   // the body went on past lastBody
}

// newHTTPClient is the client of an http(s) server's transport; wrap, when
// set, puts the OAuth client under it. r masks the server's words that
// its errors quote (nil: the shapes of credentials only).
func newHTTPClient(wrap func(http.RoundTripper) http.RoundTripper, limits httpLimits, r *Redactor) (*http.Client, *httpRoundTripper) {
	var base http.RoundTripper = http.DefaultTransport
	if wrap != nil {
		base = wrap(base)
	}
	rt := &httpRoundTripper{base: base, limits: limits, redactor: r, refusalSlots: make(chan struct{}, MaxServerRequests)}
	return &http.Client{Transport: rt, CheckRedirect: redirectsStayHome}, rt
}

func (rt *httpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := refuseOtherOrigin(rt.sseURL, req); err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body it was given
		}
		return nil, err
	}
	req = rt.ids.restoreAnswerID(req)
	sent := sniffRequest(req)
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return resp, explainAnswerErr(req, err, rt.redactor)
	}
	if resp.StatusCode < 400 {
		resp, err := rt.checkAnswer(req, sent, resp)
		if err != nil {
			return resp, err
		}
		// Outside the size and depth guards: the ids are swapped in what
		// they let through.
		swapServerIDs(resp, &rt.ids, rt.sseRequests, rt.refuserFor(resp))
		return resp, nil
	}
	// Only the start of an error answer is read (mcp-go would read it
	// all). Past MaxHTTPErrorBody, as much more as the longest secret is
	// read too, so that one straddling that end is masked whole before
	// the text is cut there (one byte more says whether the rest went
	// unread): cut first, a credential the server echoed would show its
	// first bytes.
	slack := min(rt.redactor.longestSecret(), MaxHTTPErrorBody)
	read, readErr := io.ReadAll(io.LimitReader(resp.Body, int64(MaxHTTPErrorBody+slack+1)))
	unread := len(read) > MaxHTTPErrorBody
	peek := read[:min(len(read), MaxHTTPErrorBody)]
	resp.Body = errorBody(peek, resp.Body)
	if readErr != nil {
		return resp, nil
	}
	shown := textStart(rt.redactor.String(string(read)), MaxHTTPErrorBody)
	rt.mu.Lock()
	rt.lastStatus, rt.lastBody, rt.lastUnread = resp.StatusCode, shown, unread
	rt.mu.Unlock()
	if sessionForgotten(req.Header.Get(headerSessionID), resp.StatusCode, peek) {
		resp.StatusCode, resp.Status = http.StatusNotFound, "404 Not Found (session no longer known)"
	}
	if refusesErrorStatus(req, sent, resp.StatusCode, peek) {
		resp.Body.Close()
		return nil, &HTTPStatusError{URL: publicURL(req.URL.String()), Status: resp.StatusCode, Body: shown, Unread: unread}
	}
	return resp, nil
}

// lastError returns the status and the start of the body, masked, of the
// last error answer, and whether its body went on past that start.
func (rt *httpRoundTripper) lastError() (status int, body string, unread bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.lastStatus, rt.lastBody, rt.lastUnread
}

// sessionForgotten reports whether an answer to a request sent on session
// means the server no longer knows that session: 404 (the protocol's way),
// or 400 whose body names the session. A request without a session cannot
// have lost one.
func sessionForgotten(session string, status int, body []byte) bool {
	if session == "" {
		return false
	}
	switch status {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		return bytes.Contains(bytes.ToLower(body), []byte("session"))
	}
	return false
}

// publicURL is a server URL fit for an error message: no user info, no
// query (either may hold a credential).
func publicURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the server's URL"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// unreachableError says once, plainly, that a server's URL could not be
// reached, where mcp-go nests "failed to send request:" and the full
// request URL several times over. It keeps the cause for errors.Is.
type unreachableError struct {
	url    string
	reason string
	cause  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s: %s", e.url, e.reason)
}
func (e *unreachableError) Unwrap() error { return e.cause }

// explainHTTPErr rewrites a network failure to reach cfg's URL into one
// clear sentence; any other error is returned as it is.
func explainHTTPErr(cfg ServerConfig, err error) error {
	if err == nil || cfg.Transport == TransportStdio {
		return err
	}
	// The server was reached; it redirected where its token may not go.
	var coe *crossOriginError
	if errors.As(err, &coe) {
		return coe
	}
	// The server answered (an error status, a wrong content type, ...).
	var answered serverAnswered
	if errors.As(err, &answered) {
		return answered
	}
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		return err
	}
	reason := urlErr.Err.Error()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused (is the server running, and is the address right?)"
	case errors.Is(err, syscall.ECONNRESET):
		reason = "connection reset by the server"
	default:
		// url.Error's own text repeats the full URL, query included.
		reason = strings.ReplaceAll(reason, urlErr.URL, publicURL(urlErr.URL))
	}
	return &unreachableError{url: publicURL(cfg.URL), reason: reason, cause: err}
}

// explainInitErr says why initialize failed, where mcp-go calls every 4xx
// answer to initialize "likely a legacy SSE server": that guess is only
// plausible for 404 and 405, and a wrong path is as likely.
func explainInitErr(cfg ServerConfig, sess *session, err error) error {
	if !errors.Is(err, transport.ErrLegacySSEServer) || sess.http == nil {
		return explainHTTPErr(cfg, err)
	}
	status, body, unread := sess.http.lastError()
	return initRefusal(publicURL(cfg.URL), status, body, unread)
}

// initRefusal explains an HTTP error status answering initialize; body,
// masked, is the start of the answer's, unread whether it went on.
func initRefusal(url string, status int, body string, unread bool) error {
	msg := fmt.Sprintf("%s answered HTTP %d to initialize", url, status)
	if status == 0 {
		msg = url + " refused initialize with an HTTP 4xx status"
	}
	if text := strings.TrimSpace(body); text != "" {
		msg += " (" + quoteMasked(text, unread) + ")"
	}
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		msg += `: check the URL's path (streamable HTTP servers usually serve /mcp); or, if this is a legacy HTTP+SSE server, select that transport with an sse+ URL (--mcp 'sse+http://HOST/sse') or "type": "sse" in the config`
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += ": check the credentials in the server's headers"
	default:
		msg += ": check the URL and the server's headers"
	}
	return errors.New(msg)
}
