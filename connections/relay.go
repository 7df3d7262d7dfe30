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

// ServerRequestTimeout bounds relaying one request of a server (sampling,
// elicitation, roots) to the agent and its answer back. Elicitation waits
// for a person, hence minutes. Streamable HTTP servers get mcp-go's own
// 30 s bound instead.
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

// LateLogWindow is how long after a session's last call on a server ended
// that server's logs may still be that call's: a server may write a log
// just after its result (mcp-go's servers write notifications from a
// goroutine of their own, so the result can overtake them). A log arriving
// then, while another session's call is in flight, could be either's: it
// goes to every session, not to the other one alone.
const LateLogWindow = 250 * time.Millisecond

// upstreamFor is the agent session a server's request goes to: the one
// whose calls are in flight on this connection when they all come from one
// session, else the default one, with how many sessions have calls in
// flight here (see CallersInFlight). With one stdio agent both are the
// same; with many sessions over one server, a request arriving while calls
// of several are in flight cannot be told apart on the wire and goes to
// the default.
func (c *Conn) upstreamFor() (Upstream, int) {
	c.callersMu.Lock()
	n := len(c.callers)
	var only Upstream
	for up := range c.callers {
		only = up
	}
	c.callersMu.Unlock()
	if n == 1 {
		return only, n
	}
	return c.hub.upstream(), n
}

// logUpstream is the agent session a server's log goes to: the one whose
// calls are in flight on this connection, or whose last call here ended
// within LateLogWindow, when that is a single session; else the default
// one (over HTTP: every session whose level the log passes).
func (c *Conn) logUpstream() Upstream {
	now := time.Now()
	c.callersMu.Lock()
	var only Upstream
	n := 0
	for up := range c.callers {
		only = up
		n++
	}
	c.pruneLateCallersLocked(now)
	for up := range c.lateCallers {
		if c.callers[up] == 0 {
			only = up
			n++
		}
	}
	c.callersMu.Unlock()
	if n == 1 {
		return only
	}
	return c.hub.upstream()
}

// trackCaller records that a call of up is in flight until the returned
// function is called.
func (c *Conn) trackCaller(ctx context.Context) func() {
	up := c.trackUpstream(ctx)
	if up == nil {
		return func() {}
	}
	return func() { c.untrackUpstream(up) }
}

// trackUpstream is trackCaller without the closure, for StartCall's
// calls, each of which keeps the upstream it returns (nil: none to
// track) and gives it to untrackUpstream when it ends.
func (c *Conn) trackUpstream(ctx context.Context) Upstream {
	up := upstreamFrom(ctx)
	if up == nil {
		return nil
	}
	c.callersMu.Lock()
	c.callers[up]++
	c.callersMu.Unlock()
	return up
}

func (c *Conn) untrackUpstream(up Upstream) {
	if up == nil {
		return
	}
	c.callersMu.Lock()
	if c.callers[up]--; c.callers[up] <= 0 {
		delete(c.callers, up)
		now := time.Now()
		c.pruneLateCallersLocked(now)
		c.lateCallers[up] = now
	}
	c.callersMu.Unlock()
}

// pruneLateCallersLocked forgets the sessions whose last call ended more
// than LateLogWindow ago: sessions come and go over a long-lived serve,
// and only those of the window are kept.
func (c *Conn) pruneLateCallersLocked(now time.Time) {
	for up, ended := range c.lateCallers {
		if now.Sub(ended) > LateLogWindow {
			delete(c.lateCallers, up)
		}
	}
}

type callersKey struct{}

// CallersInFlight says, in the context of a server's request relayed to
// the default upstream, how many agent sessions had calls in flight on
// that server when it arrived: 0, none caused it by a call; more than 1,
// any of them may have.
func CallersInFlight(ctx context.Context) int {
	n, _ := ctx.Value(callersKey{}).(int)
	return n
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
	up, callers := c.upstreamFor()
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
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, callersKey{}, callers), ServerRequestTimeout)
	defer cancel()
	result, err := up.RequestClient(ctx, method, raw)
	var rpc *RPCError
	switch {
	case errors.As(err, &rpc):
		return nil, rpc
	case err != nil:
		c.log.Debug("relay a server request to the agent", "method", method, "error", err.Error())
		return nil, &RPCError{Code: mcp.INTERNAL_ERROR, Message: "dispatch could not relay " + method + " to the agent: " + err.Error()}
	}
	return result, nil
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

// errServerCancelled ends the relay of a request its server cancelled.
var errServerCancelled = errors.New("the server cancelled its request")

// serverCancelled ends the relay of a request the server cancelled.
func (c *Conn) serverCancelled(n mcp.JSONRPCNotification) {
	raw, err := json.Marshal(n.Params.AdditionalFields["requestId"])
	if err != nil {
		return
	}
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) != nil {
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
