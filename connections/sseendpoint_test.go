package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A legacy SSE server at http://127.0.0.1:PORT that names
// https://127.0.0.1:PORT/message as its message endpoint (the same host
// and port, so mcp-go takes it) is refused with an error naming both
// origins, and nothing is sent there. The reverse, an https server
// naming an http endpoint, sent every message and the configured headers
// in clear.
func TestConn_LegacySSEEndpointOfAnotherScheme(t *testing.T) {
	var posts atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionId=s1\n\n", strings.Replace(srv.URL, "http:", "https:", 1))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			posts.Add(1)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := testConn(t, ServerConfig{Name: "legacy", Transport: TransportSSE, URL: srv.URL + "/sse", Headers: map[string]string{"X-Api-Key": "secret-key"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Call(ctx, CallRequest{Tool: "any", Arguments: json.RawMessage(`{}`)})
	var originErr *endpointOriginError
	if !errors.As(err, &originErr) {
		t.Fatalf("got %v, want an endpointOriginError", err)
	}
	httpsOrigin := strings.Replace(srv.URL, "http:", "https:", 1)
	if msg := err.Error(); !strings.Contains(msg, srv.URL+" named "+httpsOrigin) || strings.Contains(msg, "sessionId") {
		t.Errorf("error %q does not name both origins (and only them)", msg)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d requests reached the server besides the SSE stream", n)
	}
}
