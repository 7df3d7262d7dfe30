package main

import (
	"bufio"
	"bytes"
	"context"
	"dispatch/connections"
	"dispatch/internal/testkit"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// update rewrites golden files: go test -run TestServe_ToolDefinition -update
var update = flag.Bool("update", false, "rewrite golden files")

// Binaries built once for the whole test run: dispatch itself, and the
// fixture MCP server the tests put behind it.
var (
	dispatchBin string
	fixtureBin  string
	buildFlags  []string
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "dispatch-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The go command finds its build cache through XDG_CACHE_HOME unless
	// GOCACHE says where it is: pinned first, the builds below and every
	// testkit.Binary reuse it instead of compiling everything afresh in
	// the temporary cache set next (a minute or more of each run).
	if err := testkit.PinBuildCache(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Every dispatch the tests start caches catalogs and keeps tokens
	// here, never in the user's own directories: XDG_CACHE_HOME for the
	// code that reads it, DISPATCH_CACHE_DIR and DISPATCH_STATE_DIR for
	// macOS and Windows, which ignore the XDG variables.
	for name, value := range map[string]string{
		"XDG_CACHE_HOME":        filepath.Join(dir, "cache"),
		"DISPATCH_CACHE_DIR":    filepath.Join(dir, "cache", "dispatch"),
		connections.StateDirEnv: filepath.Join(dir, "state", "dispatch"),
	} {
		if err := os.Setenv(name, value); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	for _, b := range []struct {
		path *string
		name string
		pkg  string
	}{{&dispatchBin, "dispatch", "."}, {&fixtureBin, "fixture", testkit.FixturePackage}} {
		if *b.path, err = testkit.Build(dir, b.name, b.pkg, buildFlags...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// testClient is an agent: a real MCP client that started dispatch as a
// stdio child. Calls go through the transport raw, so tests see exactly
// what dispatch sent.
type testClient struct {
	t      *testing.T
	client *client.Client
	tr     *transport.Stdio
	seq    atomic.Int64
	// version is the protocol version the agent asks for.
	version string

	stderr *testkit.SyncBuffer

	mu            sync.Mutex
	notifications []mcp.JSONRPCNotification
}

// startDispatch runs dispatch in serve mode with args and initializes it.
func startDispatch(t *testing.T, env []string, args ...string) *testClient {
	t.Helper()
	return startDispatchAs(t, env, nil, args...)
}

// startDispatchAs is startDispatch for an agent built with clientOpts
// (its sampling, elicitation and roots handlers, which it declares).
func startDispatchAs(t *testing.T, env []string, clientOpts []client.ClientOption, args ...string) *testClient {
	t.Helper()
	tc := launchDispatch(t, env, mcp.ProtocolVersion20251125, nil, clientOpts, args...)
	tc.initialize()
	return tc
}

// launchDispatch starts dispatch in serve mode as a stdio child (its
// transport has trOpts) under an agent client that will ask for protocol
// version, and keeps the notifications; the client is closed when the
// test ends. It does not initialize: some tests act first.
func launchDispatch(t *testing.T, env []string, version string, trOpts []transport.StdioOption, clientOpts []client.ClientOption, args ...string) *testClient {
	t.Helper()
	tc := &testClient{t: t, stderr: &testkit.SyncBuffer{}, version: version}
	tc.tr = transport.NewStdioWithOptions(dispatchBin, env, args,
		append([]transport.StdioOption{transport.WithCommandStderrWriter(tc.stderr)}, trOpts...)...)
	if err := tc.tr.Start(context.Background()); err != nil {
		t.Fatalf("start dispatch: %v", err)
	}
	tc.client = client.NewClient(tc.tr, append([]client.ClientOption{client.WithProtocolVersion(version)}, clientOpts...)...)
	if err := tc.client.Start(context.Background()); err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() {
		if err := tc.client.Close(); err != nil {
			t.Logf("close dispatch: %v", err)
		}
	})
	tc.client.OnNotification(func(n mcp.JSONRPCNotification) {
		tc.mu.Lock()
		tc.notifications = append(tc.notifications, n)
		tc.mu.Unlock()
	})
	return tc
}

// initialize initializes dispatch at the client's protocol version.
func (tc *testClient) initialize() {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = tc.version
	init.Params.ClientInfo = mcp.Implementation{Name: "dispatch-test", Version: "1"}
	if _, err := tc.client.Initialize(ctx, init); err != nil {
		tc.t.Fatalf("initialize dispatch: %v\nstderr:\n%s", err, tc.Stderr())
	}
}

func (tc *testClient) Stderr() string { return tc.stderr.String() }

// toolResult is an MCP tools/call result, kept raw.
type toolResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	Meta              json.RawMessage   `json:"_meta"`
}

// text is the first content item's text.
func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	var item struct{ Text string }
	if err := json.Unmarshal(r.Content[0], &item); err != nil {
		return ""
	}
	return item.Text
}

// call invokes proxy-dispatch with args and returns the raw result.
func (tc *testClient) call(ctx context.Context, args map[string]any, meta map[string]any) (toolResult, error) {
	params := map[string]any{"name": "proxy-dispatch", "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(fmt.Sprintf("t%d", tc.seq.Add(1))),
		Method:  "tools/call",
		Params:  params,
	})
	if err != nil {
		return toolResult{}, err
	}
	if resp.Error != nil {
		return toolResult{}, fmt.Errorf("JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	var r toolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		return toolResult{}, fmt.Errorf("decode result %s: %w", resp.Result, err)
	}
	return r, nil
}

// mustCall is call that fails the test on a transport error.
func (tc *testClient) mustCall(args map[string]any) toolResult {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := tc.call(ctx, args, nil)
	if err != nil {
		tc.t.Fatalf("call %v: %v\nstderr:\n%s", args, err, tc.Stderr())
	}
	return r
}

// mustOK calls and fails the test if dispatch answered with an error.
func (tc *testClient) mustOK(args map[string]any) toolResult {
	tc.t.Helper()
	r := tc.mustCall(args)
	if r.IsError {
		tc.t.Fatalf("call %v: isError: %s", args, r.text())
	}
	return r
}

// decodeText decodes the first text item of r as JSON into v.
func decodeText(t *testing.T, r toolResult, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.text()), v); err != nil {
		t.Fatalf("decode %q: %v", r.text(), err)
	}
}

// fixture returns the --mcp spec for the fixture server with flags.
func fixture(flags ...string) string {
	return strings.Join(append([]string{fixtureBin}, flags...), " ")
}

// startFixtureHTTP runs the fixture over http or sse and returns its URL.
func startFixtureHTTP(t *testing.T, transportName string, flags ...string) string {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(fixtureBin, append([]string{"--transport", transportName, "--ready-file", ready}, flags...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start fixture: %v", err)
	}
	t.Cleanup(func() {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Logf("signal fixture: %v", err)
		}
		if err := cmd.Wait(); err != nil {
			t.Logf("fixture exit: %v", err)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(ready); err == nil {
			return strings.TrimSpace(string(data))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("fixture %s never became ready; stderr:\n%s", transportName, stderr.String())
	return ""
}

// runCLI runs a one-shot dispatch command and returns stdout, stderr and
// the exit code.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, dispatchBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run dispatch %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// rawClient talks to any MCP server directly, to compare with what
// dispatch returns.
type rawClient struct {
	tr  *transport.Stdio
	seq atomic.Int64
}

func startRawClient(t *testing.T, command string, args ...string) *rawClient {
	t.Helper()
	tr := transport.NewStdio(command, nil, args...)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Logf("close: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return &rawClient{tr: tr}
}

func (rc *rawClient) rawCall(t *testing.T, method string, params any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := rc.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("r%d", rc.seq.Add(1))), Method: method, Params: params,
	})
	if err != nil || resp.Error != nil {
		t.Fatalf("%s: %v %v", method, err, resp)
	}
	var r toolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkText fails t for each string of has that text lacks and each string
// of hasNot that it holds; what names the text ("stderr").
func checkText(t *testing.T, what, text string, has, hasNot []string) {
	t.Helper()
	for _, w := range has {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
	for _, w := range hasNot {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

// startWithStdin starts cmd with a pipe to its stdin and its stderr kept
// in a buffer (read it once cmd has exited). Any stdout pipe must be made
// before.
func startWithStdin(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stderr
}

// listResponse mirrors dispatch.ListResponse as an agent sees it.
type listResponse struct {
	Connections []struct {
		Alias, Name, ID, Transport, Status, Server, Error string
		RetryIn                                           string
		ToolCount                                         int
		ToolNames                                         []string
	}
	Tools []struct {
		Connection, Name, Description, Params string
		InputSchema                           json.RawMessage
	}
	TotalTools int
	NextOffset int64
	Hint       string
}

// spillAnswer is the JSON answer of a call whose result went to a file.
type spillAnswer struct {
	Connection      string
	Tool            string
	IsError         bool
	Bytes           int64
	EstimatedTokens int64
	Arguments       json.RawMessage
	Spill           *struct {
		ResultFile       string
		AutoSpilled      bool
		Format           string
		Bytes            int64
		Size             string
		EstimatedTokens  int64
		Lines            int64
		TopLevelKeys     []string
		Elements         *int64
		FirstElementKeys []string
		Preview          string
		Hint             string
	}
}

// isolateState gives the test a state directory of its own (the token
// file's) on every OS and returns its XDG_STATE_HOME: the token file is
// STATE/dispatch/oauth-tokens.json.
func isolateState(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv(connections.StateDirEnv, filepath.Join(state, "dispatch"))
	return state
}

// mustJSON encodes v for a test message; an error becomes the text.
func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// startRawDispatch starts dispatch with args for a test that writes its
// stdin and reads its stdout by hand: each line dispatch writes, of at
// most maxLine bytes, comes on lines, which closes with its stdout. When
// the test ends its stdin is closed and the process waited for.
func startRawDispatch(tb testing.TB, maxLine int, args ...string) (stdin io.WriteCloser, lines <-chan []byte, stderr *testkit.SyncBuffer) {
	tb.Helper()
	stderr = &testkit.SyncBuffer{}
	cmd := exec.Command(dispatchBin, args...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	out := make(chan []byte, 64)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, maxLine)
		for sc.Scan() {
			out <- bytes.Clone(sc.Bytes())
		}
	}()
	tb.Cleanup(func() {
		if err := stdin.Close(); err != nil {
			tb.Logf("close dispatch's stdin: %v", err)
		}
		if err := cmd.Wait(); err != nil {
			tb.Logf("dispatch exited: %v", err)
		}
	})
	return stdin, out, stderr
}
