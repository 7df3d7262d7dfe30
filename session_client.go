package main

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
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"dispatch/dispatch"
)

// maxSessionAnswerBytes bounds one answer read from a session: a session
// is the user's own process, but a bug or a huge inline result must not
// make the command line allocate without limit. A larger answer is an
// error that says to save large results to files (--threshold).
const maxSessionAnswerBytes = 1 << 30

// sessionClient talks to a shell session over its unix socket.
type sessionClient struct {
	socket string
	http   *http.Client
}

// dialSession makes a client of the session at socket. It connects on
// the first request, which says clearly when the session is gone: a
// separate check first would cost every command a connection more.
func dialSession(socket string) (*sessionClient, error) {
	c := &sessionClient{socket: socket, http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableCompression: true,
	}}}
	return c, nil
}

// staleSessionError explains a session that does not answer.
func staleSessionError(socket string, err error) error {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
		return &sessionError{exit: exitServer, msg: fmt.Sprintf(
			"no dispatch session answers at %s (DISPATCH_SESSION or --session): it has ended; start one with eval \"$(dispatch session start --mcp ...)\", or unset DISPATCH_SESSION (or give --no-session) to run without one", socket)}
	}
	return &sessionError{exit: exitServer, msg: fmt.Sprintf("dispatch session at %s: %v", socket, err)}
}

func (c *sessionClient) close() { c.http.CloseIdleConnections() }

// post sends body to path and decodes the JSON answer into out.
func (c *sessionClient) post(ctx context.Context, path string, body any, out any) error {
	resp, err := c.send(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeBounded(resp.Body, out)
}

// send makes a request; a session that is gone is a stale-session error.
func (c *sessionClient) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
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
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, staleSessionError(c.socket, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		text, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &sessionError{exit: exitServer, msg: fmt.Sprintf("dispatch session at %s: %s: %s", c.socket, resp.Status, escapeControls(strings.TrimSpace(string(text)), true))}
	}
	return resp, nil
}

func decodeBounded(r io.Reader, out any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxSessionAnswerBytes+1))
	if err != nil {
		return fmt.Errorf("session: read answer: %w", err)
	}
	if len(data) > maxSessionAnswerBytes {
		return fmt.Errorf("session: answer larger than %d MiB; start the session with a --threshold so large results go to files", maxSessionAnswerBytes>>20)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("session: decode answer: %w", err)
	}
	return nil
}

func (c *sessionClient) do(ctx context.Context, req dispatch.Request) (any, error) {
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
	var ans sessionAnswer
	if err := c.post(ctx, sessionDoPath, newSessionRequest(req), &ans); err != nil {
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

func (c *sessionClient) savePayload(ctx context.Context, call *dispatch.CallResponse, path string) (*dispatch.SavedPayload, error) {
	return c.save(ctx, sessionSave{Call: call, Path: path})
}

func (c *sessionClient) saveMessages(ctx context.Context, prompt *dispatch.PromptResponse, path string) (*dispatch.SavedPayload, error) {
	return c.save(ctx, sessionSave{Prompt: prompt, Path: path})
}

func (c *sessionClient) save(ctx context.Context, s sessionSave) (*dispatch.SavedPayload, error) {
	var err error
	given := s.Path
	if s.Path, err = callerPath(s.Path); err != nil {
		return nil, err
	}
	var ans sessionAnswer
	if err := c.post(ctx, sessionSavePath, s, &ans); err != nil {
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

// run streams a pipeline's step results to emit, each line as dispatch
// run prints it.
func (c *sessionClient) run(ctx context.Context, steps []json.RawMessage, emit func(json.RawMessage) error) error {
	for i, step := range steps {
		abs, err := callerStepPaths(step)
		if err != nil {
			return &usageErr{fmt.Errorf("step %d: %w", i+1, err)}
		}
		steps[i] = abs
	}
	resp, err := c.send(ctx, http.MethodPost, sessionRunPath, sessionRun{Steps: steps})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 64<<10), maxSessionAnswerBytes)
	for lines.Scan() {
		var line sessionRunLine
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			return fmt.Errorf("session: decode run answer: %w", err)
		}
		switch {
		case line.End && line.Error != nil:
			return &sessionError{msg: line.Error.Message, exit: line.Error.Exit}
		case line.End:
			return nil
		}
		if err := emit(line.Step); err != nil {
			return err
		}
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("session: read run answer: %w", err)
	}
	return &sessionError{exit: exitServer, msg: "dispatch session ended before the pipeline did"}
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
// absolute; "$step.resultFile" references are the pipeline's own.
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

// runInSession runs a pipeline in the session and prints each step's
// result line as dispatch run does. Its result files stay in the session.
func runInSession(ctx context.Context, socket string, steps []json.RawMessage) error {
	c, err := dialSession(socket)
	if err != nil {
		return err
	}
	defer c.close()
	return c.run(ctx, steps, func(line json.RawMessage) error {
		_, err := os.Stdout.Write(append(line, '\n'))
		return err
	})
}
