package connections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Grace periods when stopping a stdio server: first its stdin is closed (the
// MCP way to ask it to exit), then its process group gets SIGTERM, then
// SIGKILL.
const (
	groupTermGrace = 2 * time.Second
	// stderrWaitDelay bounds how long exec waits for a stderr pipe that a
	// grandchild keeps open after the server exited.
	stderrWaitDelay = time.Second
)

// session is one live connection to a server: one process for stdio, one
// HTTP session otherwise. When it dies it is replaced, never revived.
type session struct {
	client    *client.Client
	transport transport.Interface
	cancelCtx context.CancelFunc // ends the transport's long-lived streams

	mu  sync.Mutex
	cmd *exec.Cmd // stdio only, set once started

	dead      atomic.Bool
	closeOnce sync.Once
}

// startSession starts the transport for cfg. For stdio the child runs in
// its own process group, so closing the session also ends whatever the
// server spawned (npx, uvx and their grandchildren).
func startSession(cfg ServerConfig, stderr io.Writer) (*session, error) {
	sess := &session{}
	// The transport's streams live as long as the session, not as long as
	// the call that happened to start it.
	ctx, cancel := context.WithCancel(context.Background())
	sess.cancelCtx = cancel

	var (
		t   transport.Interface
		err error
	)
	switch cfg.Transport {
	case TransportStdio:
		env := make([]string, 0, len(cfg.Env))
		for k, v := range cfg.Env {
			env = append(env, k+"="+v)
		}
		t = transport.NewStdioWithOptions(cfg.Command, env, cfg.Args,
			transport.WithCommandFunc(func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
				// exec.Command, not CommandContext: a start-up context must
				// not kill the server once the start-up is over.
				cmd := exec.Command(command, args...)
				cmd.Env = append(os.Environ(), env...)
				cmd.Dir = cfg.Cwd
				cmd.Stderr = stderr
				cmd.WaitDelay = stderrWaitDelay
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				sess.mu.Lock()
				sess.cmd = cmd
				sess.mu.Unlock()
				return cmd, nil
			}),
			transport.WithCommandLogger(slog.New(slog.DiscardHandler)))
	case TransportHTTP:
		t, err = transport.NewStreamableHTTP(cfg.URL,
			transport.WithHTTPHeaders(cfg.Headers),
			transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	case TransportSSE:
		t, err = transport.NewSSE(cfg.URL,
			transport.WithHeaders(cfg.Headers),
			transport.WithSSELogger(slog.New(slog.DiscardHandler)))
	default:
		err = fmt.Errorf("unknown transport %q", cfg.Transport)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	sess.transport = t
	sess.client = client.NewClient(t, client.WithProtocolVersion(protocolVersionOf(cfg)))
	// client.Start registers the notification handlers; without it progress
	// and list_changed notifications are silently dropped.
	if err := sess.client.Start(ctx); err != nil {
		sess.close(nil)
		return nil, explainStartErr(cfg, err)
	}
	return sess, nil
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
		return fmt.Errorf("command %q not found or not executable: check the command and PATH", filepath.Base(cfg.Command))
	}
	var pathErr *os.PathError
	if errors.As(err, &pathErr) && cfg.Cwd != "" && strings.Contains(err.Error(), "chdir") {
		return fmt.Errorf("working directory %q: %w", cfg.Cwd, pathErr.Err)
	}
	return err
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

func (s *session) process() *os.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	return s.cmd.Process
}

// waitExit waits up to d for a stdio child to exit, so that its last words
// on stderr are captured before an error is reported.
func (s *session) waitExit(d time.Duration) {
	p := s.process()
	if p == nil {
		return
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !processRunning(p.Pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processRunning reports whether pid is alive and not a zombie.
func processRunning(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesized command name.
	stat := string(data)
	if i := strings.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// groupAlive reports whether any process of group pgid is still running.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// close ends the session: the transport first (stdin closed, then the
// child signalled), then whatever is left of the process group. It is
// idempotent.
func (s *session) close(log *slog.Logger) {
	s.closeOnce.Do(func() {
		s.dead.Store(true)
		if s.cancelCtx != nil {
			s.cancelCtx()
		}
		p := s.process()
		if s.transport != nil {
			if err := s.transport.Close(); err != nil && log != nil {
				log.Debug("close transport", "error", err.Error())
			}
		}
		if p == nil {
			return
		}
		pgid := p.Pid
		if !groupAlive(pgid) {
			return
		}
		if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
			return
		}
		deadline := time.Now().Add(groupTermGrace)
		for time.Now().Before(deadline) && groupAlive(pgid) {
			time.Sleep(25 * time.Millisecond)
		}
		if groupAlive(pgid) {
			if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && log != nil {
				log.Debug("kill process group", "pgid", pgid, "error", err.Error())
			}
		}
	})
}
