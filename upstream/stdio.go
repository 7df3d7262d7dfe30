package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/rawjson"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"
)

// DefaultMaxInFlight is how many of the agent's requests dispatch serves at
// once by default (--max-in-flight).
const DefaultMaxInFlight = 256

// notificationQueue bounds the notifications (progress) waiting to be
// written to the agent; mcp-go drops one that finds the queue full, which
// is the right trade for progress.
const notificationQueue = 100

// DefaultMaxRequestBytes bounds one message from the agent (--max-request).
// A message is read whole before it is parsed, so without a bound one long
// line could take all memory. Inline "arguments" travel in the message;
// inputs larger than this belong in an argumentsFile.
const DefaultMaxRequestBytes = 64 << 20

// MaxRequestNesting is the deepest nesting of arrays and objects a message
// may have: encoding/json, which decodes every message, refuses more. It is
// the limit of the requests dispatch sends servers too: one definition.
const MaxRequestNesting = connections.MaxRequestNesting

// idScanBytes is how much of a message too large to read is kept to find
// its id in, so that the refusal reaches the request it answers.
const idScanBytes = 64 << 10

// StdioOptions tune ServeStdio.
type StdioOptions struct {
	// MaxInFlight bounds the requests served at once. A request past it is
	// answered at once with an error saying dispatch is busy: it never
	// waits, so nothing the agent sends can stop dispatch from reading
	// stdin, and a cancellation is always read and acted on.
	MaxInFlight int
	// DrainTimeout bounds the wait, once the agent has gone or ctx has
	// ended, for requests still running (DefaultDrainTimeout when 0).
	DrainTimeout time.Duration
	// MaxRequestBytes bounds one message from the agent
	// (DefaultMaxRequestBytes when 0). A longer one is answered with an
	// error and skipped without being held in memory.
	MaxRequestBytes int64
	// Relay, when set, is the set of servers whose requests (sampling,
	// elicitation, roots) and logs this agent answers and receives: the
	// agent becomes its upstream, its declared capabilities are mirrored
	// to the servers, and its log level and roots changes reach them.
	Relay *connections.Set
	// Direct, when set, answers the agent's plain tools/call of
	// proxy-dispatch itself (see hotcall.go) instead of through srv: the
	// Service srv's proxy-dispatch handler calls for this agent.
	Direct *dispatch.Service
	// Exposed, with Direct, finds a tool listed beside proxy-dispatch
	// (Surface.ExposedTool), whose plain calls Direct then answers too.
	Exposed func(name string) (dispatch.SurfaceTool, bool)
	Logger  *slog.Logger
}

// DefaultDrainTimeout is how long serving waits at the end for requests it
// cannot cancel: short enough that dispatch exits within 1.5 s of stdin EOF
// together with stopping its servers.
const DefaultDrainTimeout = time.Second

// ServeStdio serves srv to one agent over newline-delimited JSON-RPC on in
// and out until in ends or ctx does, then cancels the requests still in
// flight and returns once their handlers have.
//
// It replaces mcp-go's StdioServer, which runs tool calls past its worker
// pool and queue on its read loop: with 100 slow calls in flight, reading
// stopped, so a list waited for a slow call and a cancellation was read
// only after the call it cancelled had ended.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts StdioOptions) error {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &stdioServer{
		srv:      srv,
		out:      newGroupWriter(out, opts.Logger),
		log:      opts.Logger,
		maxBytes: opts.MaxRequestBytes,
		slots:    make(chan struct{}, opts.MaxInFlight),
		idle:     make(chan func()),
		inFlight: make(map[string]canceller),
		relay:    opts.Relay,
		direct:   opts.Direct,
		exposed:  opts.Exposed,
		agent:    newAgentRequests(MaxPendingAgentRequests),
	}
	sess := &stdioSession{
		notifications: make(chan mcp.JSONRPCNotification, notificationQueue),
		logs:          make(chan mcp.JSONRPCNotification, logQueue),
		server:        s,
	}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer srv.UnregisterSession(ctx, sess.SessionID())
	// Marked once as the agent's (AgentContext), so that its calls need
	// not each add the mark.
	ctx, cancel := context.WithCancel(dispatch.AgentContext(srv.WithContext(ctx, sess)))
	defer cancel()
	if s.relay != nil {
		s.relay.SetUpstream(sess)
	}

	var notifier sync.WaitGroup
	notifier.Go(func() { s.writeNotifications(ctx, sess.notifications) })
	notifier.Go(func() { s.writeNotifications(ctx, sess.logs) })
	err := s.readLoop(ctx, in)
	s.agent.close() // requests waiting for the agent's answer get none
	cancel()        // the agent is gone: so is every request it made
	s.drain(opts.DrainTimeout, &notifier)
	return err
}

// drain waits for the request handlers and the notifier to end, at most
// timeout. Their contexts are cancelled, so they normally end at once; one
// stuck where no context reaches (a write to an agent that stopped reading
// stdout, a long scan of a large file) must not keep dispatch from
// stopping its servers and deleting its result files, so it is abandoned.
func (s *stdioServer) drain(timeout time.Duration, notifier *sync.WaitGroup) {
	s.mu.Lock()
	s.stopped = true // no handler starts after this: Wait below may begin
	// Calls begun without a goroutine of their own (startHot) have no
	// context to end with serving's: they are cancelled here.
	cancels := make([]canceller, 0, len(s.inFlight))
	for _, c := range s.inFlight {
		cancels = append(cancels, c)
	}
	s.mu.Unlock()
	for _, c := range cancels {
		c.cancel()
	}
	done := make(chan struct{})
	go func() {
		s.handlers.Wait()
		notifier.Wait()
		close(done)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.log.Warn("requests still running after shutdown began; abandoning them", "waited", timeout.String())
	}
}

type stdioServer struct {
	srv      *server.MCPServer
	log      *slog.Logger
	maxBytes int64 // one message, MaxRequestBytes

	out *groupWriter // to the agent
	// answerBuffers holds *[]byte of answers written, for the next hot
	// answers to be made in (answerBuffer, reuseAnswer).
	answerBuffers sync.Pool
	// batch holds the hot calls the reader began while it had more lines
	// at hand (readAhead); it is flushed before the reader would wait, or
	// does anything else. A lone call is not held: it is written at once,
	// or, when its server's stdin cannot take it without waiting, served
	// the general way on a goroutine of its own. Only the goroutine
	// reading uses them.
	batch     connections.SendBatch
	readAhead bool

	slots     chan struct{} // one per request being served
	handlers  sync.WaitGroup
	idle      chan func()  // to a handler goroutine waiting for work (unbuffered)
	idleCount atomic.Int32 // handler goroutines waiting for work

	mu       sync.Mutex
	inFlight map[string]canceller // by the request's JSON-RPC id
	ids      idSwaps              // the surrogates of ids mcp-go cannot keep
	stopped  bool                 // serving has ended: start no handler

	relay   *connections.Set                               // nil: no servers' requests to relay
	direct  *dispatch.Service                              // nil: every request goes through srv
	exposed func(name string) (dispatch.SurfaceTool, bool) // nil: none listed beside proxy-dispatch
	agent   *agentRequests                                 // dispatch's own requests to the agent
}

// readLoop reads messages until in ends (nil) or ctx does. The read itself
// runs on another goroutine, which ends when in does, so that a signal
// ends serving at once. That goroutine also handles each message (handle
// never waits for a request to be served): passing each to yet another
// goroutine cost every call a scheduler round trip.
func (s *stdioServer) readLoop(ctx context.Context, in io.Reader) error {
	readErr := make(chan error, 1)
	go s.work(ctx, s.reading(ctx, bufio.NewReaderSize(in, 64<<10), readErr))
	select {
	case <-ctx.Done():
		return nil
	case err := <-readErr:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("read stdin: %w", err)
	}
}

// reading is the job of reading messages from r and handling them until r
// ends (its error goes to readErr) or ctx does. At a hot call it hands the
// reading on to another goroutine and serves the call itself: the call's
// way to its server then waits for no goroutine to be woken (the new
// reader's start overlaps it).
func (s *stdioServer) reading(ctx context.Context, r *bufio.Reader, readErr chan<- error) func() {
	return func() {
		if job := s.read(ctx, r, readErr); job != nil {
			job()
		}
	}
}

// read is reading's loop; it returns the hot call to serve, if any, once
// the reading is handed on.
func (s *stdioServer) read(ctx context.Context, r *bufio.Reader, readErr chan<- error) (job func()) {
	for {
		msg, err := readMessage(r, s.maxBytes)
		if ctx.Err() != nil {
			s.batch.Flush() // the calls held end as serving's others do
			return nil
		}
		switch {
		case msg.oversize:
			s.batch.Flush()
			s.write(errorAnswer(recoverID(msg.data), mcp.INVALID_REQUEST, tooLargeText(s.maxBytes)))
		case len(bytes.TrimSpace(msg.data)) > 0:
			s.readAhead = lineBuffered(r)
			job = s.handle(ctx, msg.data, err == nil)
		}
		if err != nil {
			s.batch.Flush()
			readErr <- err
			return nil
		}
		if job != nil {
			s.batch.Flush() // before the next reader may use it
			s.hand(ctx, s.reading(ctx, r, readErr))
			return job
		}
		if !lineBuffered(r) {
			s.batch.Flush() // the next read may wait
		}
	}
}

// lineBuffered reports whether r holds a whole line, which it can read
// without waiting: bytes buffered short of a newline (part of the next
// message) may wait for the rest for as long as the agent likes.
func lineBuffered(r *bufio.Reader) bool {
	buf, _ := r.Peek(r.Buffered()) // buffered: never waits, never fails
	return bytes.IndexByte(buf, '\n') >= 0
}

// incoming is one line from the agent, or for a line longer than the
// limit (oversize) its first idScanBytes.
type incoming struct {
	data     []byte
	oversize bool
}

// readMessage reads one line of at most limit bytes. A longer line is
// read to its end in the reader's buffer and dropped, keeping only its
// start, so its size costs no memory.
func readMessage(r *bufio.Reader, limit int64) (incoming, error) {
	var msg incoming
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case msg.oversize:
			// Skipping: nothing more is kept.
		case int64(len(msg.data))+int64(len(chunk)) > limit:
			msg.oversize = true
			whole := append(msg.data, chunk...)
			msg.data = bytes.Clone(whole[:min(len(whole), idScanBytes)])
		default:
			msg.data = append(msg.data, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return msg, err
		}
	}
}

func tooLargeText(limit int64) string {
	return fmt.Sprintf("request too large: one message may hold at most %s (the limit, --max-request); this one was skipped, not run. Pass large inputs in a file with \"argumentsFile\" instead of inline \"arguments\", or restart dispatch with a larger --max-request.",
		humanize.IBytes(uint64(limit)))
}

func tooDeepText() string {
	return fmt.Sprintf("request nested too deeply: more than %d levels of arrays and objects (the limit, MaxRequestNesting); it was not run. Flatten the data: JSON nested this deep is refused everywhere, in arguments files too.", MaxRequestNesting)
}

// recoverID finds the top-level "id" of a message that cannot be decoded
// (too large, too deep, or broken further on), so that the error answers
// the request it is about. Without one it is null.
func recoverID(data []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if name, ok := key.(string); ok && name == "id" {
			return scalarID(dec)
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
}

// scalarID reads the value of "id", as written: a string or a number,
// else nothing.
func scalarID(dec *json.Decoder) json.RawMessage {
	var id json.RawMessage
	if !dec.More() || dec.Decode(&id) != nil || len(id) == 0 {
		return nil
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return id
	}
	return nil
}

// skipValue reads past one value. Token walks nesting without the depth
// limit of Decode, keeping only a small stack.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// message is what the read loop needs to know of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
	// A response's: the agent's answer to a request of dispatch's.
	Result json.RawMessage       `json:"result"`
	Error  *connections.RPCError `json:"error"`
}

// handle dispatches one message without waiting for any handler. A hot
// call, when inline, is returned as a job for the caller to run instead.
func (s *stdioServer) handle(ctx context.Context, line []byte, inline bool) (job func()) {
	if s.direct != nil {
		if call, ok := parseHotCall(line); ok {
			if t, exposed, ok := s.hotTool(call); ok {
				if !exposed {
					call.readPlain()
				}
				if s.startHot(ctx, call, t, exposed) {
					return nil
				}
				s.batch.Flush() // the calls before this one go first
				// id, not call: a call held by the closure would be
				// moved to the heap on every call, the hot ones too.
				answer, id, tool := s.hotAnswer(call, t, exposed), call.id, handlerName(t, exposed)
				return s.serve(ctx, message{ID: id, Method: string(mcp.MethodToolsCall)}, string(id), inline, func(ctx context.Context) {
					s.answerHot(ctx, id, tool, line, answer)
				})
			}
		}
	}
	// Whatever the line is, it may concern the calls held (cancel one),
	// and goes after them.
	s.batch.Flush()
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil {
		s.write(undecodable(line))
		return nil
	}
	if msg.Method != "" && !validRequestID(msg.ID) {
		s.write(errorAnswer(nil, mcp.INVALID_REQUEST, invalidIDText(msg.ID)))
		return nil
	}
	isRequest := len(msg.ID) > 0 && string(msg.ID) != "null"
	switch {
	case msg.Method == "":
		if !s.agent.answer(msg) {
			s.log.Debug("ignored a response from the agent to no request of dispatch's")
		}
	case !isRequest:
		switch msg.Method {
		case string(mcp.MethodNotificationCancelled):
			s.cancel(msg.Params.RequestID)
			var ok bool
			if line, ok = s.cancellationForMCP(line, msg.Params.RequestID); !ok {
				return nil
			}
		case string(mcp.MethodNotificationRootsListChanged):
			if s.relay != nil {
				s.relay.RootsChanged()
			}
		}
		// Notifications are quick and carry no answer.
		s.reply(ctx, line, nil)
	default:
		s.serve(ctx, msg, idKey(msg.ID), false, func(ctx context.Context) { s.reply(ctx, line, msg.ID) })
	}
	return nil
}

// undecodable answers a line that is not a JSON-RPC message dispatch can
// decode, to its id when that can be found.
func undecodable(line []byte) mcp.JSONRPCMessage {
	id := recoverID(line)
	if !rawjson.NestingWithin(line, MaxRequestNesting) {
		return errorAnswer(id, mcp.INVALID_REQUEST, tooDeepText())
	}
	return errorAnswer(id, mcp.PARSE_ERROR, "Parse error: each line must be one JSON-RPC message")
}

// serve runs a request on its own goroutine, or answers at once that
// dispatch is busy when MaxInFlight requests are being served. key is the
// request's id as idKey spells it, which a cancellation finds it by. With
// inline, the request is returned as a job for the caller to run, ready
// to be cancelled.
func (s *stdioServer) serve(ctx context.Context, msg message, key string, inline bool, run func(context.Context)) (inlineJob func()) {
	select {
	case s.slots <- struct{}{}:
	default:
		s.write(busyAnswer(msg, cap(s.slots)))
		return nil
	}
	reqCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		cancel()
		<-s.slots
		return nil // the agent is gone: no one to answer
	}
	s.inFlight[key] = cancelFunc(cancel)
	s.handlers.Add(1)
	s.mu.Unlock()
	job := func() {
		defer s.handlers.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inFlight, key)
			s.mu.Unlock()
			cancel()
			<-s.slots
		}()
		run(reqCtx)
	}
	if inline {
		return job
	}
	s.hand(ctx, job)
	return nil
}

// hand runs job on an idle handler goroutine, or on a new one.
func (s *stdioServer) hand(ctx context.Context, job func()) {
	select {
	case s.idle <- job:
	default:
		go s.work(ctx, job)
	}
}

// maxIdleHandlers bounds the handler goroutines kept waiting for the next
// request once theirs is served. A new goroutine per request spent a tenth
// of a small call's CPU growing its stack; a kept one has grown it.
const maxIdleHandlers = 32

// work runs job, then further requests handed to it while it is one of
// the maxIdleHandlers idle ones, until ctx ends.
func (s *stdioServer) work(ctx context.Context, job func()) {
	for {
		job()
		if s.idleCount.Add(1) > maxIdleHandlers {
			s.idleCount.Add(-1)
			return
		}
		select {
		case job = <-s.idle:
			s.idleCount.Add(-1)
		case <-ctx.Done():
			s.idleCount.Add(-1)
			return
		}
	}
}

// cancel ends the context of a request in flight. mcp-go does the same
// once its handler has started; this covers the moment before.
func (s *stdioServer) cancel(id json.RawMessage) {
	s.mu.Lock()
	c := s.inFlight[idKey(id)]
	s.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// canceller is a request in flight as a cancellation finds it: a
// served request's context's cancelFunc, or a started call (hotStart),
// filed as itself, not as a method value made for it on every call.
type canceller interface{ cancel() }

type cancelFunc context.CancelFunc

func (f cancelFunc) cancel() { f() }

// reply has mcp-go handle a message and writes its answer, if any, to
// id (the request's, as sent; nil for a notification): under a surrogate
// when mcp-go could not give id back exactly (see idswap.go). An agent's
// progress token mcp-go would not keep goes to it in a string of
// dispatch's (dispatch.ExactProgressToken).
func (s *stdioServer) reply(ctx context.Context, line []byte, id json.RawMessage) {
	line = dispatch.ExactProgressToken(line)
	if id != nil && needsSwap(id) {
		surrogate, release := s.ids.swap(id)
		defer release()
		swapped, err := withMember(line, false, "id", surrogate)
		if err != nil { // not reached: line was decoded as an object
			s.write(errorAnswer(id, mcp.INTERNAL_ERROR, "dispatch could not re-encode this request: "+err.Error()))
			return
		}
		line = swapped
	}
	var resp mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic serving a request", "panic", fmt.Sprint(r))
				var msg message
				if json.Unmarshal(line, &msg) == nil && len(msg.ID) > 0 {
					resp = errorAnswer(msg.ID, mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", r))
				}
			}
		}()
		ctx, serverErr := withServerErrors(dispatch.WithAgentMeta(ctx, line))
		resp = serverErr.answer(s.srv.HandleMessage(ctx, line))
	}()
	if resp != nil {
		s.write(withExactID(resp, id))
	}
}

// cancellationForMCP is the agent's notifications/cancelled line as mcp-go
// must see it: naming the surrogate of a request served under one. A
// cancellation of an id mcp-go cannot read exactly, of no request being
// served, is not passed on (ok false): mcp-go would cancel another
// request whose id reads the same. s.cancel has ended the request's
// context either way.
func (s *stdioServer) cancellationForMCP(line []byte, requestID json.RawMessage) (_ []byte, ok bool) {
	if len(requestID) == 0 || !needsSwap(requestID) {
		return line, true
	}
	surrogate, found := s.ids.surrogateOf(requestID)
	if !found {
		return nil, false
	}
	swapped, err := withMember(line, true, "requestId", surrogate)
	if err != nil {
		return nil, false
	}
	return swapped, true
}

// withExactID is answer msg with its id set to id, the request's as the
// agent sent it (nil: msg as it is), which write gives back byte for byte.
func withExactID(msg mcp.JSONRPCMessage, id json.RawMessage) mcp.JSONRPCMessage {
	if id == nil {
		return msg
	}
	exact := mcp.NewRequestId(id)
	switch m := msg.(type) {
	case mcp.JSONRPCResponse:
		m.ID = exact
		return m
	case *mcp.JSONRPCResponse:
		if m != nil {
			m.ID = exact
		}
	case mcp.JSONRPCError:
		m.ID = exact
		return m
	case *mcp.JSONRPCError:
		if m != nil {
			m.ID = exact
		}
	}
	return msg
}

// busyAnswer tells the agent a request was not run because too many are.
// A tool call gets an isError result the agent reads like any tool error.
func busyAnswer(msg message, limit int) mcp.JSONRPCMessage {
	text := fmt.Sprintf("dispatch is busy: %d requests are already in flight (the limit, --max-in-flight); this one was not run. Wait for some to finish, or cancel those no longer needed, then retry.", limit)
	if msg.Method == string(mcp.MethodToolsCall) {
		return mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: rawID(msg.ID), Result: mcp.NewToolResultError(text)}
	}
	return errorAnswer(msg.ID, mcp.INTERNAL_ERROR, text)
}

func errorAnswer(id json.RawMessage, code int, text string) mcp.JSONRPCMessage {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: rawID(id), Error: mcp.NewJSONRPCErrorDetails(code, text, nil)}
}

// idKey is a request id in one canonical form, so that the id a
// cancellation names finds the request however either spelt a string.
// A number is kept as written: read as a float64, 9007199254740993 and
// 9007199254740992 were one key.
func idKey(id json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(id)
	}
	canonical, err := json.Marshal(v)
	if err != nil {
		return string(id)
	}
	return string(canonical)
}

// rawID is a request's id, as sent, as the id type mcp-go marshals:
// write gives it back byte for byte. One that is not a string or a
// number is null.
func rawID(id json.RawMessage) mcp.RequestId {
	switch gjson.ParseBytes(id).Type {
	case gjson.String, gjson.Number:
		if json.Valid(id) {
			return mcp.NewRequestId(id)
		}
	}
	return mcp.NewRequestId(nil)
}

// write sends one message as one line. An answer that cannot be encoded
// is answered with an error saying why: an id left unanswered holds the
// agent's call open for ever.
func (s *stdioServer) write(msg any) {
	data, err := json.Marshal(msg)
	if err == nil {
		data = exactAnswerID(data, msg)
	}
	if err != nil {
		s.log.Error("encode an answer to the agent", "error", err.Error())
		id, ok := answeredID(msg)
		if !ok {
			return
		}
		data, err = json.Marshal(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
			Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("dispatch could not encode its answer to this request (%v); it was not sent. If the result is very large or deeply nested, ask for it with \"resultToFile\": true", err), nil)})
		if err != nil {
			s.log.Error("encode the error answer", "error", err.Error())
			return
		}
	}
	s.writeLine(append(data, '\n'))
}

// exactAnswerID is data, msg encoded, with the id of the request msg
// answers written as it came, when msg holds it so (a json.RawMessage
// id, see rawID and withExactID): encoding/json would escape <, > and &
// in a string.
func exactAnswerID(data []byte, msg any) []byte {
	id, ok := answeredID(msg)
	if !ok {
		return data
	}
	exact, ok := id.Value().(json.RawMessage)
	if !ok {
		return data
	}
	encoded, err := json.Marshal(exact)
	if err != nil {
		return data
	}
	return restoreID(data, encoded, exact)
}

// answeredID is the id of the request msg answers, if msg is an answer.
func answeredID(msg any) (mcp.RequestId, bool) {
	switch m := msg.(type) {
	case mcp.JSONRPCResponse:
		return m.ID, true
	case *mcp.JSONRPCResponse:
		if m != nil {
			return m.ID, true
		}
	case mcp.JSONRPCError:
		return m.ID, true
	case *mcp.JSONRPCError:
		if m != nil {
			return m.ID, true
		}
	}
	return mcp.RequestId{}, false
}

// writeLine sends one encoded message, line ending included.
func (s *stdioServer) writeLine(line []byte) {
	s.out.writeLine(line)
}

func (s *stdioServer) writeNotifications(ctx context.Context, notifications <-chan mcp.JSONRPCNotification) {
	for {
		select {
		case n := <-notifications:
			s.write(n)
		case <-ctx.Done():
			return
		}
	}
}
