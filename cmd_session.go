package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"

	"dispatch/upstream"
)

// Limits of starting and stopping a session.
const (
	// sessionStopTimeout bounds the wait for a stopped session to be gone.
	sessionStopTimeout = upstream.ShellShutdownGrace + 10*time.Second
	// maxSessionSettingsBytes bounds the settings a session reads at start.
	maxSessionSettingsBytes = 1 << 20
	// maxSessionLogBytes bounds a session's log file, which lives as long
	// as the session: at --log-level info it grows by a line per call.
	maxSessionLogBytes = 16 << 20
	// sessionLogName is the session's stderr, in its directory.
	sessionLogName = "session.log"
)

// SessionCmd groups the shell session commands.
type SessionCmd struct {
	Start  SessionStartCmd  `cmd:"" help:"Start dispatch in the background, with these global flags, and print the line that sets DISPATCH_SESSION: eval \"$(dispatch session start --config servers.toml)\"."`
	Status SessionStatusCmd `cmd:"" help:"Show the session's process, servers and result files."`
	Stop   SessionStopCmd   `cmd:"" help:"End the session, deleting its result files, and print the line that unsets DISPATCH_SESSION."`
	Daemon SessionDaemonCmd `cmd:"" hidden:"" help:"The session's own process (started by session start)."`
}

// shellSyntax picks export or setenv lines (unset or unsetenv to stop).
// Its help is shared by session start and session stop, so it names what
// either prints.
type shellSyntax struct {
	Csh bool `name:"csh" xor:"shell" help:"Print csh commands (setenv; unsetenv to stop); by default the syntax follows $SHELL, as ssh-agent's does."`
	Sh  bool `name:"sh" xor:"shell" help:"Print Bourne shell commands (export; unset to stop)."`
}

func (s shellSyntax) csh() bool {
	if s.Csh || s.Sh {
		return s.Csh
	}
	return strings.HasSuffix(os.Getenv("SHELL"), "csh")
}

func (s shellSyntax) set(name, value string) string {
	if s.csh() {
		return fmt.Sprintf("setenv %s %s;\n", name, shellQuoted(value))
	}
	return fmt.Sprintf("export %s=%s;\n", name, shellQuoted(value))
}

func (s shellSyntax) unset(name string) string {
	if s.csh() {
		return fmt.Sprintf("unsetenv %s;\n", name)
	}
	return fmt.Sprintf("unset %s;\n", name)
}

// shellQuoted quotes s for sh and csh alike (single quotes; a quote inside
// is closed, escaped and reopened).
func shellQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SessionStartCmd starts a session.
type SessionStartCmd struct {
	Idle time.Duration `name:"idle" default:"30m" help:"End the session after this long without a command (must be > 0)."`
	shellSyntax
}

func (c *SessionStartCmd) Run(ctx context.Context, g *Globals) error {
	if c.Idle <= 0 {
		return &usageErr{fmt.Errorf("--idle must be a positive duration such as 30m or 8h, not %s", c.Idle)}
	}
	// A second session would replace DISPATCH_SESSION, and the first would
	// run on, unreachable, until --idle.
	if socket := g.sessionSocket(); socket != "" && sessionAnswers(ctx, socket) {
		return &usageErr{fmt.Errorf("a dispatch session is already running at %s (DISPATCH_SESSION or --session): stop it first with eval \"$(dispatch session stop)\", or unset DISPATCH_SESSION (or add --no-session) to start another beside it", socket)}
	}
	// Caught here, they are the user's mistake at the prompt, not a line
	// in a log file.
	if err := g.checkLimits(); err != nil {
		return err
	}
	if _, err := g.loadConfigs(); err != nil {
		return err
	}
	base, err := upstream.ShellBaseDir()
	if err != nil {
		return err
	}
	swept, err := upstream.SweepShellDirs(base)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dispatch: warning:", err)
	}
	if len(swept) > 0 && g.LogLevel == "debug" {
		fmt.Fprintf(os.Stderr, "dispatch: removed %d directories of sessions that had died\n", len(swept))
	}
	dir, lock, err := upstream.NewShellDir(base)
	if err != nil {
		return err
	}
	pid, err := c.spawn(ctx, g, dir, lock)
	lock.Close() // the session's process holds it now
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	fmt.Print(c.set("DISPATCH_SESSION", filepath.Join(dir, upstream.ShellSocketName)))
	fmt.Printf("echo dispatch session pid %d;\n", pid)
	return nil
}

// spawn starts the session's process and waits until it answers. Its
// settings (the global flags, which may hold credentials) go through a
// pipe, never into a file or its command line.
func (c *SessionStartCmd) spawn(ctx context.Context, g *Globals, dir string, lock *os.File) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find dispatch's own binary: %w", err)
	}
	settings := *g
	settings.Session, settings.NoSession, settings.JSON = "", false, false
	data, err := json.Marshal(settings)
	if err != nil {
		return 0, fmt.Errorf("encode session settings: %w", err)
	}
	logPath := filepath.Join(dir, sessionLogName)
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("session log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(exe, "session", "daemon", "--dir", dir, "--idle", c.Idle.String())
	cmd.Env = withoutEnv(os.Environ(), "DISPATCH_SESSION")
	cmd.Stderr = logFile // stdout is /dev/null
	cmd.ExtraFiles = []*os.File{lock}
	detach(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, fmt.Errorf("start session: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start session: %w", err)
	}
	// Wait's goroutine ends when the session does; this process exits
	// long before, leaving the session to init.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	_, writeErr := stdin.Write(data)
	if err := errors.Join(writeErr, stdin.Close()); err != nil {
		cmd.Process.Kill()
		return 0, fmt.Errorf("pass settings to the session: %w", err)
	}
	if err := waitForSession(ctx, filepath.Join(dir, upstream.ShellSocketName), exited, logPath); err != nil {
		cmd.Process.Kill()
		return 0, err
	}
	return cmd.Process.Pid, nil
}

// waitForSession waits until the session's socket accepts, or its process
// ends (its log says why), or upstream.ShellStartTimeout passes.
func waitForSession(ctx context.Context, socket string, exited <-chan error, logPath string) error {
	ctx, cancel := context.WithTimeout(ctx, upstream.ShellStartTimeout)
	defer cancel()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if conn, err := net.Dial("unix", socket); err == nil {
			conn.Close()
			return nil
		}
		select {
		case err := <-exited:
			return sessionStartFailed(err, logPath)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("the session did not answer within %s; its log: %s", upstream.ShellStartTimeout, readLogTail(logPath))
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// sessionStartFailed reports a session that ended at start: what it
// printed (already masked by its own redactor), with its exit code.
func sessionStartFailed(err error, logPath string) error {
	text := strings.TrimSpace(strings.TrimPrefix(readLogTail(logPath), "dispatch: "))
	code := exitInternal
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		code = exit.ExitCode()
	}
	return &upstream.ShellError{Exit: code, Message: "session did not start: " + text}
}

// readLogTail is the end of a session's log, for an error message.
func readLogTail(path string) string {
	const keep = 4096
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > keep {
		if _, err := f.Seek(-keep, io.SeekEnd); err != nil {
			return "(log unreadable: " + err.Error() + ")"
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, keep))
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(data))
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// SessionStatusCmd shows a session.
type SessionStatusCmd struct{}

func (c *SessionStatusCmd) Run(ctx context.Context, g *Globals) error {
	client, err := g.dialCurrentSession()
	if err != nil {
		return err
	}
	defer client.Close()
	st, err := client.Status(ctx)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.render(os.Stdout, st)
	}
	return renderSessionStatus(os.Stdout, st)
}

func renderSessionStatus(w io.Writer, st *upstream.ShellStatus) error {
	fmt.Fprintf(w, "session  %s\npid      %d\nuptime   %s (idle %s; ends after %s idle)\nresults  %d files, %s\n\n",
		cell(st.Socket), st.PID, st.Uptime, st.Idle, st.IdleLimit, st.ResultFiles, humanize.IBytes(uint64(max(st.ResultBytes, 0))))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tNAME\tSTATUS\tRESTARTS\tERROR")
	for _, s := range st.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", cell(s.Alias), cell(dash(s.Name)), cell(s.Status), s.Restarts, cell(oneLine(s.Error)))
	}
	return tw.Flush()
}

// SessionStopCmd ends a session.
type SessionStopCmd struct {
	shellSyntax
}

func (c *SessionStopCmd) Run(ctx context.Context, g *Globals) error {
	client, err := g.dialCurrentSession()
	if err != nil {
		return err
	}
	defer client.Close()
	pid, err := client.Stop(ctx)
	if err != nil {
		return err
	}
	// The session deletes its directory last, after its servers and files.
	dir := filepath.Dir(client.Socket())
	ctx, cancel := context.WithTimeout(ctx, sessionStopTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("session (pid %d) was asked to stop but its directory %s is still there after %s; it may still be stopping its servers", pid, dir, sessionStopTimeout)
		case <-tick.C:
		}
	}
	fmt.Print(c.unset("DISPATCH_SESSION"))
	fmt.Printf("echo dispatch session pid %d stopped;\n", pid)
	return nil
}

// dialCurrentSession connects to the session DISPATCH_SESSION or
// --session names.
func (g *Globals) dialCurrentSession() (*upstream.ShellClient, error) {
	socket := g.sessionSocket()
	if socket == "" {
		return nil, &usageErr{errors.New("no session: DISPATCH_SESSION is not set and no --session was given; start one with eval \"$(dispatch session start --mcp ...)\"")}
	}
	return upstream.NewShellClient(socket), nil
}

// sessionSocket is the session one-shot commands run in, or "".
func (g *Globals) sessionSocket() string {
	if g.NoSession {
		return ""
	}
	return g.Session
}

// sessionLiveProbeTimeout bounds the dial that tells whether a session
// still listens at a socket.
const sessionLiveProbeTimeout = time.Second

// sessionAnswers says whether something listens at the session socket.
func sessionAnswers(ctx context.Context, socket string) bool {
	ctx, cancel := context.WithTimeout(ctx, sessionLiveProbeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
