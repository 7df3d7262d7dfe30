package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"dispatch/connections"
	"dispatch/upstream"
)

// SessionDaemonCmd is the session's process.
type SessionDaemonCmd struct {
	Dir  string        `name:"dir" required:"" help:"The session's directory, made and locked by session start."`
	Idle time.Duration `name:"idle" required:"" help:"End after this long without a request."`
}

// sessionLockFD is the descriptor session start passes the locked lock
// file on (the first of ExtraFiles).
const sessionLockFD = 3

func (c *SessionDaemonCmd) Run(ctx context.Context, g *Globals) error {
	// Held open for the session's life: the lock says it is alive.
	lock := os.NewFile(sessionLockFD, "lock")
	if lock == nil {
		return errors.New("session daemon: no lock file; start a session with dispatch session start")
	}
	defer lock.Close()
	// Inherited without close-on-exec, the lock would pass on to every
	// server and what they start: one outliving a SIGKILLed session would
	// keep the next start from sweeping its directory, and one that
	// unlocked it would get this live session's directory swept.
	closeOnExec(lock)
	// Last of all, after the servers and result files are gone. A session
	// that fails before it listens leaves its directory to session start,
	// which shows its log and then deletes it.
	listening := false
	defer func() {
		if listening {
			os.RemoveAll(c.Dir)
		}
	}()
	if c.Idle <= 0 {
		return &usageErr{fmt.Errorf("--idle must be positive, not %s", c.Idle)}
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxSessionSettingsBytes+1))
	if err != nil || len(data) > maxSessionSettingsBytes {
		return fmt.Errorf("session daemon: read settings (at most %d bytes) from session start: %v", maxSessionSettingsBytes, err)
	}
	if err := json.Unmarshal(data, g); err != nil {
		return fmt.Errorf("session daemon: settings from session start: %w", err)
	}
	maxRequest, err := parseLimitFlag("--max-request", g.MaxRequest, "it bounds one request to the session")
	if err != nil {
		return err
	}
	if g.SpillDir == "" {
		g.SpillDir = c.Dir // a private directory in it, like serve's
	}
	g.logTo = &cappedWriter{w: os.Stderr, left: maxSessionLogBytes}
	a, err := g.newApp(storePrivate, userPaths)
	if err != nil {
		return err
	}
	defer a.close()
	socket := filepath.Join(c.Dir, upstream.ShellSocketName)
	ln, err := upstream.Listen(upstream.UnixPrefix + socket)
	if err != nil {
		return fmt.Errorf("session socket: %w", err)
	}
	listening = true
	if g.ConfigPoll > 0 && len(g.Config) > 0 {
		watcher := &configWatcher{g: g, conns: a.conns, interval: g.ConfigPoll, log: a.log, changed: func(connections.Changes) {}}
		watchCtx, stopWatching := context.WithCancel(ctx)
		watching := make(chan struct{})
		go func() {
			defer close(watching)
			watcher.run(watchCtx)
		}()
		defer func() {
			stopWatching()
			<-watching
		}()
	}
	return upstream.ServeShell(ctx, a.svc, ln, upstream.ShellOptions{
		Socket: socket, Idle: c.Idle, MaxRequestBytes: maxRequest, MaxInFlight: g.MaxInFlight,
		Conns: a.conns, Store: a.store, Log: a.log, Explain: explainForShell,
	})
}

// explainForShell words a request's error as the command line would,
// with its exit code, for the session to send back.
func explainForShell(err error) *upstream.ShellError {
	err = shellError(err)
	return &upstream.ShellError{Message: err.Error(), Exit: classify(err)}
}

// cappedWriter writes at most left bytes, then one line saying the rest
// was dropped, then nothing: a long session's log must not fill the disk.
type cappedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	left int64
	full bool
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return len(p), nil
	}
	if int64(len(p)) > c.left {
		c.full = true
		_, err := fmt.Fprintf(c.w, "dispatch: the session log reached %d bytes (maxSessionLogBytes); later lines are dropped\n", maxSessionLogBytes)
		return len(p), err
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}
