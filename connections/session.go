package connections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Grace periods when stopping a stdio server: first its stdin is closed (the
// MCP way to ask it to exit), then its process group gets SIGTERM, then
// SIGKILL. Together they stay well under the 2 s an agent's MCP client
// (the official SDKs) gives dispatch to exit after closing its stdin.
const (
	stdinCloseGrace = 500 * time.Millisecond
	termGrace       = 500 * time.Millisecond
)

// session is one live connection to a server: one process for stdio, one
// HTTP session otherwise. When it dies it is replaced, never revived.
type session struct {
	client    *client.Client
	transport transport.Interface
	stdio     *stdioTransport    // nil for HTTP and SSE
	http      *httpRoundTripper  // nil for stdio
	cancelCtx context.CancelFunc // ends the transport's long-lived streams

	// declared are the client capabilities dispatch declared to the
	// server; modern says the 2026-07-28 protocol was negotiated, where
	// they travel again in every request's _meta.
	declared   mcp.ClientCapabilities
	modern     bool
	protocol   string
	clientInfo mcp.Implementation

	dead      atomic.Bool
	closeOnce sync.Once
}

// startSession starts the transport for cfg and the mcp-go client over it,
// giving up when startCtx ends. With listen, a streamable HTTP session also
// opens the server's GET stream, where mcp-go servers send their requests
// to the client (sampling, elicitation, roots) and what they say while no
// call is in flight.
//
// oauth, when set, wraps the HTTP transport of an http(s) server with its
// OAuth client (oauthTransport).
func startSession(startCtx context.Context, cfg ServerConfig, stderr io.Writer, stdioOpts stdioOptions, listen bool, oauth func(http.RoundTripper) http.RoundTripper) (*session, error) {
	sess := &session{}
	// The transport's streams live as long as the session, not as long as
	// the call that happened to start it.
	ctx, cancel := context.WithCancel(context.Background())
	sess.cancelCtx = cancel

	var err error
	switch cfg.Transport {
	case TransportStdio:
		sess.stdio = newStdioTransport(cfg, stderr, stdioOpts)
		sess.transport = sess.stdio
	case TransportHTTP:
		var httpClient *http.Client
		httpClient, sess.http = newHTTPClient(oauth, httpLimits{maxMessage: int64(stdioOpts.maxMessage), streamable: true}, stdioOpts.redactor)
		opts := []transport.StreamableHTTPCOption{
			transport.WithHTTPBasicClient(httpClient),
			transport.WithHTTPHeaders(cfg.Headers),
			transport.WithHTTPLogger(slog.New(slog.DiscardHandler)),
		}
		if listen {
			opts = append(opts, transport.WithContinuousListening())
		}
		sess.transport, err = transport.NewStreamableHTTP(cfg.URL, opts...)
	case TransportSSE:
		var httpClient *http.Client
		httpClient, sess.http = newHTTPClient(oauth, httpLimits{maxMessage: int64(stdioOpts.maxMessage)}, stdioOpts.redactor)
		sseOpts := []transport.ClientOption{
			transport.WithHTTPClient(httpClient),
			transport.WithHeaders(cfg.Headers),
			transport.WithSSELogger(slog.New(slog.DiscardHandler)),
		}
		var sse *transport.SSE
		if sse, err = transport.NewSSE(cfg.URL, sseOpts...); err == nil {
			requests := newSSEServerRequests(ctx, httpClient, cfg.Headers, stdioOpts.requestTimeout)
			requests.endpoint = sse.GetEndpoint
			sess.http.sseRequests = requests
			sess.http.sseURL, err = url.Parse(cfg.URL)
			sess.transport = &sseTransport{SSE: sse, requests: requests}
		}
	default:
		err = fmt.Errorf("unknown transport %q", cfg.Transport)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	sess.client = client.NewClient(sess.transport, client.WithProtocolVersion(protocolVersionOf(cfg)))
	// client.Start starts the transport and registers the notification
	// handlers; without it progress and list_changed are silently dropped.
	// It runs under the session's context (its streams must outlive this
	// function), so it is raced against startCtx: an SSE server that
	// accepts the connection and never answers would block it forever.
	started := make(chan error, 1)
	go func() { started <- sess.client.Start(ctx) }()
	select {
	case err := <-started:
		if err != nil {
			sess.close(nil)
			return nil, explainStartErr(cfg, err)
		}
		return sess, nil
	case <-startCtx.Done():
		cancel() // aborts the request Start is waiting on, so it returns
		go func() {
			<-started
			sess.close(nil)
		}()
		return nil, fmt.Errorf("%w: the server did not answer the connection", startCtx.Err())
	}
}

func protocolVersionOf(cfg ServerConfig) string {
	if cfg.ProtocolVersion != "" {
		return cfg.ProtocolVersion
	}
	return DefaultProtocolVersion
}

// explainStartErr names the command by its base name only: lists and
// errors never show a server's full command line.
func explainStartErr(cfg ServerConfig, err error) error {
	var execErr *exec.Error
	if errors.As(err, &execErr) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		if cfg.Cwd != "" {
			if _, statErr := os.Stat(cfg.Cwd); statErr != nil {
				return fmt.Errorf("working directory %q: %w", cfg.Cwd, statErr)
			}
		}
		if name, ok := envAssignment(cfg.Command); ok {
			// The value is never shown: it is often a token.
			return fmt.Errorf("command %q is an environment variable setting, not a program: write the server as \"env %s=… COMMAND ARGS\", or set %s in the env of its config entry (a TOML [servers.NAME.env] table or an mcpServers \"env\" object)",
				name+"=…", name, name)
		}
		if errors.Is(err, exec.ErrDot) {
			return dotCommandErr(cfg.Command)
		}
		return commandErr(cfg.Command, cfg.Cwd)
	}
	return explainHTTPErr(cfg, err)
}

// commandErr says why command cannot run, in terms of what was given: a
// path is looked at (a relative one from the server's working directory,
// where it runs), a bare name was looked for in PATH.
func commandErr(command, cwd string) error {
	name := filepath.Base(command)
	if !strings.ContainsRune(command, '/') && !strings.ContainsRune(command, filepath.Separator) {
		return fmt.Errorf("command %q not found in PATH (or not executable): check its name and PATH", name)
	}
	path := command
	if cwd != "" && !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("command %q not found: nothing is at the path given; check the path", name)
	case err != nil:
		return fmt.Errorf("command %q cannot be looked at: %w", name, errors.Unwrap(err))
	case fi.IsDir():
		return fmt.Errorf("command %q is a directory, not a program: give the program inside it", name)
	}
	return fmt.Errorf("command %q is not executable: %s", name, notExecutableAdvice)
}

// envAssignment reports whether command is NAME=VALUE, as a shell would
// take for an environment variable set for the command after it, and
// returns NAME.
func envAssignment(command string) (string, bool) {
	name, _, found := strings.Cut(command, "=")
	if !found || name == "" {
		return "", false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'A' && r <= 'Z') && !(r >= 'a' && r <= 'z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return "", false
		}
	}
	return name, true
}

// cancel tells the server to stop working on a request whose caller gave
// up. It is best effort and never blocks the caller.
func (s *session) cancel(id mcp.RequestId, reason string) {
	if s.dead.Load() {
		return
	}
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
		},
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.transport.SendNotification(ctx, n); errors.Is(err, transport.ErrTransportClosed) {
			s.dead.Store(true)
		}
	}()
}

// alive reports whether the session can still serve requests.
func (s *session) alive() bool {
	return !s.dead.Load() && (s.stdio == nil || (!s.stdio.hasExited() && !s.stdio.broken.Load()))
}

// waitExit waits up to d for a stdio child to exit, so that its last words
// on stderr are captured before an error is reported.
func (s *session) waitExit(d time.Duration) {
	if s.stdio == nil {
		return
	}
	select {
	case <-s.stdio.done:
	case <-time.After(d):
	}
}

// close ends the session and, for stdio, the server's whole process group.
// It is idempotent.
func (s *session) close(log *slog.Logger) {
	s.closeOnce.Do(func() {
		s.dead.Store(true)
		if s.cancelCtx != nil {
			s.cancelCtx()
		}
		if s.transport == nil {
			return
		}
		err := s.transport.Close()
		if log == nil {
			return
		}
		if err != nil {
			log.Debug("close transport", "error", err.Error())
		}
		if s.stdio != nil {
			// How it ended tells a server that exits on stdin EOF from one
			// that needed a signal.
			log.Debug("server stopped", "how", s.stdio.exitError().Error())
		}
	})
}
