package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/spill"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Defaults of HTTPOptions, each also a flag of dispatch serve.
const (
	// DefaultMaxSessions bounds the HTTP sessions open at once
	// (--max-sessions); an initialize past it gets 503.
	DefaultMaxSessions = 64
	// DefaultSessionIdle is how long a session with nothing in flight
	// lives (--session-idle); then it ends and its files are deleted.
	DefaultSessionIdle = 30 * time.Minute
	// DefaultMaxHTTPInFlight bounds the HTTP requests in flight over all
	// sessions (--max-http-in-flight), and apart the sessions' bodies
	// being read; each may hold a body of up to --max-request in memory.
	// Answers, notifications, DELETE and listening streams are not
	// counted: they are how an agent frees what it holds.
	DefaultMaxHTTPInFlight = 512
	// DefaultShutdownTimeout bounds the wait at shutdown for requests in
	// flight before their connections are closed.
	DefaultShutdownTimeout = 5 * time.Second
	// MCPPath is where MCP is served.
	MCPPath = "/mcp"
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 64 << 10
	// readHeaderTimeout bounds reading a request's headers: a client that
	// opens connections and sends nothing must not hold them.
	readHeaderTimeout = 10 * time.Second
	// DefaultBodyReadTimeout bounds reading one request's body: a client
	// that trickles a body must not hold a slot for ever.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultIdleConnTimeout closes a keep-alive connection with no
	// request for this long: idle connections cost a file descriptor each,
	// and anyone who can connect (no token needed) could pile them up.
	DefaultIdleConnTimeout = 2 * time.Minute
)

// sessionProtocolVersions are the protocol versions served over HTTP: the
// ones with sessions. Version 2026-07-28 has none, and everything an agent
// owns here (its files, its relays) hangs on its session.
var sessionProtocolVersions = []string{
	mcp.ProtocolVersion20251125, "2025-06-18", "2025-03-26", "2024-11-05",
}

// HTTPOptions tune an HTTPServer.
type HTTPOptions struct {
	// Addr is the listen address as given ("host:port" or "unix:PATH"):
	// Host and Origin are checked against it.
	Addr string
	// AllowHosts are more host names by which the server may be reached
	// (--allow-host): a name of this machine, or a reverse proxy's.
	AllowHosts []string
	// Token, when set, must come with every request as a bearer token.
	Token string
	// MaxSessions bounds the sessions open at once (DefaultMaxSessions).
	MaxSessions int
	// SessionIdle ends a session idle this long (DefaultSessionIdle).
	SessionIdle time.Duration
	// MaxInFlight bounds one session's requests in flight
	// (DefaultMaxInFlight); MaxHTTPInFlight all sessions'.
	MaxInFlight     int
	MaxHTTPInFlight int
	// MaxRequestBytes bounds one request body (DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// ShutdownTimeout bounds the graceful part of shutdown.
	ShutdownTimeout time.Duration
	// BodyReadTimeout bounds reading one request body
	// (DefaultBodyReadTimeout); IdleConnTimeout a keep-alive connection
	// with no request (DefaultIdleConnTimeout).
	BodyReadTimeout time.Duration
	IdleConnTimeout time.Duration
	// NewStore opens a new private result directory: one per session.
	NewStore func() (*spill.Store, error)
	// Relay is the set of servers whose requests and logs reach sessions.
	Relay  *connections.Set
	Logger *slog.Logger
	// ServerOptions add to the MCP server's options (a Surface's
	// capabilities).
	ServerOptions []server.ServerOption
}

// HTTPServer serves proxy-dispatch over MCP streamable HTTP to many agent
// sessions at once, each with its own result files, over one shared set
// of servers.
type HTTPServer struct {
	opts       HTTPOptions
	mcp        *server.MCPServer
	streamable *server.StreamableHTTPServer
	sessions   *registry
	handler    http.Handler
	log        *slog.Logger
	// serverLevel is the log level the servers were told for the
	// sessions (see httplevels.go).
	serverLevel serverLogLevel
}

// NewHTTPServer builds the server over svc; serve it with Serve, or mount
// Handler.
func NewHTTPServer(svc *dispatch.Service, version string, opts HTTPOptions) (*HTTPServer, error) {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxHTTPInFlight <= 0 {
		opts.MaxHTTPInFlight = DefaultMaxHTTPInFlight
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.BodyReadTimeout <= 0 {
		opts.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if opts.IdleConnTimeout <= 0 {
		opts.IdleConnTimeout = DefaultIdleConnTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.NewStore == nil {
		return nil, errors.New("serve HTTP: no way to make result directories (NewStore)")
	}
	rule, err := newHostRule(opts.Addr, opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	h := &HTTPServer{opts: opts, log: opts.Logger, serverLevel: serverLogLevel{relay: opts.Relay}}
	h.sessions = &registry{max: opts.MaxSessions, svc: svc, newStore: opts.NewStore, log: opts.Logger,
		perMax: opts.MaxInFlight, byID: make(map[string]*httpSession), onEnd: h.followLogLevels}
	h.mcp = newMCPServer(version, h.handleTool, opts.ServerOptions...)
	h.followSessions(h.mcp.GetHooks())
	h.streamable = server.NewStreamableHTTPServer(h.mcp,
		server.WithEndpointPath(MCPPath),
		server.WithSessionIdManagerResolver(h.sessions),
		server.WithStreamableHTTPProtocolVersions(sessionProtocolVersions...),
		// mcp-go writes full session ids in its lines.
		server.WithStreamableHTTPLogger(slog.New(sessionLogHandler{next: opts.Logger.Handler(), sessions: h.sessions})),
		// The guard checks Host (and Origin) against the listen address
		// and --allow-host, with a log line and a hint; mcp-go's own check
		// would refuse an allowed name silently.
		server.WithDisableLocalhostProtection(true),
		// Keeps an agent's listening stream open through proxies.
		server.WithHeartbeatInterval(30*time.Second))
	mux := http.NewServeMux()
	mux.Handle(MCPPath, &guard{next: h.streamable, hosts: rule, maxBody: opts.MaxRequestBytes, bodyTimeout: opts.BodyReadTimeout, sessions: h.sessions,
		global: make(chan struct{}, opts.MaxHTTPInFlight), reading: make(chan struct{}, opts.MaxHTTPInFlight),
		sessionless: make(chan struct{}, opts.MaxSessions), log: opts.Logger, token: tokenBytes(opts.Token)})
	h.handler = mux
	if opts.Relay != nil {
		opts.Relay.SetUpstream(&noCaller{mcp: h.mcp, sessions: h.sessions})
	}
	return h, nil
}

// followSessions has the sessions' own requests reach what they concern:
// a successful initialize marks its session as one (a failed one is
// ended at once, see guard), a logging/setLevel sets the session's level
// and, through it, the servers', and a notifications/roots/list_changed
// reaches every running server, as from stdio.
func (h *HTTPServer) followSessions(hooks *server.Hooks) {
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		if sess := h.sessionOf(ctx); sess != nil {
			sess.markInitialized()
		}
	})
	hooks.AddOnRegisterSession(func(_ context.Context, client server.ClientSession) {
		if sess := h.sessions.get(client.SessionID()); sess != nil {
			sess.see(client)
		}
	})
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		sess := h.sessionOf(ctx)
		if sess == nil {
			return
		}
		sess.setLogLevel(req.Params.Level)
		sess.log.Debug("session asked for server logs", "level", string(req.Params.Level))
		h.followLogLevels()
	})
	h.mcp.AddNotificationHandler(string(mcp.MethodNotificationRootsListChanged), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if sess := h.sessionOf(ctx); sess != nil {
			// Before the servers hear of it: they ask for the roots at once.
			h.sessions.rootsChanged(sess)
		}
		if h.opts.Relay != nil {
			h.opts.Relay.RootsChanged()
		}
	})
}

func tokenBytes(token string) []byte {
	if token == "" {
		return nil
	}
	return []byte(token)
}

// MCP is the MCP server behind the HTTP transport: list_changed sent to
// all its clients reaches every session.
func (h *HTTPServer) MCP() *server.MCPServer { return h.mcp }

// Handler serves MCP at MCPPath, guarded (token, Host, Origin, bounds).
func (h *HTTPServer) Handler() http.Handler { return h.handler }

// Sessions is how many sessions are open.
func (h *HTTPServer) Sessions() int { return h.sessions.count() }

// handleTool runs proxy-dispatch in the session the request belongs to:
// its Service writes and reads only that session's files, and servers'
// requests during the call go to that session.
func (h *HTTPServer) handleTool(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var result *mcp.CallToolResult
	err := h.InSession(ctx, func(ctx context.Context, svc *dispatch.Service) error {
		var err error
		result, err = svc.HandleTool(ctx, request)
		return err
	})
	if errors.Is(err, ErrNoSession) {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return result, err
}

// ErrNoSession is InSession's answer to a request outside any session.
var ErrNoSession = errors.New("no dispatch session for this request: initialize a session over HTTP and send its Mcp-Session-Id")

// InSession runs run for the session the request belongs to, with that
// session's Service and a context whose servers' requests go to it; it
// counts as the session's call in flight. A SessionRunner.
func (h *HTTPServer) InSession(ctx context.Context, run func(context.Context, *dispatch.Service) error) error {
	client := server.ClientSessionFromContext(ctx)
	var sess *httpSession
	if client != nil {
		sess = h.sessions.get(client.SessionID())
	}
	if sess == nil {
		return ErrNoSession
	}
	ctx, done := sess.startCall(ctx)
	defer done()
	ctx = connections.WithUpstream(ctx, sess)
	return run(ctx, sess.svc)
}

// Serve serves on l until ctx ends, then shuts down: requests in flight
// get ShutdownTimeout to finish, and every session's files are deleted.
func (h *HTTPServer) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: h.handler, ReadHeaderTimeout: readHeaderTimeout, MaxHeaderBytes: maxHeaderBytes,
		IdleTimeout: h.opts.IdleConnTimeout,
		ErrorLog:    slog.NewLogLogger(h.log.Handler(), slog.LevelDebug)}
	sweepCtx, stopSweeping := context.WithCancel(ctx)
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		h.sweep(sweepCtx)
	}()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	h.log.Info("serving MCP over HTTP", "address", l.Addr().String(), "path", MCPPath)

	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	stopSweeping()
	<-swept
	h.shutdown(srv)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("serve HTTP on %s: %w", h.opts.Addr, err)
	}
	return nil
}

// shutdown stops taking requests, gives those in flight a bounded time,
// then ends every session (their calls, their files).
func (h *HTTPServer) shutdown(srv *http.Server) {
	h.sessions.refuseNew()
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.ShutdownTimeout)
	defer cancel()
	shutDown := make(chan error, 1)
	go func() { shutDown <- srv.Shutdown(ctx) }()
	// Listening streams stay open until their sessions end: end those
	// now, or Shutdown waits for them the whole bound.
	if err := h.streamable.Shutdown(ctx); err != nil {
		h.log.Debug("close the sessions' streams", "error", err.Error())
	}
	if err := <-shutDown; err != nil {
		h.log.Warn("requests still in flight at shutdown were cut off", "waited", h.opts.ShutdownTimeout.String())
		if err := srv.Close(); err != nil {
			h.log.Debug("close HTTP connections", "error", err.Error())
		}
	}
	h.sessions.closeAll()
}

// sweep ends sessions idle past SessionIdle until ctx ends.
func (h *HTTPServer) sweep(ctx context.Context) {
	interval := min(max(h.opts.SessionIdle/4, 50*time.Millisecond), time.Minute)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			for _, id := range h.sessions.idle(h.opts.SessionIdle) {
				h.expire(id)
			}
		}
	}
}

// expire ends an idle session through mcp-go's own DELETE path, so that
// mcp-go forgets it too; the registry's Terminate closes it.
func (h *HTTPServer) expire(id string) {
	if sess := h.sessions.get(id); sess != nil {
		sess.log.Info("session idle too long; ending it", "idle", h.opts.SessionIdle.String())
	}
	const why = "idle past --session-idle"
	endInMCP(h.streamable, id, why)
	h.sessions.end(id, why)
}

// endInMCP ends session id through mcp-go's own DELETE path on mcpHandler,
// so that mcp-go forgets it too; the registry's Terminate closes it and
// logs why.
func endInMCP(mcpHandler http.Handler, id, why string) {
	ctx := context.WithValue(context.Background(), endingKey{}, why)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, MCPPath, nil)
	if err != nil {
		return
	}
	req.Header.Set(server.HeaderKeySessionID, id)
	mcpHandler.ServeHTTP(discardResponse{header: http.Header{}}, req)
}

// discardResponse takes the answer to a request dispatch makes to itself.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (d discardResponse) WriteHeader(int)             {}
