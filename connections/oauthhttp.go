package connections

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxOAuthResponse bounds every answer of an authorization server (its
// metadata, registration, token endpoints): a hostile server could
// otherwise make dispatch allocate until OAuthHTTPTimeout.
const maxOAuthResponse = 1 << 20

// newOAuthHTTPClient is the HTTP client of every request to an
// authorization server.
func newOAuthHTTPClient() *http.Client {
	return &http.Client{Timeout: OAuthHTTPTimeout, Transport: boundedAnswers{next: http.DefaultTransport, max: maxOAuthResponse},
		CheckRedirect: credentialsStayHome}
}

// credentialsStayHome refuses to follow a request that carries credentials
// (a POST to the token or registration endpoint: a grant, a client secret,
// a refresh token in its form or its Basic header) to another origin. Go
// re-sends a 307/308's body, and keeps Authorization for another port of
// the same host. Metadata GETs carry nothing and may go anywhere.
func credentialsStayHome(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer") // it would quote the URL before, query included
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0]
	if first.Method == http.MethodGet && first.Header.Get("Authorization") == "" {
		return nil
	}
	if !sameOrigin(first.URL, req.URL) {
		return &crossOriginError{from: first.URL, to: req.URL, carried: "credentials (a grant, a client secret or a refresh token)",
			fix: "the authorization server's metadata names an endpoint that sends them elsewhere; tell the authorization server's operator"}
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), a default port written or not.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// crossOriginError: a request with credentials was redirected to another
// origin, and not sent there. The server was reached: the error says so,
// and what to do, which depends on who redirected.
type crossOriginError struct {
	from, to *url.URL
	carried  string // what the request would have taken along
	fix      string
}

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("%s redirected the request to %s, another origin; dispatch does not follow a redirect with %s to another origin: %s", originOf(e.from), originOf(e.to), e.carried, e.fix)
}

func (e *crossOriginError) hintsItself() {}

// hintsItself is an error whose text already ends with what to do, so a
// LoginError does not add its step's usual hint after it: two hints back
// to back read as two problems, and the step's would be the wrong fix.
type hintsItself interface{ hintsItself() }

// withoutRequestURL returns the crossOriginError inside err, if any, for
// http.Client's url.Error repeats the whole request URL (which may hold a
// credential) before the redirect error that already names both origins.
func withoutRequestURL(err error) error {
	var coe *crossOriginError
	if errors.As(err, &coe) {
		return coe
	}
	return err
}

// originOf is u's scheme://host:port, without path or query (which may
// hold a credential).
func originOf(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// boundedAnswers cuts every response body at max bytes with an error.
type boundedAnswers struct {
	next http.RoundTripper
	max  int64
}

func (b boundedAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{body: resp.Body, left: b.max, max: b.max, host: r.URL.Host}
	return resp, nil
}

type boundedBody struct {
	body      io.ReadCloser
	left, max int64
	host      string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.body.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, &answerTooLargeError{host: b.host, max: b.max}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.body.Close() }

// answerTooLargeError: an authorization server's answer passed maxOAuthResponse.
type answerTooLargeError struct {
	host string
	max  int64
}

func (e *answerTooLargeError) Error() string {
	return fmt.Sprintf("the answer of %s is larger than %d KiB, more than any authorization server sends, and was not read further: check that %s is the authorization server meant (the MCP server's metadata names it), or tell its operator", e.host, e.max>>10, e.host)
}

func (e *answerTooLargeError) hintsItself() {}
