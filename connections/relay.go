package connections

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ServerRequestTimeout is the default of --server-request-timeout: how
// long relaying one request of a server (sampling, elicitation, roots) to
// the agent and its answer back may take. Elicitation waits for a person,
// hence minutes. Past it the agent is told the request is cancelled and
// the server gets an error answer. Streamable HTTP servers get mcp-go's
// own 30 s bound instead.
const ServerRequestTimeout = 5 * time.Minute

// MaxRelayedRequestBytes bounds the params of one server request relayed
// to the agent (sampling, elicitation, roots). Up to
// MaxPendingAgentRequests of them wait at once, each copied on its way,
// and each lands in the agent's context: without it a server could push
// hundreds of megabytes per request. A larger one is refused to the
// server, naming the limit, and the agent is not asked.
const MaxRelayedRequestBytes = 16 << 20

// logLevelTimeout bounds passing the agent's log level on to one server.
const logLevelTimeout = 10 * time.Second

// MaxLogDataBytes bounds the data of one server log message relayed to the
// agent: the log queue holds up to 100 of them, and a server's message may
// be as large as --max-message. A larger one reaches the agent as a note
// saying so, not cut.
const MaxLogDataBytes = 64 << 10

// MaxLoggerNameBytes bounds the logger name (and an unknown level) of one
// server log message relayed to the agent: both are the server's text too,
// and without it a name of megabytes would reach the agent whole, past
// MaxLogDataBytes. A longer one reaches the agent as a note giving its size.
const MaxLoggerNameBytes = 256

// droppedLogWarnEvery spaces the warnings about dropped server logs: the
// first drop is logged, then every this many, each with the running count.
const droppedLogWarnEvery = 1000

// capabilityOf names the client capability each relayed method needs.
var capabilityOf = map[string]string{
	string(mcp.MethodSamplingCreateMessage): "sampling",
	string(mcp.MethodElicitationCreate):     "elicitation",
	string(mcp.MethodListRoots):             "roots",
}

// AttributionWindow is how long after an agent session's last call on a
// server ended that server's requests and logs may still be that call's:
// a server may write a log just after its result (mcp-go's servers write
// notifications from a goroutine of their own, so the result can overtake
// them), or ask for sampling a moment after. The wire does not say which
// call a server's request or log belongs to, so one is attributed to a
// session only when that session is the only one with a call in flight on
// the server or one ended within this window (see attribute).
const AttributionWindow = 2 * time.Second

// callerCalls are one agent session's calls on a connection: those in
// flight, oldest first, and when the last of them ended.
type callerCalls struct {
	inFlight []trackedCall
	ended    time.Time
	// lastEnd is when any of its calls last ended, others still in flight
	// or not: a request soon after may trail that call (endedFor).
	lastEnd time.Time
}

// trackedCall is a call in flight: its context carries what a server's
// request during it needs (over HTTP, the call's response stream).
type trackedCall struct {
	id      uint64
	ctx     context.Context
	started time.Time
	// ended is closed when the call ends: its answer was written, or it
	// was cancelled or timed out (see untrackCall).
	ended chan struct{}
}

// callerMark names a tracked call for untrackCall; the zero one, none.
type callerMark struct {
	up Upstream
	id uint64
}

// attribution says which agent session a server's request or log that
// arrives now belongs to, as far as dispatch can tell.
type attribution struct {
	// users counts the sessions with a call in flight on the server, or
	// one that ended within AttributionWindow: 0, no call caused it; 1,
	// that session's did (up); more, any of them may have.
	users int
	up    Upstream
	// call is the context of up's newest call in flight on this server,
	// nil when none is.
	call context.Context
	// callsEnded are closed as up's calls in flight on this server end,
	// one for each of them: the request came from one of those calls.
	callsEnded []<-chan struct{}
}

// attribute is the attribution of a server's request or log arriving now.
// Sessions whose calls ended past AttributionWindow are forgotten here:
// sessions come and go over a long-lived serve, and only the window's are
// kept.
//
// One session with calls in flight takes it too when every other session
// in the window had its last call end before the first of those began:
// an agent that opens a session per task (the conformance suite does)
// must not have each task's server requests refused for the task before.
// What stays ambiguous is a call that ended while another session's call
// ran (a request trailing it could be either's).
func (c *Conn) attribute() attribution {
	now := time.Now()
	c.callersMu.Lock()
	defer c.callersMu.Unlock()
	var (
		a         attribution
		flying    Upstream  // the one session with calls in flight, if one
		flyingAt  time.Time // when its first call in flight began
		fliers    int
		lastEnded time.Time // the latest end among sessions with none in flight
	)
	for up, calls := range c.callers {
		if len(calls.inFlight) == 0 && now.Sub(calls.ended) > AttributionWindow {
			delete(c.callers, up)
			continue
		}
		a.users++
		a.up, a.call, a.callsEnded = up, nil, nil
		if n := len(calls.inFlight); n > 0 {
			a.call, a.callsEnded = calls.inFlight[n-1].ctx, calls.endedFor(now)
			fliers++
			flying, flyingAt = up, calls.inFlight[0].started
		} else if calls.ended.After(lastEnded) {
			lastEnded = calls.ended
		}
	}
	if a.users > 1 && fliers == 1 && lastEnded.Before(flyingAt) {
		a.users, a.up = 1, flying
		calls := c.callers[flying].inFlight
		a.call, a.callsEnded = calls[len(calls)-1].ctx, c.callers[flying].endedFor(now)
	}
	if a.users != 1 {
		a.up, a.call, a.callsEnded = nil, nil, nil
	}
	return a
}

// endedFor is what a request arriving at now may end with: the ended
// channel of each call in flight, the calls it may belong to. None when a
// call of the session on this server ended within AttributionWindow: the
// request may trail that call (a server asks once its tool has answered),
// and its relay then keeps --server-request-timeout rather than ending
// with an unrelated call still in flight.
func (calls *callerCalls) endedFor(now time.Time) []<-chan struct{} {
	if !calls.lastEnd.IsZero() && now.Sub(calls.lastEnd) <= AttributionWindow {
		return nil
	}
	ended := make([]<-chan struct{}, len(calls.inFlight))
	for i, call := range calls.inFlight {
		ended[i] = call.ended
	}
	return ended
}

// logUpstream is the agent session a server's log goes to: the one it is
// attributed to; else, when no session's call is (or was lately) on this
// server, the default one (over HTTP: the only session open). nil when it
// goes to none: calls of several sessions, any of which may have caused
// it, or the shell.
func (c *Conn) logUpstream() Upstream {
	a := c.attribute()
	switch a.users {
	case 0:
		return c.hub.upstream()
	case 1:
		return a.up
	}
	if n := c.hub.unattributedLogs.Add(1); n%droppedLogWarnEvery == 1 {
		c.log.Warn("server logs dropped: calls of several agent sessions were on the server within connections.AttributionWindow, and a log does not say which it belongs to",
			"sessions", a.users, "dropped", n)
	}
	return nil
}

// trackCaller records that a call of ctx's session is in flight until the
// returned function is called.
func (c *Conn) trackCaller(ctx context.Context) func() {
	mark := c.trackCall(ctx)
	if mark.up == nil {
		return func() {}
	}
	return func() { c.untrackCall(mark) }
}

// trackCall is trackCaller without the closure, for StartCall's calls,
// each of which keeps the mark it returns (zero: none to track) and gives
// it to untrackCall when it ends.
func (c *Conn) trackCall(ctx context.Context) callerMark {
	up := upstreamFrom(ctx)
	if up == nil {
		return callerMark{}
	}
	c.callersMu.Lock()
	c.callSeq++
	mark := callerMark{up: up, id: c.callSeq}
	calls := c.callers[up]
	if calls == nil {
		calls = &callerCalls{}
		c.callers[up] = calls
	}
	calls.inFlight = append(calls.inFlight, trackedCall{id: mark.id, ctx: ctx, started: time.Now(), ended: make(chan struct{})})
	c.callersMu.Unlock()
	return mark
}

func (c *Conn) untrackCall(mark callerMark) {
	if mark.up == nil {
		return
	}
	c.callersMu.Lock()
	if calls := c.callers[mark.up]; calls != nil {
		for i, call := range calls.inFlight {
			if call.id == mark.id {
				close(call.ended)
				last := len(calls.inFlight) - 1
				copy(calls.inFlight[i:], calls.inFlight[i+1:])
				calls.inFlight[last] = trackedCall{} // keeps no ended call's context alive
				calls.inFlight = calls.inFlight[:last]
				break
			}
		}
		calls.lastEnd = time.Now()
		if len(calls.inFlight) == 0 {
			calls.ended = calls.lastEnd
		}
	}
	c.callersMu.Unlock()
}

type causingCallKey struct{}

// CausingCall is, in the context of a server's request relayed to an
// agent session, the context of that session's call on the server in
// flight when the request came (its newest), or nil: over HTTP the
// request goes on that call's response stream.
func CausingCall(ctx context.Context) context.Context {
	call, _ := ctx.Value(causingCallKey{}).(context.Context)
	return call
}

// Declares says whether the client capabilities caps cover a server's
// request of method with params.
func Declares(caps mcp.ClientCapabilities, method string, params json.RawMessage) bool {
	return declares(caps, method, params)
}

// serveServerRequest answers a request a server sent dispatch. Sampling,
// elicitation and roots go to the agent as the server wrote them (they are
// the server's words to the model or the user), but for the exact values
// of the user's credentials, masked (MaskAnswer); the agent's answer goes
// back as it wrote it.
func (c *Conn) serveServerRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodPing) {
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	}
	ctx, forget := c.trackServerRequest(ctx, req.ID)
	defer forget()
	result, refusal := c.askAgent(ctx, req.Method, req.Params)
	if errors.Is(context.Cause(ctx), errServerCancelled) {
		return nil, nil // a cancelled request gets no answer
	}
	if refusal != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, refusal.Code, refusal.Message, refusal.Data), nil
	}
	return transport.NewJSONRPCResultResponse(req.ID, result), nil
}

// askAgent relays one sampling, elicitation or roots request to the agent
// session it belongs to and returns the agent's result, or the error to
// answer the server with: the agent's own, or the standard "Method not
// found" when the agent did not declare the capability.
func (c *Conn) askAgent(ctx context.Context, method string, params any) (json.RawMessage, *RPCError) {
	capability, relayed := capabilityOf[method]
	if !relayed {
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: "Method not found: dispatch does not serve " + method}
	}
	a := c.attribute()
	if caller := upstreamFrom(ctx); caller != nil {
		// (The relay ends with that call's context, so callsEnded is
		// not needed.)
		// Over streamable HTTP a server's request during a call comes on
		// that call's response stream, and mcp-go's client hands it over
		// in that call's context: its session is known, not guessed, and
		// no other session's call near it makes it ambiguous.
		a = attribution{users: 1, up: caller, call: ctx}
	}
	up := a.up
	switch {
	case a.users > 1:
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf(
			"Method not found: %s came while calls of %d agent sessions were in flight on this server, or ended within %s (connections.AttributionWindow); the request does not say which caused it, so no agent is asked (ambiguous)",
			method, a.users, AttributionWindow)}
	case a.users == 0:
		up = c.hub.upstream()
	}
	if up == nil {
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND,
			Message: fmt.Sprintf("%s (%s) is not available from the shell: dispatch runs here as a command, with no agent to answer it; call this tool through dispatch serve, from an agent that supports %s", capability, method, capability)}
	}
	if !declares(up.ClientCapabilities(), method, params) {
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND,
			Message: fmt.Sprintf("Method not found: the client did not declare the %s capability (%s)", capability, method)}
	}
	raw, err := rawParams(params)
	if err != nil {
		return nil, &RPCError{Code: mcp.INVALID_PARAMS, Message: "invalid params: " + err.Error()}
	}
	if len(raw) > MaxRelayedRequestBytes {
		return nil, &RPCError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf(
			"dispatch relays requests of at most %s to the client (MaxRelayedRequestBytes); this %s's params are %s: send less, or a resource link to the data",
			humanize.IBytes(MaxRelayedRequestBytes), method, humanize.IBytes(uint64(len(raw))))}
	}
	// The server's words pass as it wrote them, but for invalid UTF-8
	// and the user's own credentials (a server that quotes its
	// environment to the model).
	raw = c.cleanAnswer(raw)
	if a.call != nil {
		ctx = context.WithValue(ctx, causingCallKey{}, a.call)
	}
	limit := c.opts.ServerRequestTimeout
	if limit <= 0 {
		limit = ServerRequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if len(a.callsEnded) > 0 {
		var stop context.CancelFunc
		ctx, stop = endWithCalls(ctx, a.callsEnded)
		defer stop()
	}
	result, err := up.RequestClient(ctx, method, raw)
	var rpc *RPCError
	switch {
	case errors.As(err, &rpc):
		return nil, rpc
	case err != nil && errors.Is(context.Cause(ctx), errCallsEnded):
		return nil, &RPCError{Code: mcp.INTERNAL_ERROR, Message: fmt.Sprintf(
			"the agent's call during which %s came ended (answered, cancelled or timed out) before the agent answered it; nobody is left to use the answer, so dispatch stopped waiting and told the agent it is cancelled", method)}
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, &RPCError{Code: mcp.INTERNAL_ERROR, Message: fmt.Sprintf(
			"the agent did not answer %s within %s (dispatch's --server-request-timeout); it was told the request is cancelled", method, limit)}
	case err != nil:
		c.log.Debug("relay a server request to the agent", "method", method, "error", err.Error())
		return nil, &RPCError{Code: mcp.INTERNAL_ERROR, Message: "dispatch could not relay " + method + " to the agent: " + err.Error()}
	}
	return result, nil
}

// errCallsEnded ends the relay of a request once every call of its
// session that may have caused it has ended.
var errCallsEnded = errors.New("the calls that may have caused the request ended")

// endWithCalls is ctx, cancelled with errCallsEnded once every one of
// ended is closed. A relayed request lives no longer than the calls it
// may belong to: once they ended (answered, or cancelled or timed out,
// as when the agent went away without ending its HTTP session) nobody is
// left to use its answer, and waiting on would hold one of the server's
// MaxServerRequests slots for --server-request-timeout, refusing every
// other session's requests to that server meanwhile. A request no call
// was in flight for (one that trails its call) has none to end with; it
// keeps the timeout.
func endWithCalls(ctx context.Context, ended []<-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		for _, ch := range ended {
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
		cancel(errCallsEnded)
	}()
	return ctx, func() { cancel(nil) }
}

// trackServerRequest makes ctx end when the server cancels the request
// with id (notifications/cancelled), until forget is called: the agent is
// then told in turn, and stops being asked.
func (c *Conn) trackServerRequest(ctx context.Context, id mcp.RequestId) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := requestIDKey(id)
	c.serverReqMu.Lock()
	c.serverReqs[key] = cancel
	c.serverReqMu.Unlock()
	return ctx, func() {
		c.serverReqMu.Lock()
		delete(c.serverReqs, key)
		c.serverReqMu.Unlock()
		cancel(nil)
	}
}

// cancelledRequestID is the id of the request a server's
// notifications/cancelled names; false when it names none readable.
func cancelledRequestID(n mcp.JSONRPCNotification) (mcp.RequestId, bool) {
	var id mcp.RequestId
	raw, err := json.Marshal(n.Params.AdditionalFields["requestId"])
	if err != nil || json.Unmarshal(raw, &id) != nil {
		return id, false
	}
	return id, true
}

// errServerCancelled ends the relay of a request its server cancelled.
var errServerCancelled = errors.New("the server cancelled its request")

// serverCancelled ends the relay of a request the server cancelled.
func (c *Conn) serverCancelled(n mcp.JSONRPCNotification) {
	id, ok := cancelledRequestID(n)
	if !ok {
		return
	}
	c.serverReqMu.Lock()
	cancel := c.serverReqs[id.String()]
	c.serverReqMu.Unlock()
	if cancel != nil {
		cancel(errServerCancelled)
	}
}

// declares says whether caps cover method. An elicitation capability that
// names modes covers only those; an empty one means form mode (the spec's
// reading for clients that predate modes).
func declares(caps mcp.ClientCapabilities, method string, params any) bool {
	switch method {
	case string(mcp.MethodSamplingCreateMessage):
		return caps.Sampling != nil
	case string(mcp.MethodListRoots):
		return caps.Roots != nil
	case string(mcp.MethodElicitationCreate):
		if caps.Elicitation == nil {
			return false
		}
		if caps.Elicitation.Form == nil && caps.Elicitation.URL == nil {
			return elicitationMode(params) != string(mcp.ElicitationModeURL)
		}
		if elicitationMode(params) == string(mcp.ElicitationModeURL) {
			return caps.Elicitation.URL != nil
		}
		return caps.Elicitation.Form != nil
	}
	return false
}

func elicitationMode(params any) string {
	raw, err := rawParams(params)
	if err != nil {
		return ""
	}
	var p struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	return p.Mode
}

// rawParams is a request's params as JSON, whichever form the transport
// decoded them into.
func rawParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	default:
		return json.Marshal(p)
	}
}

// relayLog passes a server's notifications/message on to the agent, with
// the connection named in the logger ("c1", or "c1/<the server's
// logger>") and the server's text masked like everything dispatch shows of
// a server. It runs on the read loop, so it never waits: when the agent's
// queue is full the message is dropped and counted.
func (c *Conn) relayLog(n mcp.JSONRPCNotification) {
	fields := n.Params.AdditionalFields
	level, _ := fields["level"].(string)
	if !levelPasses(mcp.LoggingLevel(level), c.hub.level()) {
		return
	}
	up := c.logUpstream()
	if up == nil {
		return
	}
	logger := c.Alias
	name, _ := fields["logger"].(string)
	if len(name) > MaxLoggerNameBytes {
		logger += fmt.Sprintf("/[dispatch: a logger name of %s was left out: over %d B (MaxLoggerNameBytes)]",
			humanize.IBytes(uint64(len(name))), MaxLoggerNameBytes)
	} else if name != "" {
		logger += "/" + c.opts.Redactor.String(name)
	}
	if _, known := logSeverity[mcp.LoggingLevel(level)]; !known {
		// An unknown level passes (the agent may know it), but it is the
		// server's text like the rest: masked, and no longer than a name.
		if len(level) > MaxLoggerNameBytes {
			level = fmt.Sprintf("[dispatch: a level of %s was left out: over %d B (MaxLoggerNameBytes)]",
				humanize.IBytes(uint64(len(level))), MaxLoggerNameBytes)
		} else {
			level = c.opts.Redactor.String(level)
		}
	}
	params := map[string]any{"level": level, "logger": logger}
	if data, err := json.Marshal(fields["data"]); err == nil {
		if len(data) > MaxLogDataBytes {
			params["data"] = fmt.Sprintf("[dispatch: this log message's data of %s was left out: over %s (MaxLogDataBytes)]",
				humanize.IBytes(uint64(len(data))), humanize.IBytes(MaxLogDataBytes))
		} else if masked, err := c.opts.Redactor.maskJSON(data); err == nil {
			params["data"] = json.RawMessage(masked)
		}
	}
	if up.NotifyClient(string(mcp.MethodNotificationMessage), params) {
		return
	}
	if dropped := c.hub.droppedLogs.Add(1); dropped%droppedLogWarnEvery == 1 {
		c.log.Warn("server logs dropped: the agent's notification queue is full", "dropped", dropped)
	}
}

// LogLevelOff is the level of an agent that asked for no server logs: on
// protocol 2026-07-28 a request whose _meta names no log level must get
// no notifications/message. Servers are not told it (MCP has no such
// level); dispatch drops their logs instead.
const LogLevelOff mcp.LoggingLevel = "off"

// logSeverity orders the syslog levels MCP uses.
var logSeverity = map[mcp.LoggingLevel]int{
	mcp.LoggingLevelDebug: 0, mcp.LoggingLevelInfo: 1, mcp.LoggingLevelNotice: 2, mcp.LoggingLevelWarning: 3,
	mcp.LoggingLevelError: 4, mcp.LoggingLevelCritical: 5, mcp.LoggingLevelAlert: 6, mcp.LoggingLevelEmergency: 7,
}

// LogLevelPasses says whether a server log at level reaches a client that
// asked for min ("" when it asked for none: every log passes). Serving
// many sessions over shared servers, each session filters by its own.
func LogLevelPasses(level, min mcp.LoggingLevel) bool { return levelPasses(level, min) }

// levelPasses says whether a message at level reaches an agent that asked
// for min. A server that ignores logging/setLevel is filtered here; an
// unknown level passes, the agent may know it.
func levelPasses(level, min mcp.LoggingLevel) bool {
	if min == "" {
		return true
	}
	if min == LogLevelOff {
		return false
	}
	got, known := logSeverity[level]
	return !known || got >= logSeverity[min]
}

// catalogKey is the cache key of a server's catalog as offered to a
// client declaring caps: its ID when it declares none, as before dispatch
// mirrored capabilities.
func catalogKey(id string, caps mcp.ClientCapabilities) string {
	if sameCapabilities(caps, mcp.ClientCapabilities{}) {
		return id
	}
	declared, err := json.Marshal(caps)
	if err != nil {
		return id
	}
	sum := md5.Sum(append([]byte(id+"\n"), declared...))
	return hex.EncodeToString(sum[:])
}

// capabilitiesChanged follows the client capabilities dispatch now
// declares: the catalog is the one cached for them (or none until the
// server is listed), and a session started declaring others is retired.
func (c *Conn) capabilitiesChanged(want mcp.ClientCapabilities) {
	key := catalogKey(c.ID, want)
	c.mu.Lock()
	switched := key != c.cacheKey
	if switched {
		c.cacheKey = key
		c.tools, c.visible, c.catalog = nil, nil, CatalogNone
		c.sides = [numSideKinds]sideCatalog{}
		c.nextGenerationLocked()
	}
	c.mu.Unlock()
	if switched && c.opts.Cache != nil {
		c.loadCachedCatalog()
	}
	c.retireIfDeclared(want)
	if switched && c.opts.OnCatalogChanged != nil {
		// The lists the agent was given were for other capabilities:
		// what follows the catalog (the --transparent surface) lists
		// again, and tells the agent of what changed.
		c.opts.OnCatalogChanged(c)
	}
}

// retireIfDeclared stops the live session if it was started declaring
// other client capabilities than want: the next use starts the server
// again. Its tools may differ with the capabilities, so they are listed
// again then.
func (c *Conn) retireIfDeclared(want mcp.ClientCapabilities) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil || !c.sess.alive() || sameCapabilities(c.sess.declared, want) {
		return
	}
	c.retireLocked()
}

// retireLocked stops the live session so that the next use starts the
// server again; that is no crash, so it counts as no restart. Its tools
// are listed again then.
func (c *Conn) retireLocked() {
	sess := c.sess
	c.sess = nil
	c.status = StatusIdle
	c.toolsStale = true
	c.retired = true
	c.log.Info("server starts again: it was started declaring other client capabilities than the agent's")
	go c.closeSession(sess)
}

// notifyServer sends a notification to the live session, if any, without
// waiting for it.
func (c *Conn) notifyServer(method string, params map[string]any) {
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	if sess == nil || !sess.alive() {
		return
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	if params != nil {
		n.Params.AdditionalFields = params
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), logLevelTimeout)
		defer cancel()
		if err := sess.transport.SendNotification(ctx, n); err != nil {
			c.log.Debug("notify server", "method", method, "error", err.Error())
		}
	}()
}

// forwardLogLevel passes level on to the live session if its server
// offers logging. Servers on the 2026-07-28 protocol get it in each
// request's _meta instead.
func (c *Conn) forwardLogLevel(level mcp.LoggingLevel) {
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	if sess == nil || !sess.alive() {
		return
	}
	c.sendLogLevel(sess, level)
}

func (c *Conn) sendLogLevel(sess *session, level mcp.LoggingLevel) {
	if level == "" || level == LogLevelOff || sess.modern || sess.client.GetServerCapabilities().Logging == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), logLevelTimeout)
	defer cancel()
	if _, err := c.request(ctx, sess, string(mcp.MethodSetLogLevel), map[string]any{"level": level}); err != nil {
		c.log.Debug("pass the agent's log level on", "error", err.Error())
	}
}
