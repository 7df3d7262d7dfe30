package connections

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message from a stdio server
// (--max-message). A larger one is refused with an error naming the
// limit, instead of growing dispatch's memory without end.
const DefaultMaxMessageBytes = 512 << 20

// stdioTransport speaks JSON-RPC to a child process over its stdin and
// stdout. dispatch has its own rather than mcp-go's because it must bound
// the size of a message, show the lines a broken server prints on stdout
// instead of JSON-RPC, know the moment the child exits, and own the
// child's process group.
type stdioTransport struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    io.ReadCloser
	diag      io.Writer // the server's stderr tail; stray stdout lines go there too
	maxMsg    int
	writeMu   sync.Mutex
	pendingMu sync.Mutex
	pending   map[string]chan *transport.JSONRPCResponse

	handlerMu sync.RWMutex
	onNotify  func(mcp.JSONRPCNotification)
	onRequest transport.RequestHandler

	done    chan struct{} // closed when the child has exited and stdout is drained
	exitErr error         // set before done closes

	closeOnce sync.Once
	closeErr  error
}

var (
	_ transport.Interface              = (*stdioTransport)(nil)
	_ transport.BidirectionalInterface = (*stdioTransport)(nil)
)

// newStdioTransport prepares the child; Start runs it.
func newStdioTransport(cfg ServerConfig, stderr io.Writer, maxMsg int) *stdioTransport {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = cfg.Cwd
	cmd.Stderr = stderr
	cmd.WaitDelay = stderrWaitDelay
	// Its own process group, so that stopping the server also stops
	// whatever it spawned (npx, uvx and their children).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if maxMsg <= 0 {
		maxMsg = DefaultMaxMessageBytes
	}
	return &stdioTransport{
		cmd:     cmd,
		diag:    stderr,
		maxMsg:  maxMsg,
		pending: make(map[string]chan *transport.JSONRPCResponse),
		done:    make(chan struct{}),
	}
}

// Start runs the child. The context is not kept: the child lives until
// Close, whatever happens to the call that started it.
func (t *stdioTransport) Start(context.Context) error {
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	t.stdin, t.stdout = stdin, stdout
	if err := t.cmd.Start(); err != nil {
		return err
	}
	go t.readLoop()
	return nil
}

func (t *stdioTransport) pid() int {
	if t.cmd.Process == nil {
		return 0
	}
	return t.cmd.Process.Pid
}

// readLoop reads one message per line until stdout ends, then reaps the
// child and fails every request still waiting.
func (t *stdioTransport) readLoop() {
	r := bufio.NewReaderSize(t.stdout, 64<<10)
	for {
		line, tooLong, err := readLine(r, t.maxMsg)
		if len(line) > 0 || tooLong > 0 {
			t.dispatchLine(line, tooLong)
		}
		if err != nil {
			break
		}
	}
	t.exitErr = t.cmd.Wait()
	t.pendingMu.Lock()
	for id, ch := range t.pending {
		close(ch)
		delete(t.pending, id)
	}
	t.pendingMu.Unlock()
	close(t.done)
}

// readLine returns the next line without its newline. A line longer than
// max is consumed but not kept: tooLong is its length, and line holds its
// first bytes so the request it answers can still be found.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong > 0:
			tooLong += len(chunk)
		case len(line)+len(chunk) > max:
			tooLong = len(line) + len(chunk)
			if len(line) < 4096 {
				line = append(line, chunk[:min(len(chunk), 4096-len(line))]...)
			}
		default:
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// envelope is any JSON-RPC message; which fields are set says which kind.
type envelope struct {
	ID     *mcp.RequestId           `json:"id,omitempty"`
	Method string                   `json:"method,omitempty"`
	Params json.RawMessage          `json:"params,omitempty"`
	Result json.RawMessage          `json:"result,omitempty"`
	Error  *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
}

func (t *stdioTransport) dispatchLine(line []byte, tooLong int) {
	if tooLong > 0 {
		t.refuseTooLong(line, tooLong)
		return
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return
	}
	var msg envelope
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &msg) != nil {
		// Not JSON-RPC: a server that logs to stdout, or a broken one.
		// Keep it beside stderr, where error messages look.
		fmt.Fprintf(t.diag, "[stdout, not JSON-RPC] %s\n", preview(trimmed, 200))
		return
	}
	switch {
	case msg.Method != "" && msg.ID == nil:
		t.notify(msg)
	case msg.Method != "":
		go t.serveRequest(msg)
	case msg.ID != nil:
		t.deliver(*msg.ID, &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: *msg.ID, Result: msg.Result, Error: msg.Error})
	}
}

// refuseTooLong fails the request an oversized response answers, found
// from the id near the start of the line.
func (t *stdioTransport) refuseTooLong(head []byte, size int) {
	msg := fmt.Sprintf("message of %s exceeds the limit of %s (raise --max-message)",
		humanize.IBytes(uint64(size)), humanize.IBytes(uint64(t.maxMsg)))
	fmt.Fprintf(t.diag, "[stdout] %s\n", msg)
	var probe struct {
		ID *mcp.RequestId `json:"id"`
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return
		}
		if key == "id" {
			if err := dec.Decode(&probe.ID); err != nil || probe.ID == nil {
				return
			}
			details := mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, msg, nil)
			t.deliver(*probe.ID, &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: *probe.ID, Error: &details})
			return
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return // the id comes after the cut; the request will time out
		}
	}
}

func preview(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

func (t *stdioTransport) deliver(id mcp.RequestId, resp *transport.JSONRPCResponse) {
	key := id.String()
	t.pendingMu.Lock()
	ch, ok := t.pending[key]
	delete(t.pending, key)
	t.pendingMu.Unlock()
	if ok {
		ch <- resp
	}
}

func (t *stdioTransport) notify(msg envelope) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: msg.Method}}
	if len(msg.Params) > 0 {
		if err := json.Unmarshal(msg.Params, &n.Params); err != nil {
			return
		}
	}
	t.handlerMu.RLock()
	h := t.onNotify
	t.handlerMu.RUnlock()
	if h != nil {
		h(n)
	}
}

// serveRequest answers a request from the server (ping, roots/list, ...).
func (t *stdioTransport) serveRequest(msg envelope) {
	t.handlerMu.RLock()
	h := t.onRequest
	t.handlerMu.RUnlock()
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: *msg.ID, Method: msg.Method, Params: msg.Params}
	var resp *transport.JSONRPCResponse
	if h == nil {
		resp = transport.NewJSONRPCErrorResponse(*msg.ID, mcp.METHOD_NOT_FOUND, "dispatch does not serve "+msg.Method, nil)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r, err := h(ctx, req)
		switch {
		case err != nil:
			resp = transport.NewJSONRPCErrorResponse(*msg.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		case r == nil:
			return
		default:
			resp = r
		}
	}
	if err := t.writeJSON(resp); err != nil {
		return // the server is gone; its requests do not matter any more
	}
}

func (t *stdioTransport) writeJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	data = append(data, '\n')
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	select {
	case <-t.done:
		return transport.ErrTransportClosed
	default:
	}
	if _, err := t.stdin.Write(data); err != nil {
		return fmt.Errorf("%w: write: %v", transport.ErrTransportClosed, err)
	}
	return nil
}

// SendRequest writes request and waits for its response, the child's
// exit, or ctx.
func (t *stdioTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	key := request.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	t.pendingMu.Lock()
	select {
	case <-t.done:
		t.pendingMu.Unlock()
		return nil, t.exitError()
	default:
	}
	t.pending[key] = ch
	t.pendingMu.Unlock()
	forget := func() {
		t.pendingMu.Lock()
		delete(t.pending, key)
		t.pendingMu.Unlock()
	}
	if err := t.writeJSON(request); err != nil {
		forget()
		return nil, err
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, t.exitError()
		}
		return resp, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// exitError says how the child ended.
func (t *stdioTransport) exitError() error {
	<-t.done
	var exit *exec.ExitError
	switch {
	case errors.As(t.exitErr, &exit) && exit.Exited():
		return fmt.Errorf("%w: server exited with status %d", transport.ErrTransportClosed, exit.ExitCode())
	case errors.As(t.exitErr, &exit):
		return fmt.Errorf("%w: server killed by %v", transport.ErrTransportClosed, exit.ProcessState)
	case t.exitErr != nil:
		return fmt.Errorf("%w: %v", transport.ErrTransportClosed, t.exitErr)
	}
	return fmt.Errorf("%w: server exited", transport.ErrTransportClosed)
}

func (t *stdioTransport) SendNotification(_ context.Context, n mcp.JSONRPCNotification) error {
	return t.writeJSON(n)
}

func (t *stdioTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.handlerMu.Lock()
	t.onNotify = h
	t.handlerMu.Unlock()
}

func (t *stdioTransport) SetRequestHandler(h transport.RequestHandler) {
	t.handlerMu.Lock()
	t.onRequest = h
	t.handlerMu.Unlock()
}

func (t *stdioTransport) GetSessionId() string { return "" }

// exited reports whether the child is gone.
func (t *stdioTransport) exited() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Close stops the child the MCP way (stdin closed), then its whole process
// group with SIGTERM and, if need be, SIGKILL; it returns once the child is
// reaped.
func (t *stdioTransport) Close() error {
	t.closeOnce.Do(func() {
		if t.cmd.Process == nil {
			close(t.done)
			return
		}
		t.writeMu.Lock()
		if err := t.stdin.Close(); err != nil {
			t.closeErr = fmt.Errorf("close server stdin: %w", err)
		}
		t.writeMu.Unlock()
		pgid := t.pid()
		select {
		case <-t.done:
		case <-time.After(groupTermGrace):
			if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.closeErr = fmt.Errorf("signal server: %w", err)
			}
			select {
			case <-t.done:
			case <-time.After(groupTermGrace):
				if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
					t.closeErr = fmt.Errorf("kill server: %w", err)
				}
				<-t.done
			}
		}
		// The server is gone; anything it left in its group goes too.
		killGroup(pgid)
	})
	return t.closeErr
}

// killGroup ends what is left of process group pgid: SIGTERM, a grace
// period, then SIGKILL.
func killGroup(pgid int) {
	if pgid <= 0 || !groupAlive(pgid) {
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
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
			return
		}
	}
}
