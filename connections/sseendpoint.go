package connections

import (
	"fmt"
	"net/http"
	"net/url"
)

// A legacy SSE server names the endpoint its client POSTs messages to in
// an "endpoint" event. mcp-go checks only that its host (with the port
// as written) is the SSE URL's, so an https server could name an http
// endpoint on the same host, and every message, with the configured
// headers (API keys), would then go out in clear. So every request of a
// legacy SSE session must go to the SSE URL's origin: scheme, host and
// port (a default port written or not).

// endpointOriginError: a legacy SSE server named a message endpoint of
// another origin than its SSE URL's, and nothing was sent there.
type endpointOriginError struct {
	sse, endpoint *url.URL
}

func (e *endpointOriginError) Error() string {
	return fmt.Sprintf("the SSE server at %s named %s as its message endpoint, another scheme, host or port; dispatch sends no message there, as the server's configured headers would go along (in clear, for http): have the server name an endpoint on %s, or connect to the origin it names",
		originOf(e.sse), originOf(e.endpoint), originOf(e.sse))
}

// serverAnswered: the server was reached, and named the endpoint.
func (e *endpointOriginError) serverAnswered() {}

// refuseOtherOrigin returns an endpointOriginError when req, a request
// of a legacy SSE session whose SSE URL is sse, goes to another origin.
func refuseOtherOrigin(sse *url.URL, req *http.Request) error {
	if sse == nil || sameOrigin(sse, req.URL) {
		return nil
	}
	return &endpointOriginError{sse: sse, endpoint: req.URL}
}
