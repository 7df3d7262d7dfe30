package connections

import (
	"errors"
	"net/http"
)

// maxRedirects is how many redirects one request to a remote server
// follows (Go's default).
const maxRedirects = 10

// redirectsStayHome is the redirect policy of every request to a remote
// (streamable HTTP or SSE) server. Go's default re-sends the configured
// headers (API keys, cookies) to any host, keeps Authorization and Cookie
// for another port or scheme of the same host, re-sends a 307/308's body
// (the tool's arguments), and adds a Referer holding the full URL, query
// included: a redirect to another origin would take all of that along, so
// it is refused. A redirect within the origin is followed, without a
// Referer.
func redirectsStayHome(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0]; !sameOrigin(first.URL, req.URL) {
		return &crossOriginError{from: first.URL, to: req.URL, carried: "the server's configured headers, URL and request",
			fix: "if the server moved, put its new URL in the config (and its headers only if you trust the new host)"}
	}
	return nil
}

// serverAnswered: the server answered, with a redirect.
func (e *crossOriginError) serverAnswered() {}
