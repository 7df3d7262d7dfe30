package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"dispatch/dispatch"
)

// maxShellAnswerBytes bounds one answer read from a session: a session
// is the user's own process, but a bug or a huge inline result must not
// make the command line allocate without limit. A larger answer is an
// error that says to save large results to files (--threshold).
const maxShellAnswerBytes = 1 << 30

// ShellClient is a one-shot command's side of a shell session: it sends
// the requests the command would have run itself over the session's unix
// socket, and makes the caller's relative paths absolute on the way, since
// the session runs in another directory.
type ShellClient struct {
	socket string
	http   *http.Client
}

// NewShellClient makes a client of the session at socket. It connects on
// the first request, which says clearly when the session is gone: a
// separate check first would cost every command a connection more.
func NewShellClient(socket string) *ShellClient {
	return &ShellClient{socket: socket, http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialSession(ctx, socket)
		},
		DisableCompression: true,
	}}}
}

// dialSession connects to the session at socket once it is sure the
// session is the user's own: the socket's owner and directory before, and
// the listening process's user (where the OS says) after.
func dialSession(ctx context.Context, socket string) (net.Conn, error) {
	if err := checkSessionSocket(socket); err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(conn); err != nil {
		conn.Close()
		return nil, &ForeignSessionError{Socket: socket, Why: err.Error()}
	}
	return conn, nil
}

// ForeignSessionError refuses a session socket that is not the user's
// own: nothing was sent to it.
type ForeignSessionError struct {
	Socket string
	Why    string
}

func (e *ForeignSessionError) Error() string {
	return fmt.Sprintf("refusing the dispatch session at %s (DISPATCH_SESSION or --session): %s; nothing was sent to it. Check the path, or start your own session with eval \"$(dispatch session start --mcp ...)\"", e.Socket, e.Why)
}

// Socket is the path the client connects to.
func (c *ShellClient) Socket() string { return c.socket }

// Close drops the client's idle connection.
func (c *ShellClient) Close() { c.http.CloseIdleConnections() }

// ShellLinkError is a session that could not be asked or did not answer
// in full: gone, refusing the request, or ended mid-answer. The command
// line counts it as a server it could not reach.
type ShellLinkError struct{ msg string }

func (e *ShellLinkError) Error() string { return e.msg }

// staleSessionError explains a session that does not answer.
func staleSessionError(socket string, err error) error {
	if sessionGone(err) {
		return &ShellLinkError{msg: fmt.Sprintf(
			"no dispatch session answers at %s (DISPATCH_SESSION or --session): it has ended; start one with eval \"$(dispatch session start --mcp ...)\", or unset DISPATCH_SESSION (or give --no-session) to run without one", socket)}
	}
	return &ShellLinkError{msg: fmt.Sprintf("dispatch session at %s: %v", socket, err)}
}

// inFlightError explains a session that ended after it was sent the
// request and before it answered: unlike a session found gone, this one
// may have run the call, so its effects may have happened.
func inFlightError(socket string, err error) error {
	return &ShellLinkError{msg: fmt.Sprintf(
		"the dispatch session at %s ended while this request was in flight (%v): it may have run, so a call's effects may have happened though its answer was lost; check before running it again. Start a new session with eval \"$(dispatch session start --mcp ...)\", or unset DISPATCH_SESSION (or give --no-session) to run without one", socket, err)}
}

// sessionGone reports an error that means no process listens on the
// socket any more.
func sessionGone(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)
}

// linkError explains a request that failed on the way. A request sent on a
// kept-alive connection fails with whatever the closing session did to it
// ("server closed idle connection", EOF, a reset), which says nothing of
// whether the session is still there; one fresh dial tells a session that
// has ended from one that broke this request.
func (c *ShellClient) linkError(ctx context.Context, err error, sent bool) error {
	if sent {
		return inFlightError(c.socket, err)
	}
	if !sessionGone(err) {
		var d net.Dialer
		conn, dialErr := d.DialContext(ctx, "unix", c.socket)
		if dialErr == nil {
			conn.Close()
		} else if sessionGone(dialErr) {
			err = dialErr
		}
	}
	return staleSessionError(c.socket, err)
}

// post sends body to path and decodes the JSON answer into out.
func (c *ShellClient) post(ctx context.Context, path string, body any, out any) error {
	resp, err := c.send(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := decodeBounded(resp.Body, out); err != nil {
		var read *answerReadError
		if errors.As(err, &read) && ctx.Err() == nil {
			return inFlightError(c.socket, read.err)
		}
		return err
	}
	return nil
}

// answerReadError is an answer cut off on the way.
type answerReadError struct{ err error }

func (e *answerReadError) Error() string { return "session: read answer: " + e.err.Error() }

// send makes a request; a session that is gone is a stale-session error.
func (c *ShellClient) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var in io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("session: encode request: %w", err)
		}
		in = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://session"+path, in)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	// Whether the session got the whole request: if it did, an ending
	// session may have run it.
	var sent atomic.Bool
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) { sent.Store(info.Err == nil) },
	}))
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var foreign *ForeignSessionError
		if errors.As(err, &foreign) {
			return nil, &ShellLinkError{msg: foreign.Error()}
		}
		return nil, c.linkError(ctx, err, sent.Load())
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		// Not escaped here: the command line escapes every error it prints.
		text, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &ShellLinkError{msg: fmt.Sprintf("dispatch session at %s: %s: %s", c.socket, resp.Status, strings.TrimSpace(string(text)))}
	}
	return resp, nil
}

func decodeBounded(r io.Reader, out any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxShellAnswerBytes+1))
	if err != nil {
		return &answerReadError{err}
	}
	if len(data) > maxShellAnswerBytes {
		return fmt.Errorf("session: answer larger than %d MiB; start the session with a --threshold so large results go to files", maxShellAnswerBytes>>20)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("session: decode answer: %w", err)
	}
	return nil
}

// Do runs req in the session and returns the typed response the service
// gave, or its error as a *ShellError.
func (c *ShellClient) Do(ctx context.Context, req dispatch.Request) (any, error) {
	var err error
	saveTo := req.SaveTo
	// Paths are the caller's: the session runs in another directory. An
	// argumentsFile keeps its name, which answers and errors quote.
	if req.WorkDir, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	for _, p := range []*string{&req.ResultFile, &req.SaveTo} {
		if *p, err = callerPath(*p); err != nil {
			return nil, err
		}
	}
	var ans shellAnswer
	if err := c.post(ctx, shellDoPath, newShellRequest(req), &ans); err != nil {
		return nil, err
	}
	resp, err := decodeAnswer(ans)
	if r, ok := resp.(*dispatch.ResourceResponse); ok && r.Saved != nil {
		namedAsGiven(r.Saved, req.SaveTo, saveTo)
	}
	return resp, err
}

// namedAsGiven names a file the user gave as they wrote it, as the
// command prints it without a session, not as the absolute path the
// session was sent.
func namedAsGiven(saved *dispatch.SavedPayload, abs, given string) {
	if abs == given {
		return
	}
	if saved.Path == abs {
		saved.Path = given
	}
	if saved.ResultFile == abs {
		saved.ResultFile = given
	}
	saved.Hint = strings.ReplaceAll(saved.Hint, abs, given)
}

// SavePayload has the session write a call's result to the user's file,
// as dispatch.Service.SavePayload.
func (c *ShellClient) SavePayload(ctx context.Context, call *dispatch.CallResponse, path string) (*dispatch.SavedPayload, error) {
	return c.save(ctx, shellSave{Call: call, Path: path})
}

// SaveMessages has the session write a prompt's messages to the user's
// file, as dispatch.Service.SaveMessages.
func (c *ShellClient) SaveMessages(ctx context.Context, prompt *dispatch.PromptResponse, path string) (*dispatch.SavedPayload, error) {
	return c.save(ctx, shellSave{Prompt: prompt, Path: path})
}

func (c *ShellClient) save(ctx context.Context, s shellSave) (*dispatch.SavedPayload, error) {
	var err error
	given := s.Path
	if s.Path, err = callerPath(s.Path); err != nil {
		return nil, err
	}
	var ans shellAnswer
	if err := c.post(ctx, shellSavePath, s, &ans); err != nil {
		return nil, err
	}
	resp, err := decodeAnswer(ans)
	if err != nil {
		return nil, err
	}
	saved, ok := resp.(*dispatch.SavedPayload)
	if !ok {
		return nil, fmt.Errorf("session answered a save with %T", resp)
	}
	namedAsGiven(saved, s.Path, given)
	return saved, nil
}

// Run runs the steps of a run in the session (timeout, when not nil, is
// the run's time limit) and passes each step's result line to emit as
// dispatch run prints it. Its result files stay in the
// session. A step path that cannot be made absolute is a
// *dispatch.UsageError.
func (c *ShellClient) Run(ctx context.Context, steps []json.RawMessage, timeout *float64, emit func(json.RawMessage) error) error {
	for i, step := range steps {
		abs, err := callerStepPaths(step)
		if err != nil {
			return &dispatch.UsageError{Msg: fmt.Sprintf("step %d: %v", i+1, err)}
		}
		steps[i] = abs
	}
	resp, err := c.send(ctx, http.MethodPost, shellRunPath, shellRun{Steps: steps, Timeout: timeout})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 64<<10), maxShellAnswerBytes)
	for lines.Scan() {
		var line shellRunLine
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			return fmt.Errorf("session: decode run answer: %w", err)
		}
		switch {
		case line.End && line.Error != nil:
			return line.Error
		case line.End:
			return nil
		}
		if err := emit(line.Step); err != nil {
			return err
		}
	}
	if err := lines.Err(); err != nil && ctx.Err() == nil {
		return inFlightError(c.socket, err)
	} else if err != nil {
		return fmt.Errorf("session: read run answer: %w", err)
	}
	return inFlightError(c.socket, errors.New("the run's answer stopped before its end"))
}

// Status asks the session what dispatch session status shows.
func (c *ShellClient) Status(ctx context.Context) (*ShellStatus, error) {
	resp, err := c.send(ctx, http.MethodGet, shellStatusPath, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var st ShellStatus
	if err := decodeBounded(resp.Body, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Stop asks the session to end and returns its pid. The session answers
// first, then stops its servers and deletes its directory, last.
func (c *ShellClient) Stop(ctx context.Context) (pid int, err error) {
	var stopped shellStopped
	if err := c.post(ctx, shellStopPath, struct{}{}, &stopped); err != nil {
		return 0, err
	}
	return stopped.PID, nil
}

// callerPath makes a relative path absolute against this process's
// working directory, which the session does not share.
func callerPath(path string) (string, error) {
	if path == "" || filepath.IsAbs(path) {
		return path, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s against the working directory: %w", path, err)
	}
	return abs, nil
}

// callerStepPaths makes a run step's argumentsFile and resultFile
// absolute; "$step.resultFile" references are the run's own.
func callerStepPaths(step json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(step, &fields) != nil {
		return step, nil // not an object: the session reports it as dispatch run would
	}
	changed := false
	for _, key := range []string{"argumentsFile", "resultFile"} {
		var path string
		if raw, ok := fields[key]; !ok || json.Unmarshal(raw, &path) != nil || path == "" || strings.HasPrefix(path, "$") {
			continue
		}
		abs, err := callerPath(path)
		if err != nil {
			return nil, err
		}
		if abs == path {
			continue
		}
		if fields[key], err = json.Marshal(abs); err != nil {
			return nil, fmt.Errorf("encode %s: %w", key, err)
		}
		changed = true
	}
	if !changed {
		return step, nil
	}
	return json.Marshal(fields)
}
