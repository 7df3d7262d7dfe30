package main

import (
	"bytes"
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpDispatch is dispatch serve --listen, run as its own process.
type httpDispatch struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/mcp
	stderr *testkit.SyncBuffer
}

var listeningAt = regexp.MustCompile(`serving MCP over HTTP" address=(\S+)`)

// startHTTPDispatch runs dispatch serve --listen 127.0.0.1:0 (or the
// --listen among args) with the fixture, and waits until it listens.
func startHTTPDispatch(t *testing.T, env []string, args ...string) *httpDispatch {
	t.Helper()
	return startHTTPDispatchWith(t, env, fixture("--client-requests"), args...)
}

// startHTTPDispatchWith is startHTTPDispatch with the server spec.
func startHTTPDispatchWith(t *testing.T, env []string, spec string, args ...string) *httpDispatch {
	t.Helper()
	all := append([]string{"--no-cache", "--log-level", "info", "--mcp", spec}, "serve")
	if !containsArg(args, "--listen") {
		all = append(all, "--listen", "127.0.0.1:0")
	}
	all = append(all, args...)
	d := &httpDispatch{t: t, cmd: exec.Command(dispatchBin, all...), stderr: &testkit.SyncBuffer{}}
	d.cmd.Stderr = d.stderr
	d.cmd.Env = append(os.Environ(), env...)
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.stop()
		if t.Failed() {
			t.Logf("dispatch's stderr:\n%s", d.stderr.String())
		}
	})
	testkit.WaitFor(t, "dispatch to listen", 30*time.Second, func() bool {
		m := listeningAt.FindStringSubmatch(d.stderr.String())
		if m != nil {
			d.url = "http://" + m[1] + "/mcp"
		}
		return m != nil || d.cmd.ProcessState != nil
	})
	return d
}

func containsArg(args []string, name string) bool {
	for _, a := range args {
		if a == name {
			return true
		}
	}
	return false
}

// stop sends SIGTERM and waits for dispatch to exit.
func (d *httpDispatch) stop() {
	if d.cmd.ProcessState != nil {
		return
	}
	if err := d.cmd.Process.Signal(os.Interrupt); err != nil {
		d.t.Logf("signal dispatch: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		d.cmd.Process.Kill()
		<-done
		d.t.Errorf("dispatch did not exit within 20 s of SIGINT; stderr:\n%s", d.stderr.String())
	}
}

// session is one agent session over HTTP: a real mcp-go client, holding
// its listening stream (GET) open.
func (d *httpDispatch) session(t *testing.T, opts ...client.ClientOption) *client.Client {
	t.Helper()
	return d.sessionWith(t, []transport.StreamableHTTPCOption{transport.WithContinuousListening()}, opts...)
}

// sessionWith is one agent session over HTTP whose transport has trOpts
// (without WithContinuousListening, it opens no listening stream).
func (d *httpDispatch) sessionWith(t *testing.T, trOpts []transport.StreamableHTTPCOption, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, _ := connectHTTP(t, d.url, trOpts, opts...)
	return c
}

// connectHTTP opens an agent session on the streamable HTTP endpoint at
// url: a real mcp-go client whose transport has trOpts, started and
// initialized, closed when the test ends. The transport is returned for
// its session id. (A failing test logs dispatch's stderr:
// startHTTPDispatch sees to it.)
func connectHTTP(t *testing.T, url string, trOpts []transport.StreamableHTTPCOption, opts ...client.ClientOption) (*client.Client, *transport.StreamableHTTP) {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, trOpts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, append([]client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}, opts...)...)
	// The listening stream (GET) lives as long as Start's context: one
	// that ended with this function closed it, and a server's sampling,
	// roots and logs then had no stream to reach the agent on.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "http-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize over HTTP at %s: %v", url, err)
	}
	return c, tr
}

func callText(ctx context.Context, t *testing.T, c *client.Client, args map[string]any) (string, bool) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "proxy-dispatch"
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %v: %v", args, err)
	}
	var text strings.Builder
	for _, item := range res.Content {
		if tc, ok := item.(mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// spillOver saves a large fixture result to the session's files.
func spillOver(t *testing.T, c *client.Client) string {
	t.Helper()
	text, isErr := callText(context.Background(), t, c, map[string]any{"action": "call", "connection": "c1", "tool": "large",
		"arguments": map[string]any{"bytes": 200000}, "resultToFile": true})
	var a spillAnswer
	if isErr || json.Unmarshal([]byte(text), &a) != nil || a.Spill == nil {
		t.Fatalf("want a spilled answer, got %.300s", text)
	}
	return a.Spill.ResultFile
}

// TestServeHTTP_SessionsAreIsolated: each session's result files are its
// own; another session can neither read one (readresult) nor be handed
// one as input (argumentsFile).
func TestServeHTTP_SessionsAreIsolated(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	a, b := d.session(t), d.session(t)
	fileA, fileB := spillOver(t, a), spillOver(t, b)
	if filepath.Dir(fileA) == filepath.Dir(fileB) {
		t.Fatalf("both sessions' files are in %s", filepath.Dir(fileA))
	}
	ctx := context.Background()
	if text, isErr := callText(ctx, t, a, map[string]any{"action": "readresult", "resultFile": fileA, "op": "head", "lines": 1}); isErr {
		t.Fatalf("a session cannot read its own file: %s", text)
	}
	text, isErr := callText(ctx, t, a, map[string]any{"action": "readresult", "resultFile": fileB, "op": "head", "lines": 1})
	if !isErr || !strings.Contains(text, "not") {
		t.Errorf("session A read B's file: isError %v, %.300s", isErr, text)
	}
	text, isErr = callText(ctx, t, a, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "argumentsFile": fileB})
	if !isErr {
		t.Errorf("session A was handed B's file as arguments: %.300s", text)
	}
	if _, err := os.Stat(fileB); err != nil {
		t.Errorf("B's file is gone: %v", err)
	}
}

// TestServeHTTP_ArgumentsFileStaysInItsSession: when the sessions'
// result directories lie under an argument root (--spill-dir inside
// --args-dir, or the default working directory), a session still cannot
// be handed another's result file by naming it, absolute or relative.
func TestServeHTTP_ArgumentsFileStaysInItsSession(t *testing.T) {
	root := t.TempDir()
	d := startHTTPDispatch(t, nil, "--spill-dir", filepath.Join(root, "spills"), "--args-dir", root)
	a, b := d.session(t), d.session(t)
	fileA, fileB := spillOver(t, a), spillOver(t, b)
	ctx := context.Background()
	relB, err := filepath.Rel(root, fileB)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fileB, filepath.Join(root, ".", relB)} {
		text, isErr := callText(ctx, t, a, map[string]any{"action": "call", "connection": "c1", "tool": "echo",
			"argumentsFile": path, "argumentsPath": "@this|@tostr", "argumentsKey": "message"})
		if !isErr || !strings.Contains(text, "not one of this session's result files") {
			t.Errorf("session A was handed B's file %s: isError %v, %.300s", path, isErr, text)
		}
	}
	// Its own file, and a file of the root outside any result directory,
	// still work.
	text, isErr := callText(ctx, t, a, map[string]any{"action": "call", "connection": "c1", "tool": "echo",
		"argumentsFile": fileA, "argumentsPath": "@this|@tostr", "argumentsKey": "message"})
	if isErr {
		t.Errorf("session A cannot use its own result file: %.300s", text)
	}
	own := filepath.Join(root, "args.json")
	if err := os.WriteFile(own, []byte(`{"message":"from the root"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	text, isErr = callText(ctx, t, a, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "argumentsFile": own})
	if isErr || !strings.Contains(text, "from the root") {
		t.Errorf("a file under --args-dir was refused: isError %v, %.300s", isErr, text)
	}
}

// TestServeHTTP_CancelStaysInItsSession: cancelling a call in one
// session leaves another session's call running to its end.
func TestServeHTTP_CancelStaysInItsSession(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	a, b := d.session(t), d.session(t)
	ctxA, cancelA := context.WithCancel(context.Background())
	doneA := make(chan struct{})
	go func() {
		defer close(doneA)
		var req mcp.CallToolRequest
		req.Params.Name = "proxy-dispatch"
		req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": "hang"}
		a.CallTool(ctxA, req) // ends cancelled
	}()
	bDone := make(chan string, 1)
	go func() {
		text, _ := callText(context.Background(), t, b, map[string]any{"action": "call", "connection": "c1", "tool": "slow",
			"arguments": map[string]any{"seconds": 1.5, "steps": 3}})
		bDone <- text
	}()
	time.Sleep(300 * time.Millisecond) // both calls are under way
	cancelA()
	if text := <-bDone; !strings.Contains(text, "slept 1.5s in 3 steps") {
		t.Errorf("B's call did not run to its end after A's cancel: %.300s", text)
	}
	select {
	case <-doneA:
	case <-time.After(10 * time.Second):
		t.Fatal("A's cancelled call never ended")
	}
}

// rawPost sends one JSON-RPC message by hand, for what a client would
// never send.
// initializedSession opens an MCP session at url with raw POSTs
// (initialize, then notifications/initialized) and returns the headers
// that name it.
func initializedSession(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, body := rawPost(t, url, nil, initializeBody)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize: no session (%s): %s", resp.Status, body)
	}
	headers := map[string]string{"Mcp-Session-Id": session}
	rawPost(t, url, headers, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return headers
}

func rawPost(t *testing.T, url string, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return resp, out.String()
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestServeHTTP_Refusals: what no agent of this server would send gets a
// clear HTTP error, and dispatch keeps serving.
func TestServeHTTP_Refusals(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startHTTPDispatch(t, nil, "--token-file", tokenFile, "--max-sessions", "1", "--max-request", "1KiB")
	auth := "Bearer " + token
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	tests := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		says    string
	}{
		{"no token", nil, initializeBody, http.StatusUnauthorized, "bearer token"},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(token))}, initializeBody, http.StatusUnauthorized, "bearer token"},
		{"foreign Origin", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, initializeBody, http.StatusForbidden, "Origin"},
		{"foreign Host", map[string]string{"Authorization": auth, "Host": "evil.example"}, initializeBody, http.StatusForbidden, "Host"},
		{"no session", map[string]string{"Authorization": auth}, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, http.StatusBadRequest, "initialize"},
		{"unknown session", map[string]string{"Authorization": auth, "Mcp-Session-Id": "0123"}, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, http.StatusNotFound, "no such session"},
		{"body too large", map[string]string{"Authorization": auth}, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("y", 2048) + `"}}`, http.StatusRequestEntityTooLarge, "--max-request"},
		{"Origin without the port", map[string]string{"Authorization": auth, "Origin": "http://localhost"}, initializeBody, http.StatusForbidden, "Origin"},
		{"https Origin without the port", map[string]string{"Authorization": auth, "Origin": "https://127.0.0.1"}, initializeBody, http.StatusForbidden, "Origin"},
		{"first session", map[string]string{"Authorization": auth, "Origin": "http://localhost:" + port}, initializeBody, http.StatusOK, "serverInfo"},
		{"one session too many", map[string]string{"Authorization": auth}, initializeBody, http.StatusServiceUnavailable, "--max-sessions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawPost(t, d.url, tt.headers, tt.body)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.says) {
				t.Errorf("status %d body %.300q, want %d saying %q", resp.StatusCode, body, tt.status, tt.says)
			}
			if tt.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer: %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	if strings.Contains(d.stderr.String(), token) {
		t.Errorf("the token is in dispatch's log:\n%s", d.stderr.String())
	}
}

// TestServeHTTP_FailedInitializeHoldsNoSession: an initialize mcp-go
// refuses gives the client no session id, so nobody could end that
// session; it must not keep a --max-sessions place until --session-idle.
func TestServeHTTP_FailedInitializeHoldsNoSession(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-sessions", "1")
	for range 3 {
		// A body not sent as application/json is refused.
		resp, body := rawPost(t, d.url, map[string]string{"Content-Type": "text/plain"}, initializeBody)
		if resp.StatusCode == http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("a broken initialize was accepted: %d %q", resp.StatusCode, body)
		}
	}
	resp, body := rawPost(t, d.url, nil, initializeBody)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("after broken initializes a good one got %d %.300q; want 200 and a session", resp.StatusCode, body)
	}
}

// TestServeHTTP_NonLoopbackNeedsToken: listening for other machines
// without a token is a usage error saying how to add one.
func TestServeHTTP_NonLoopbackNeedsToken(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "serve", "--listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "--token-file") {
		t.Errorf("exit %d, stderr %q; want 2 naming --token-file", code, stderr)
	}
}

// TestServeHTTP_IdleSessionExpires: a session idle past --session-idle
// ends, its files are deleted, and its id is refused after.
func TestServeHTTP_IdleSessionExpires(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--session-idle", "500ms")
	c, tr := connectHTTP(t, d.url, nil) // no listening stream: it would keep the session busy
	file := spillOver(t, c)
	testkit.WaitFor(t, "the idle session's file to be deleted", 20*time.Second, func() bool {
		_, err := os.Stat(file)
		return errors.Is(err, os.ErrNotExist)
	})
	if _, err := os.Stat(filepath.Dir(file)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the idle session's directory is still there: %v", err)
	}
	resp, body := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": tr.GetSessionId()}, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the expired session's id got %d %.200q, want 404", resp.StatusCode, body)
	}
	// The log says why it ended: it expired, the agent sent no DELETE.
	log := d.stderr.String()
	if !strings.Contains(log, `why="idle past --session-idle"`) || strings.Contains(log, "the agent ended it") {
		t.Errorf("the expired session's end is logged with the wrong reason:\n%s", log)
	}
}

// TestServeHTTP_ShutdownDeletesEverySessionsFiles: SIGINT ends dispatch
// and deletes every session's directory.
func TestServeHTTP_ShutdownDeletesEverySessionsFiles(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	files := []string{spillOver(t, d.session(t)), spillOver(t, d.session(t))}
	d.stop()
	for _, f := range files {
		if _, err := os.Stat(filepath.Dir(f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after shutdown: %v", filepath.Dir(f), err)
		}
	}
}

// TestServeHTTP_UnixSocket: --listen unix:PATH serves the same over a
// socket of mode 0600 in a directory of mode 0700.
func TestServeHTTP_UnixSocket(t *testing.T) {
	sock := filepath.Join(testkit.ShortTempDir(t), "run", "s")
	startHTTPDispatch(t, nil, "--listen", "unix:"+sock)
	for path, want := range map[string]os.FileMode{filepath.Dir(sock): 0o700, sock: 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		checkPerm(t, path, info, want)
	}
	httpClient := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dialer net.Dialer
		return dialer.DialContext(ctx, "unix", sock)
	}}}
	c, _ := connectHTTP(t, "http://localhost/mcp", []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(httpClient)})
	if text, isErr := callText(context.Background(), t, c, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "over the socket"}}); isErr || !strings.Contains(text, "over the socket") {
		t.Errorf("echo over the socket: %v %.200s", isErr, text)
	}
}

// TestServeHTTP_BadListenFlags: each bad --listen setting is a usage
// error saying what is wrong.
func TestServeHTTP_BadListenFlags(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		says string
	}{
		{"not an address", nil, []string{"--listen", "nonsense"}, "neither host:port"},
		{"short token", []string{"DISPATCH_TOKEN=short"}, []string{"--listen", "127.0.0.1:0"}, "at least 16"},
		{"zero idle", nil, []string{"--listen", "127.0.0.1:0", "--session-idle", "0s"}, "--session-idle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(dispatchBin, append([]string{"--no-cache", "--mcp", fixture(), "serve"}, tt.args...)...)
			cmd.Env = append(os.Environ(), tt.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tt.says) {
				t.Errorf("err %v, stderr %q; want exit 2 saying %q", err, stderr.String(), tt.says)
			}
		})
	}
}

// TestServeHTTP_TokenFileOpenToOthersRefused: a --token-file others can
// read is refused with what to do, before anything listens.
func TestServeHTTP_TokenFileOpenToOthersRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix mode bits on Windows")
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tokenFile, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, dispatchBin, "--no-cache", "--mcp", fixture(), "serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if ctx.Err() != nil || !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 {
		t.Fatalf("serve with a token file of mode 0644: %v (stderr %q); want exit 2 at once", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "mode 0644") || !strings.Contains(stderr.String(), "chmod 600 "+tokenFile) {
		t.Errorf("stderr %q, want it to name the mode and chmod 600", stderr.String())
	}
	if strings.Contains(stderr.String(), "0123456789abcdef") {
		t.Errorf("the token is in the error: %q", stderr.String())
	}
}
