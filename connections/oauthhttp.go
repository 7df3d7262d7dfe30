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
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0]
	if first.Method == http.MethodGet && first.Header.Get("Authorization") == "" {
		return nil
	}
	if !sameOrigin(first.URL, req.URL) {
		return &crossOriginError{from: first.URL, to: req.URL}
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
// origin, and not sent there.
type crossOriginError struct{ from, to *url.URL }

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("%s redirected to %s, another origin: dispatch does not send credentials (tokens, grants, client secrets) anywhere but where they belong; check the server's or authorization server's URL", originOf(e.from), originOf(e.to))
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
	return fmt.Sprintf("the answer of %s is larger than %d KiB, more than any authorization server sends: it is not read further; check the server's OAuth configuration", e.host, e.max>>10)
}
