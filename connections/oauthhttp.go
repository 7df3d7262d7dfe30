package connections

import (
	"fmt"
	"io"
	"net/http"
)

// maxOAuthResponse bounds every answer of an authorization server (its
// metadata, registration, token endpoints): a hostile server could
// otherwise make dispatch allocate until OAuthHTTPTimeout.
const maxOAuthResponse = 1 << 20

// newOAuthHTTPClient is the HTTP client of every request to an
// authorization server.
func newOAuthHTTPClient() *http.Client {
	return &http.Client{Timeout: OAuthHTTPTimeout, Transport: boundedAnswers{next: http.DefaultTransport, max: maxOAuthResponse}}
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
