package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mcpHTTPServer is a real mcp-go server with one tool, echo, served over
// streamable HTTP (at /mcp) or SSE (at /sse) on a loopback port it can be
// stopped and started again on, as a server restarting.
type mcpHTTPServer struct {
	t    *testing.T
	mode Transport
	addr string
	// badRequest answers a session the server does not know with 400 "No
	// valid session ID provided", as servers built on the TypeScript SDK
	// (server-everything) do, instead of mcp-go's 404.
	badRequest bool
	srv        *http.Server
}

func startMCPHTTP(t *testing.T, mode Transport, badRequest bool) *mcpHTTPServer {
	t.Helper()
	s := &mcpHTTPServer{t: t, mode: mode, addr: "127.0.0.1:0", badRequest: badRequest}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *mcpHTTPServer) url() string {
	if s.mode == TransportSSE {
		return "http://" + s.addr + "/sse"
	}
	return "http://" + s.addr + "/mcp"
}

func (s *mcpHTTPServer) config() ServerConfig {
	return ServerConfig{Transport: s.mode, URL: s.url()}
}

// start serves a new server instance, which knows none of the sessions
// of the previous one.
func (s *mcpHTTPServer) start() {
	s.t.Helper()
	mcpSrv := server.NewMCPServer("restartable", "1", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("message")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	var handler http.Handler
	if s.mode == TransportSSE {
		handler = server.NewSSEServer(mcpSrv)
	} else {
		handler = server.NewStreamableHTTPServer(mcpSrv)
		if s.badRequest {
			handler = &sessionCheckingHandler{next: handler, known: map[string]bool{}}
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", handler)
		handler = mux
	}
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatalf("listen on %s: %v", s.addr, err)
	}
	s.addr = l.Addr().String()
	s.srv = &http.Server{Handler: handler}
	// A restarted process has no connection left to reuse, whereas a
	// client could otherwise send its next request on a kept-alive one
	// before it notices the close, in the microseconds this restart takes.
	s.srv.SetKeepAlivesEnabled(false)
	go func() {
		if err := s.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.t.Errorf("serve: %v", err)
		}
	}()
}

func (s *mcpHTTPServer) stop() {
	if s.srv != nil {
		if err := s.srv.Close(); err != nil {
			s.t.Logf("close server: %v", err)
		}
		s.srv = nil
	}
}

func (s *mcpHTTPServer) restart() {
	s.stop()
	s.start()
}

// sessionCheckingHandler answers a request on a session it did not issue
// the way the TypeScript SDK's example servers do.
type sessionCheckingHandler struct {
	next  http.Handler
	mu    sync.Mutex
	known map[string]bool
}

func (h *sessionCheckingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	h.mu.Lock()
	known := h.known[id]
	h.mu.Unlock()
	if id != "" && !known {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":"x"}`)
		return
	}
	h.next.ServeHTTP(&sessionRecorder{ResponseWriter: w, h: h}, r)
}

type sessionRecorder struct {
	http.ResponseWriter
	h *sessionCheckingHandler
}

func (r *sessionRecorder) WriteHeader(code int) {
	if id := r.Header().Get("Mcp-Session-Id"); id != "" {
		r.h.mu.Lock()
		r.h.known[id] = true
		r.h.mu.Unlock()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *sessionRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func testConn(t *testing.T, cfg ServerConfig) *Conn {
	t.Helper()
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return set.Conns()[0]
}

func callEcho(t *testing.T, c *Conn, message string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args, err := json.Marshal(map[string]string{"message": message})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Call(ctx, CallRequest{Tool: "echo", Arguments: args, Timeout: 10 * time.Second})
	if err != nil {
		return "", err
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &result); err != nil || len(result.Content) != 1 {
		t.Fatalf("echo result %s: %v", raw, err)
	}
	return result.Content[0].Text, nil
}

// A streamable HTTP server that restarted while dispatch was idle no
// longer knows the session: whether it says so with 404 (mcp-go) or 400
// "No valid session ID provided" (the TypeScript SDK), the next call and
// the next refresh open a new session and succeed.
func TestConn_HTTPServerRestartOpensNewSession(t *testing.T) {
	for _, badRequest := range []bool{false, true} {
		t.Run(fmt.Sprintf("answers400=%v", badRequest), func(t *testing.T) {
			srv := startMCPHTTP(t, TransportHTTP, badRequest)
			c := testConn(t, srv.config())
			if got, err := callEcho(t, c, "one"); err != nil || got != "one" {
				t.Fatalf("first call: %q, %v", got, err)
			}

			srv.restart()
			if got, err := callEcho(t, c, "two"); err != nil || got != "two" {
				t.Errorf("call after a restart: %q, %v", got, err)
			}

			srv.restart()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tools, err := c.Tools(ctx, true)
			if err != nil || len(tools) != 1 {
				t.Errorf("refresh after a restart: %d tools, %v", len(tools), err)
			}
			if st := c.State(); st.Status != StatusReady {
				t.Errorf("status after refresh = %s (%s)", st.Status, st.LastError)
			}
			if got, err := callEcho(t, c, "three"); err != nil || got != "three" {
				t.Errorf("call after refresh: %q, %v", got, err)
			}
		})
	}
}

// A streamable HTTP or SSE server lost while dispatch is idle shows as
// failed, saying why, by the time list asks (Probe), not "ready"; once it
// is back, the next call reconnects.
func TestConn_NetworkServerLostWhileIdleShowsFailed(t *testing.T) {
	for _, mode := range []Transport{TransportHTTP, TransportSSE} {
		t.Run(string(mode), func(t *testing.T) {
			srv := startMCPHTTP(t, mode, false)
			c := testConn(t, srv.config())
			if got, err := callEcho(t, c, "one"); err != nil || got != "one" {
				t.Fatalf("first call: %q, %v", got, err)
			}
			srv.stop()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c.Probe(ctx)
			st := c.State()
			if st.Status != StatusFailed || !strings.Contains(st.LastError, "connection lost") {
				t.Errorf("state of a server lost while idle = %s, %q; want failed, connection lost", st.Status, st.LastError)
			}
			srv.start()
			if got, err := callEcho(t, c, "two"); err != nil || got != "two" {
				t.Errorf("call once the server is back: %q, %v", got, err)
			}
			c.Probe(ctx)
			if st := c.State(); st.Status != StatusReady {
				t.Errorf("state once back = %s (%s)", st.Status, st.LastError)
			}
		})
	}
}

func TestSessionForgotten(t *testing.T) {
	tests := []struct {
		name    string
		session string
		status  int
		body    string
		want    bool
	}{
		{"404 on a session", "s1", 404, "", true},
		{"400 naming the session (TypeScript SDK)", "s1", 400, `{"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`, true},
		{"400 naming the session in another case", "s1", 400, "Invalid SESSION", true},
		{"400 about something else", "s1", 400, `{"error":{"message":"Parse error"}}`, false},
		{"400 with an empty body", "s1", 400, "", false},
		{"404 without a session", "", 404, "", false},
		{"400 naming a session, without one", "", 400, "No valid session ID provided", false},
		{"401 naming the session", "s1", 401, "session token expired", false},
		{"500 naming the session", "s1", 500, "session store down", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sessionForgotten(tt.session, tt.status, []byte(tt.body)); got != tt.want {
				t.Errorf("sessionForgotten(%q, %d, %q) = %v, want %v", tt.session, tt.status, tt.body, got, tt.want)
			}
		})
	}
}

// Failing to start a network server says once, plainly, what happened and
// what to check, naming the URL without credentials; only a 404 or 405 at
// initialize suggests the legacy SSE transport, beside a wrong path.
func TestConn_NetworkStartErrorsAreClear(t *testing.T) {
	closedPort := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		return addr
	}()
	streamable := startMCPHTTP(t, TransportHTTP, false)
	refusing := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "missing tenant", http.StatusBadRequest)
	}))

	tests := []struct {
		name    string
		cfg     ServerConfig
		want    []string
		notWant []string
	}{
		{
			name:    "connection refused, streamable HTTP",
			cfg:     ServerConfig{Transport: TransportHTTP, URL: "http://user:hunter2pass@" + closedPort + "/mcp?token=qwertyuiop"},
			want:    []string{"cannot reach http://" + closedPort + "/mcp: connection refused"},
			notWant: []string{"failed to send request: failed to send request", "hunter2pass", "qwertyuiop", "SSE"},
		},
		{
			name:    "connection refused, SSE",
			cfg:     ServerConfig{Transport: TransportSSE, URL: "http://" + closedPort + "/sse?key=qwertyuiop"},
			want:    []string{"cannot reach http://" + closedPort + "/sse: connection refused"},
			notWant: []string{"failed to send request: failed to send request", "qwertyuiop"},
		},
		{
			name:    "404 at initialize: wrong path or legacy SSE",
			cfg:     ServerConfig{Transport: TransportHTTP, URL: "http://" + streamable.addr + "/wrong"},
			want:    []string{"answered HTTP 404 to initialize", "check the URL's path", "sse+", `"type": "sse"`},
			notWant: []string{"likely a legacy SSE server"},
		},
		{
			name:    "400 at initialize is no sign of SSE",
			cfg:     ServerConfig{Transport: TransportHTTP, URL: refusing + "/mcp"},
			want:    []string{"answered HTTP 400 to initialize", "missing tenant"},
			notWant: []string{"SSE", "sse+"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testConn(t, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := c.Connect(ctx)
			if err == nil {
				t.Fatal("connected")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(err.Error(), nw) {
					t.Errorf("error %q contains %q", err, nw)
				}
			}
		})
	}
}
