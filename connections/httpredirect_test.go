package connections

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// headerLog records the headers of every request a handler is given.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Clone())
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.seen...)
}

// echoMCPHandler is a real mcp-go streamable HTTP server with the echo tool.
func echoMCPHandler() http.Handler {
	mcpSrv := server.NewMCPServer("echo", "1", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("message")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	return server.NewStreamableHTTPServer(mcpSrv)
}

const (
	redirectSecretHeader = "SECRETAPIKEY98765432"
	redirectSecretQuery  = "SECRETQUERYKEY777777"
)

// A redirect to another origin (here another port of the same host, where
// Go itself would keep even Authorization and Cookie) is refused: the
// configured headers never reach the other server, and the error names
// both origins without the URL's query.
func TestConn_HTTPRedirectToAnotherOriginRefused(t *testing.T) {
	var other headerLog
	target := httptest.NewServer(other.wrap(echoMCPHandler()))
	t.Cleanup(target.Close)
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/mcp", code)
			}))
			t.Cleanup(redirector.Close)
			c := testConn(t, ServerConfig{Transport: TransportHTTP, URL: redirector.URL + "/mcp?api_key=" + redirectSecretQuery,
				Headers: map[string]string{"X-Api-Key": redirectSecretHeader, "Authorization": "Bearer " + redirectSecretHeader, "Cookie": "s=" + redirectSecretHeader}})
			_, err := callEcho(t, c, "hello")
			if err == nil {
				t.Fatal("a call redirected to another origin succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, redirector.URL) || !strings.Contains(msg, target.URL) || !strings.Contains(msg, "another origin") {
				t.Errorf("the error does not name both origins: %s", msg)
			}
			if strings.Contains(msg, redirectSecretQuery) || strings.Contains(msg, redirectSecretHeader) {
				t.Errorf("the error shows a credential: %s", msg)
			}
			for _, h := range other.all() {
				for name, values := range h {
					if strings.Contains(strings.Join(values, " "), "SECRET") {
						t.Errorf("the other origin received %s: %v", name, values)
					}
				}
			}
		})
	}
}

// A redirect within the origin is followed, without a Referer.
func TestConn_HTTPRedirectWithinOriginFollowed(t *testing.T) {
	var seen headerLog
	mux := http.NewServeMux()
	mux.Handle("/mcp", seen.wrap(echoMCPHandler()))
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := testConn(t, ServerConfig{Transport: TransportHTTP, URL: srv.URL + "/old?api_key=" + redirectSecretQuery,
		Headers: map[string]string{"X-Api-Key": redirectSecretHeader}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatalf("connect through a same-origin redirect: %v", err)
	}
	if got, err := callEcho(t, c, "hello"); err != nil || got != "hello" {
		t.Fatalf("call through a same-origin redirect: %q, %v", got, err)
	}
	headers := seen.all()
	if len(headers) == 0 {
		t.Fatal("the redirect target received nothing")
	}
	for _, h := range headers {
		if h.Get("X-Api-Key") != redirectSecretHeader {
			t.Errorf("the configured header did not follow a same-origin redirect")
		}
		if ref := h.Get("Referer"); ref != "" {
			t.Errorf("a Referer was sent: %s", ref)
		}
	}
}
