package connections

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"dispatch/pipeio"
	"dispatch/rawjson"
)

// Limits of a stdio connection. Each is a named, documented limit.
const (
	// DefaultMaxMessageBytes bounds one JSON-RPC message from a stdio
	// server (--max-message), and one HTTP answer or SSE event of a
	// remote server (guardAnswer). A larger one is refused with an error
	// naming the limit, instead of growing dispatch's memory without end.
	DefaultMaxMessageBytes = 512 << 20
	// MaxServerRequests bounds the requests (sampling, roots/list, ...) a
	// server may have waiting for dispatch's answer, per connection, so
	// that a server flooding requests cannot make dispatch hold a
	// goroutine and an answer for each. One more is refused at once with
	// an error saying so (a ping is answered), and reading goes on: the
	// results of other calls on that server are not held up behind
	// requests that wait on an agent. The refusals being written are
	// bounded the same; past that (a server that floods requests and
	// reads nothing) dispatch stops reading until one is written. A
	// relayed request gives its place back once the calls it came during
	// have ended (endWithCalls), so an agent that went away holds none.
	MaxServerRequests = 16
	// DefaultStdinTimeout (--stdin-timeout) is how long a write of one
	// message to a server's stdin may take, from its start, before
	// dispatch decides the server stopped reading it, treats it as hung
	// and stops it: a message cannot be abandoned half written. Time
	// dispatch keeps the server waiting (see writeAll) does not count.
	DefaultStdinTimeout = 30 * time.Second
	// OverlongLineFactor bounds a message over --max-message: its call
	// fails as soon as the limit is crossed, and the rest is read and
	// discarded so that the connection goes on; but once the message has
	// gone on for this many times --max-message without ending, the
	// server is treated as broken (one writing without end would
	// otherwise keep dispatch reading for ever): it is stopped, whatever
	// waits on it fails, and the next use starts it afresh.
	OverlongLineFactor = 4
	// MaxAnswerNesting bounds how deep a stdio server's message may nest
	// arrays and objects. A deeper one fails the call it answers and is
	// not parsed: the validator recurses once per level, and a line of a
	// few million brackets (a few MB, far under --max-message) would grow
	// the reading goroutine's stack past Go's limit, a crash that ends
	// every connection. At this depth the validator needs about 16 MiB of
	// stack; streamable HTTP and SSE servers' messages are decoded by
	// encoding/json, which stops at 10,000 levels.
	MaxAnswerNesting = 100_000
	// exitDrainLimit is how long, once a server has exited, what it wrote
	// before exiting may still be read from its stdout and stderr. A
	// grandchild that holds them open delays the report of the exit by no
	// more than this.
	exitDrainLimit = 250 * time.Millisecond
)

// stdioOptions are the limits of one stdio transport.
type stdioOptions struct {
	maxMessage   int           // DefaultMaxMessageBytes if 0
	stdinTimeout time.Duration // DefaultStdinTimeout if 0
	// requestTimeout bounds answering one request of the server
	// (ServerRequestTimeout if 0); the answer itself is written with a
	// bound of its own (see writeAnswer).
	requestTimeout time.Duration
	inheritEnv     bool // every server gets all of dispatch's environment
	// alias and log name the server in what the transport logs (nil: a
	// logger that discards).
	alias string
	log   *slog.Logger
	// redactor masks the words of an http(s) server's answers that its
	// errors quote (newHTTPClient).
	redactor *Redactor
	// stdinStandIn, for tests only, replaces the child's stdin pipe
	// before any goroutine uses it (a pipe without write deadlines, as on
	// Windows).
	stdinStandIn func(*os.File) (*os.File, error)
}

// stdioTransport speaks JSON-RPC to a child process over its stdin and
// stdout. dispatch has its own rather than mcp-go's because it must bound
// the size of a message and the requests a server may have in flight,
// notice a server that stops reading its stdin, show the lines a broken
// server prints on stdout instead of JSON-RPC, know the moment the child
// exits (even while a grandchild holds its stdout open), and own the
// child's process group.
type stdioTransport struct {
	cmd            *exec.Cmd
	diag           io.Writer // the server's stderr tail; stray stdout lines go there too
	maxMsg         int
	stdinTimeout   time.Duration
	requestTimeout time.Duration

	// dispatch's ends of the child's stdio. They are pipes dispatch owns
	// (not exec's), so that writes can have deadlines and reads can be
	// ended by closing them.
	stdin, stdout, stderr *os.File
	stdinOnce             sync.Once

	// writeSlot holds a token while one message is written, so messages
	// never interleave; waiting for it respects the caller's context.
	writeSlot chan struct{}
	// requestSlots holds a token per server request being answered
	// (MaxServerRequests), refusalSlots one per refusal of a request
	// past them being written.
	requestSlots chan struct{}
	refusalSlots chan struct{}

	pendingMu sync.Mutex
	pending   map[pendingKey]pendingRequest

	// The time the stdout reader spends handing answers and notifications
	// on (to a caller that may wait on the agent), not reading: while it
	// does, the server may wait on its stdout and stop reading its stdin,
	// which is dispatch's doing. Since clockBase, in nanoseconds.
	clockBase    time.Time
	handingSince atomic.Int64 // when the hand-off under way began; 0: none
	handedNanos  atomic.Int64 // all finished hand-offs' time

	handlerMu sync.RWMutex
	onNotify  func(mcp.JSONRPCNotification)
	onRequest transport.RequestHandler

	group   *procGroup    // the child and what it spawns; set by Start
	exited  chan struct{} // closed when the child has been reaped
	exitErr error         // set before exited closes
	done    chan struct{} // closed after exited, once the child's output is read and pending requests failed
	endOnce sync.Once     // closes exited and done for a child that never ran

	broken atomic.Bool // a write to stdin failed: the session is over

	alias        string
	log          *slog.Logger
	redactor     *Redactor                          // masks the server's text its errors quote (unattributedError)
	stdinStandIn func(*os.File) (*os.File, error)   // see stdioOptions
	unattributed atomic.Pointer[unattributedAnswer] // the last error answered to id null

	failMu  sync.Mutex
	failErr error // why dispatch gave up on a live server; said instead of its exit status

	closeOnce sync.Once
	closeErr  error
}

var (
	_ transport.Interface              = (*stdioTransport)(nil)
	_ transport.BidirectionalInterface = (*stdioTransport)(nil)
)

// newStdioTransport prepares the child; Start runs it.
func newStdioTransport(cfg ServerConfig, stderr io.Writer, opts stdioOptions) *stdioTransport {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = serverEnv(os.Environ(), cfg.Env, cfg.InheritEnv || opts.inheritEnv)
	cmd.Dir = cfg.Cwd
	startInOwnGroup(cmd)
	if opts.maxMessage <= 0 {
		opts.maxMessage = DefaultMaxMessageBytes
	}
	if opts.stdinTimeout <= 0 {
		opts.stdinTimeout = DefaultStdinTimeout
	}
	if opts.requestTimeout <= 0 {
		opts.requestTimeout = ServerRequestTimeout
	}
	if opts.log == nil {
		opts.log = discardLogger
	}
	return &stdioTransport{
		cmd:            cmd,
		diag:           stderr,
		maxMsg:         opts.maxMessage,
		stdinTimeout:   opts.stdinTimeout,
		requestTimeout: opts.requestTimeout,
		writeSlot:      make(chan struct{}, 1),
		requestSlots:   make(chan struct{}, MaxServerRequests),
		refusalSlots:   make(chan struct{}, MaxServerRequests),
		pending:        make(map[pendingKey]pendingRequest),
		exited:         make(chan struct{}),
		done:           make(chan struct{}),
		clockBase:      time.Now(),
		alias:          opts.alias,
		redactor:       opts.redactor,
		log:            opts.log,
		stdinStandIn:   opts.stdinStandIn,
	}
}

// Start runs the child. The context is not kept: the child lives until
// Close, whatever happens to the call that started it.
func (t *stdioTransport) Start(context.Context) error {
	p, err := openPipes()
	if err != nil {
		return err
	}
	t.cmd.Stdin, t.cmd.Stdout, t.cmd.Stderr = p.childIn, p.childOut, p.childErr
	err = t.cmd.Start()
	// The child has its own copies now; ours would keep its stdout open
	// after it exits.
	p.closeChildEnds()
	if err != nil {
		p.closeOurEnds()
		t.exitErr = err
		t.endUnstarted()
		return err
	}
	if t.group, err = joinGroup(t.cmd.Process); err != nil {
		// joinGroup killed the child; reap it before saying it failed.
		p.closeOurEnds()
		t.exitErr = errors.Join(err, t.cmd.Wait())
		t.endUnstarted()
		return err
	}
	t.stdin, t.stdout, t.stderr = p.in, p.out, p.err
	if t.stdinStandIn != nil {
		if t.stdin, err = t.stdinStandIn(p.in); err != nil {
			p.closeOurEnds()
			t.exitErr = errors.Join(err, t.cmd.Process.Kill(), t.cmd.Wait())
			t.endUnstarted()
			return err
		}
	}
	stdoutRead, stderrRead := make(chan struct{}), make(chan struct{})
	go t.readLoop(stdoutRead)
	go t.copyStderr(stderrRead)
	go t.waitLoop(stdoutRead, stderrRead)
	return nil
}

// pipes are the child's stdin, stdout and stderr: the child's ends and
// dispatch's.
type pipes struct {
	childIn, childOut, childErr *os.File
	in, out, err                *os.File
}

func openPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.childIn, p.in, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	if p.out, p.childOut, err = os.Pipe(); err != nil {
		p.closeChildEnds()
		p.closeOurEnds()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if p.err, p.childErr, err = os.Pipe(); err != nil {
		p.closeChildEnds()
		p.closeOurEnds()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	return &p, nil
}

func (p *pipes) closeChildEnds() { closeFiles(p.childIn, p.childOut, p.childErr) }
func (p *pipes) closeOurEnds()   { closeFiles(p.in, p.out, p.err) }

// closeFiles closes pipe ends; closing a pipe end cannot fail in a way
// anyone could act on.
func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close() //nolint:errcheck // see above
		}
	}
}

// endUnstarted marks a child that never ran as ended.
func (t *stdioTransport) endUnstarted() {
	t.endOnce.Do(func() {
		close(t.exited)
		close(t.done)
	})
}

// readLoop reads one message per line until stdout ends or is closed.
func (t *stdioTransport) readLoop(finished chan<- struct{}) {
	defer close(finished)
	r := bufio.NewReaderSize(pipeio.NewReader(t.stdout), 64<<10)
	for {
		line, tooLong, err := readLine(r, t.maxMsg)
		if errors.Is(err, errLineGoesOn) {
			// Its request fails now, not once the line ends, which
			// may be never.
			t.refuseTooLong(line, tooLong, false)
			var skipped int
			skipped, err = skipLine(r, t.endlessBound()-tooLong)
			if errors.Is(err, errEndlessLine) {
				t.stuck(fmt.Errorf("the server wrote a message of more than %s without ending it (%d × --max-message, OverlongLineFactor), so it was treated as broken and stopped; it is started afresh on next use",
					humanize.IBytes(uint64(tooLong+skipped)), OverlongLineFactor))
				return
			}
			fmt.Fprintf(t.diag, "[stdout] the message over the limit ended at %s\n", humanize.IBytes(uint64(tooLong+skipped)))
		} else if len(line) > 0 || tooLong > 0 {
			t.dispatchLine(line, tooLong)
		}
		if err != nil {
			return
		}
	}
}

// endlessBound is how long a line over --max-message may go on, all of
// it counted, before the server is treated as broken (OverlongLineFactor).
func (t *stdioTransport) endlessBound() int {
	if t.maxMsg > math.MaxInt/OverlongLineFactor {
		return math.MaxInt
	}
	return t.maxMsg * OverlongLineFactor
}

// copyStderr keeps the server's stderr until it ends or is closed.
func (t *stdioTransport) copyStderr(finished chan<- struct{}) {
	defer close(finished)
	if _, err := io.Copy(t.diag, t.stderr); err != nil && !errors.Is(err, os.ErrClosed) {
		fmt.Fprintf(t.diag, "[dispatch] read server stderr: %v\n", err)
	}
}

// waitLoop waits for the child itself, not for its stdout to end: a
// grandchild may hold that open long after the server exited. Once the
// child is reaped it reads what is left of its output (for a short while),
// fails every request still waiting, and ends what remains of its
// process group.
func (t *stdioTransport) waitLoop(stdoutRead, stderrRead <-chan struct{}) {
	t.exitErr = t.cmd.Wait()
	close(t.exited)
	// Writes must fail now, even if a grandchild holds stdin open.
	t.closeStdin()
	drain, stop := context.WithTimeout(context.Background(), exitDrainLimit)
	for _, read := range []<-chan struct{}{stdoutRead, stderrRead} {
		select {
		case <-read:
		case <-drain.Done():
		}
	}
	stop()
	closeFiles(t.stdout, t.stderr) // ends the reads a grandchild keeps alive
	<-stdoutRead
	<-stderrRead
	var orphans []func(*transport.JSONRPCResponse, error)
	t.pendingMu.Lock()
	for id, p := range t.pending {
		if p.done != nil {
			orphans = append(orphans, p.done)
		} else {
			close(p.ch)
		}
		delete(t.pending, id)
	}
	t.pendingMu.Unlock()
	t.endOnce.Do(func() { close(t.done) })
	if len(orphans) > 0 {
		err := t.exitError() // done is closed: it does not wait
		for _, done := range orphans {
			done(nil, err)
		}
	}
	if err := endGroup(t.group); err != nil {
		fmt.Fprintf(t.diag, "[dispatch] %v\n", err)
	}
	releaseGroup(t.group)
}

func (t *stdioTransport) dispatchLine(line []byte, tooLong int) {
	if tooLong > 0 {
		t.refuseTooLong(line, tooLong, true)
		return
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return
	}
	if !rawjson.NestingWithin(trimmed, MaxAnswerNesting) {
		t.refuseTooDeep(trimmed)
		return
	}
	msg, ok := parseEnvelope(trimmed)
	if !ok {
		// Not JSON-RPC: a server that logs to stdout, or a broken one.
		// Keep it beside stderr, where error messages look.
		fmt.Fprintf(t.diag, "[stdout, not JSON-RPC] %s\n", preview(trimmed, 200))
		return
	}
	switch {
	case msg.Method != "" && msg.ID == nil:
		t.notify(msg)
	case msg.Method != "":
		select {
		case t.requestSlots <- struct{}{}:
			go t.serveRequest(msg)
		default:
			t.refuseRequest(msg)
		}
	case msg.ID != nil:
		t.deliver(*msg.ID, &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: *msg.ID, Result: msg.Result, Error: msg.Error})
	case msg.Error != nil:
		t.unattributedError(msg.Error)
	}
}

// refuseTooLong fails the request an oversized response answers, found
// from the id near the start of the line. size is the line's length if
// ended, else how much of it was read when it crossed the limit.
func (t *stdioTransport) refuseTooLong(head []byte, size int, ended bool) {
	more := ""
	if !ended {
		more = "more than "
	}
	msg := fmt.Sprintf("message of %s%s exceeds the limit of %s (raise --max-message)",
		more, humanize.IBytes(uint64(size)), humanize.IBytes(uint64(t.maxMsg)))
	fmt.Fprintf(t.diag, "[stdout] %s\n", msg)
	t.failAnswered(head, &MessageTooLongError{Size: int64(size), Ended: ended, Limit: int64(t.maxMsg)})
}

// refuseTooDeep fails the request a message nested past MaxAnswerNesting
// answers, without parsing the message.
func (t *stdioTransport) refuseTooDeep(line []byte) {
	refusal := &MessageTooDeepError{Limit: MaxAnswerNesting}
	fmt.Fprintf(t.diag, "[stdout] %v\n", refusal)
	t.failAnswered(line, refusal)
}

// failAnswered fails, with refusal, the request the message starting with
// head answers, found from its top-level id wherever it stands among the
// members (one pass, safe however deep the message nests); one whose id
// is not within head (cut short) is left to its time limit.
func (t *stdioTransport) failAnswered(head []byte, refusal error) {
	raw, ok := rawjson.TopLevelMember(head, "id")
	if !ok {
		return
	}
	var id mcp.RequestId
	if err := json.Unmarshal(raw, &id); err != nil || id.IsNil() {
		return
	}
	t.deliverErr(id, refusal)
}

func preview(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

func (t *stdioTransport) deliver(id mcp.RequestId, resp *transport.JSONRPCResponse) {
	t.deliverAnswer(id, pendingAnswer{resp: resp})
}

// deliverErr fails the request id with dispatch's own err (the server
// sent no answer dispatch could take).
func (t *stdioTransport) deliverErr(id mcp.RequestId, err error) {
	t.deliverAnswer(id, pendingAnswer{err: err})
}

func (t *stdioTransport) deliverAnswer(id mcp.RequestId, a pendingAnswer) {
	key := pendingKeyOf(id)
	t.pendingMu.Lock()
	p, ok := t.pending[key]
	delete(t.pending, key)
	t.pendingMu.Unlock()
	switch {
	case !ok:
	case p.done != nil:
		start := t.beginHandOff()
		p.done(a.resp, a.err)
		t.endHandOff(start)
	default:
		p.ch <- a
	}
}

// beginHandOff and endHandOff bracket the reader's handing on of what
// the server wrote, which may wait (on the agent reading its stdout): time
// the reader is not reading. A panic in between is the reader's end.
func (t *stdioTransport) beginHandOff() int64 {
	start := max(1, int64(time.Since(t.clockBase)))
	t.handingSince.Store(start)
	return start
}

func (t *stdioTransport) endHandOff(start int64) {
	t.handedNanos.Add(int64(time.Since(t.clockBase)) - start)
	t.handingSince.Store(0)
}

// handedOff is all the time the reader has spent in handOff so far,
// the one under way included.
func (t *stdioTransport) handedOff() time.Duration {
	since := t.handingSince.Load()
	total := t.handedNanos.Load()
	if since != 0 {
		total += max(0, int64(time.Since(t.clockBase))-since)
	}
	return time.Duration(total)
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
		start := t.beginHandOff()
		h(n)
		t.endHandOff(start)
	}
}

// serveRequest answers a request from the server (ping, roots/list, ...)
// and gives its slot back. The request is served within requestTimeout;
// the answer, an error one when dispatch gave up on it, is written after,
// with a bound of its own, so that no request dispatch took goes
// unanswered (but one the server cancelled).
func (t *stdioTransport) serveRequest(msg envelope) {
	defer func() { <-t.requestSlots }()
	ctx, cancel := context.WithTimeout(context.Background(), t.requestTimeout)
	resp := t.answerFor(ctx, msg)
	cancel()
	if resp != nil {
		t.writeAnswer(resp)
	}
}

// answerFor is the answer to the server's request msg: the handler's, or
// an error; nil when none is due (the server cancelled the request).
func (t *stdioTransport) answerFor(ctx context.Context, msg envelope) *transport.JSONRPCResponse {
	t.handlerMu.RLock()
	h := t.onRequest
	t.handlerMu.RUnlock()
	if h == nil {
		return transport.NewJSONRPCErrorResponse(*msg.ID, mcp.METHOD_NOT_FOUND, "dispatch does not serve "+msg.Method, nil)
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: *msg.ID, Method: msg.Method, Params: msg.Params}
	resp, err := h(ctx, req)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(*msg.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
	}
	return resp
}

// refuseRequest answers at once a request past MaxServerRequests (a ping
// with its result: it asks nothing of the agent), on a goroutine of its
// own so that reading goes on; with MaxServerRequests refusals being
// written already, the reader waits for one.
func (t *stdioTransport) refuseRequest(msg envelope) {
	resp := transport.NewJSONRPCErrorResponse(*msg.ID, mcp.INTERNAL_ERROR, fmt.Sprintf(
		"dispatch is busy: %d requests of this server already wait for their answer (MaxServerRequests); %s was not relayed: send it again once one is answered",
		MaxServerRequests, preview([]byte(msg.Method), 100)), nil)
	if msg.Method == string(mcp.MethodPing) {
		resp = transport.NewJSONRPCResultResponse(*msg.ID, json.RawMessage(`{}`))
	}
	select {
	case t.refusalSlots <- struct{}{}:
		go func() {
			defer func() { <-t.refusalSlots }()
			t.writeAnswer(resp)
		}()
	case <-t.exited:
	}
}

// writeAnswer writes the answer to one of the server's requests. Its
// context is its own, not the request's, which may have expired: the
// answer waits for the write slot at most --stdin-timeout, and the write
// itself is bounded by it as every write is.
func (t *stdioTransport) writeAnswer(resp *transport.JSONRPCResponse) {
	ctx, cancel := context.WithTimeout(context.Background(), t.stdinTimeout)
	defer cancel()
	if err := t.writeJSON(ctx, resp); err != nil {
		return // the server is gone or stuck; its requests do not matter any more
	}
}

// writeJSON writes v as one line. Waiting for another message to be
// written first ends with ctx; a write that makes no progress for the
// stdin timeout gives up on the server (see stuck).
func (t *stdioTransport) writeJSON(ctx context.Context, v any) error {
	var data []byte
	var err error
	if request, ok := v.(transport.JSONRPCRequest); ok {
		data, err = encodeRequest(request)
	} else if data, err = json.Marshal(v); err == nil {
		data = append(data, '\n')
	}
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	select {
	case t.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-t.exited:
		return t.exitError()
	}
	defer func() { <-t.writeSlot }()
	select {
	case <-t.exited:
		return t.exitError()
	default:
	}
	return t.writeAll(data, ctx.Err)
}

// writeAll writes data to the server's stdin. A server that reads slowly
// is waited for, but the whole write must end within the stdin timeout of
// its start: a fresh timeout after each bit of progress would let a
// server that takes a little now and then hold the write for ever. The
// time dispatch's reader of the server's stdout spends handing answers on
// (to an agent that may not be reading its own stdout) does not count: a
// server may stop reading its stdin while it waits to write its stdout,
// and that is dispatch's doing, not a hang. Such a wait ends with the
// server's exit (its stdin is closed then), or, while nothing of data is
// written yet, when abandon (nil: never) says the message is not wanted
// any more.
func (t *stdioTransport) writeAll(data []byte, abandon func() error) error {
	// The deadline must not outlive this write: writeNow, which never
	// sets one, would fail on it once it passed.
	defer t.stdin.SetWriteDeadline(time.Time{}) //nolint:errcheck // a pipe without deadlines has none to clear
	written := false
	start, handedAtStart := time.Now(), t.handedOff()
	// The write's deadline: the stdin timeout from its start, and the
	// time dispatch has kept the server waiting since, which it is owed.
	deadline := func() time.Time { return start.Add(t.stdinTimeout + t.handedOff() - handedAtStart) }
	var unwatch func() // set while a timer stands in for the deadline
	defer func() {
		if unwatch != nil {
			unwatch()
		}
	}()
	for len(data) > 0 {
		hasDeadline := true
		// Never less than minStdinWait ahead: owing a moment must not
		// make the write spin.
		if err := t.stdin.SetWriteDeadline(later(deadline(), time.Now().Add(minStdinWait))); err != nil {
			hasDeadline = false // a pipe without deadlines (Windows): a timer stands in
			if unwatch == nil {
				unwatch = t.watchWrite(deadline)
			}
		}
		n, err := t.stdin.Write(data)
		data = data[n:]
		written = written || n > 0
		switch {
		case err == nil:
		case hasDeadline && errors.Is(err, os.ErrDeadlineExceeded):
			if !time.Now().Before(deadline()) {
				return t.stuck(stdinTimeoutError(t.stdinTimeout))
			}
			// Dispatch kept the server waiting meanwhile: it is owed
			// that time, unless the message is not wanted any more.
			if !written && abandon != nil {
				if err := abandon(); err != nil {
					return err
				}
			}
		default:
			t.broken.Store(true)
			return t.writeError(err)
		}
	}
	return nil
}

// brokenPipeExitWait bounds how long a write that failed (a broken pipe:
// the server closed its stdin) waits for the server to exit, so that its
// error says how the server ended rather than "broken pipe": a dying
// server's stdin closes a moment before its exit is seen.
const brokenPipeExitWait = 500 * time.Millisecond

// writeError is the error of a write to the server's stdin that failed
// with err: why dispatch gave up on the server, if it did (another write
// found it stuck and closed its stdin under this one), else how the
// server ended, if it does within brokenPipeExitWait, else err.
func (t *stdioTransport) writeError(err error) error {
	if reason := t.failure(); reason != nil {
		return fmt.Errorf("%w: %w", transport.ErrTransportClosed, reason)
	}
	timer := time.NewTimer(brokenPipeExitWait)
	defer timer.Stop()
	select {
	case <-t.exited:
		return t.exitError()
	case <-timer.C:
		return fmt.Errorf("%w: write: %v (the server closed its stdin and is still running)", transport.ErrTransportClosed, err)
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// writeFailed is the error of a write to the server's stdin that failed
// (a broken pipe: the server closed it) before any of the message was
// written. The session ends at once, as when writeJSON fails: no later
// call is sent on it, and the next use stops this server and starts it
// afresh.
func (t *stdioTransport) writeFailed(err error) error {
	t.broken.Store(true)
	return fmt.Errorf("%w: write: %v (%w)", transport.ErrTransportClosed, err, errNotSent)
}

// minStdinWait is the shortest wait writeAll gives a server it owes time:
// no shorter, so that owing a moment does not make it spin.
const minStdinWait = time.Millisecond

// stuck gives up on a server that is alive but cannot be talked to: it is
// stopped, and every request waiting on it fails with reason.
func (t *stdioTransport) stuck(reason error) error {
	t.failMu.Lock()
	if t.failErr == nil {
		t.failErr = reason
	}
	t.failMu.Unlock()
	go func() {
		if err := t.Close(); err != nil {
			fmt.Fprintf(t.diag, "[dispatch] stop stuck server: %v\n", err)
		}
	}()
	return fmt.Errorf("%w: %w", transport.ErrTransportClosed, reason)
}

func (t *stdioTransport) failure() error {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	return t.failErr
}

// SendRequest writes request and waits for its response, the child's
// exit, or ctx.
func (t *stdioTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	key := pendingKeyOf(request.ID)
	ch := make(chan pendingAnswer, 1)
	t.pendingMu.Lock()
	select {
	case <-t.done:
		t.pendingMu.Unlock()
		return nil, t.exitError()
	default:
	}
	t.pending[key] = pendingRequest{ch: ch}
	t.pendingMu.Unlock()
	forget := func() {
		t.pendingMu.Lock()
		delete(t.pending, key)
		t.pendingMu.Unlock()
	}
	if err := t.writeJSON(ctx, request); err != nil {
		forget()
		return nil, err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return nil, t.exitError()
		}
		return a.resp, a.err
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// exitError says how the child ended, or why dispatch stopped it.
func (t *stdioTransport) exitError() error {
	<-t.done
	var exit *exec.ExitError
	switch {
	case t.failure() != nil:
		return fmt.Errorf("%w: %w", transport.ErrTransportClosed, t.failure())
	case errors.As(t.exitErr, &exit) && exit.Exited():
		return fmt.Errorf("%w: server exited with status %d", transport.ErrTransportClosed, exit.ExitCode())
	case errors.As(t.exitErr, &exit):
		return fmt.Errorf("%w: server killed by %v", transport.ErrTransportClosed, exit.ProcessState)
	case t.exitErr != nil:
		return fmt.Errorf("%w: %v", transport.ErrTransportClosed, t.exitErr)
	}
	return fmt.Errorf("%w: server exited", transport.ErrTransportClosed)
}

func (t *stdioTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	return t.writeJSON(ctx, n)
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

// hasExited reports whether the child is gone and its output read.
func (t *stdioTransport) hasExited() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// closeStdin closes the server's stdin: the MCP way to ask it to exit. A
// write blocked on it fails at once.
func (t *stdioTransport) closeStdin() {
	t.stdinOnce.Do(func() { closeFiles(t.stdin) })
}

// Close stops the child the MCP way (stdin closed), then its whole process
// group with SIGTERM and, if need be, SIGKILL, within stdinCloseGrace +
// termGrace; it returns once the child is reaped.
func (t *stdioTransport) Close() error {
	t.closeOnce.Do(func() {
		if t.cmd.Process == nil {
			t.endUnstarted()
			return
		}
		t.closeStdin()
		pgid := t.group
		if t.waitGroupGone(pgid, stdinCloseGrace) {
			return
		}
		if err := termGroup(pgid); err != nil {
			t.closeErr = err
		}
		if t.waitGroupGone(pgid, termGrace) {
			return
		}
		if err := killGroup(pgid); err != nil {
			t.closeErr = err
		}
		<-t.done
	})
	return t.closeErr
}

// waitGroupGone waits up to d for the child to be reaped and nothing to be
// left of its process group.
func (t *stdioTransport) waitGroupGone(pgid *procGroup, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
		return false
	}
	tick := time.NewTicker(groupPollInterval)
	defer tick.Stop()
	for groupAlive(pgid) {
		select {
		case <-timer.C:
			return false
		case <-tick.C:
		}
	}
	return true
}

// groupPollInterval is how often a process group is checked for being
// gone while dispatch waits for it.
const groupPollInterval = 25 * time.Millisecond

// endGroup ends what is left of process group pgid once its leader is
// gone: SIGTERM, termGrace, then SIGKILL.
func endGroup(pgid *procGroup) error {
	if !groupAlive(pgid) {
		return nil
	}
	if err := termGroup(pgid); err != nil {
		return err
	}
	deadline := time.Now().Add(termGrace)
	for time.Now().Before(deadline) && groupAlive(pgid) {
		time.Sleep(groupPollInterval)
	}
	if groupAlive(pgid) {
		return killGroup(pgid)
	}
	return nil
}

// pendingRequest is how a request waiting for its response gets it: on ch
// (SendRequest's caller waits on it), or by done, called on the reading
// goroutine (sendAsync's).
type pendingRequest struct {
	ch   chan pendingAnswer
	done func(*transport.JSONRPCResponse, error)
}

// pendingAnswer is the server's answer to a request, or dispatch's own
// error in its place (MessageTooLongError).
type pendingAnswer struct {
	resp *transport.JSONRPCResponse
	err  error
}

// pendingKey is a request id as the pending map holds it: a string id as
// it is, with no allocation (dispatch's own are strings, one per call),
// any other by RequestId.String; kind keeps the two apart.
type pendingKey struct {
	text  string
	plain bool // text is a string id's value
}

func pendingKeyOf(id mcp.RequestId) pendingKey {
	if s, ok := id.Value().(string); ok {
		return pendingKey{text: s, plain: true}
	}
	return pendingKey{text: id.String()}
}
