package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Serving over HTTP, the servers are shared by every session, so what
// dispatch declares to them cannot be one session's capabilities: it
// declares all it can relay (sampling, elicitation, roots). The wire does
// not say which call a server's request or log belongs to, so connections
// attributes it (Conn.attribute): to the one session with a call in flight
// on that server, or one that ended within connections.AttributionWindow;
// with several such sessions a request is refused as ambiguous and a log
// dropped, never handed to a session it may not belong to. A request so
// attributed is answered "Method not found" (-32601) when that session did
// not declare the capability (connections checks it against
// ClientCapabilities below). A request or log no call caused goes to
// noCaller, which routes it by the rule in its RequestClient.

var (
	_ connections.Upstream = (*httpSession)(nil)
	_ connections.Upstream = (*noCaller)(nil)
)

// ClientCapabilities are what the session declared in its initialize.
func (s *httpSession) ClientCapabilities() mcp.ClientCapabilities {
	client := s.clientSession()
	if info, ok := client.(server.SessionWithClientInfo); ok {
		return info.GetClientCapabilities()
	}
	return mcp.ClientCapabilities{}
}

// RequestClient relays a server's sampling, elicitation or roots request
// to the session, through mcp-go's session: on the stream of the
// session's call on that server in flight when it can (elicitation; see
// connections.CausingCall), else the session's listening stream (GET),
// which the agent must have open to be asked: without one within
// ListenGrace the request fails, saying so. It ends when the session
// does, so that the server gets its error answer at once. When it ends
// otherwise unanswered (the server cancelled it, its time ran out, the
// calls it came during ended) the agent is told, with the id mcp-go gave
// the request (see relayTicket).
func (s *httpSession) RequestClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == string(mcp.MethodListRoots) {
		// During this session's call, but maybe the server's answer to
		// another session's roots change: neither can be told apart.
		if other := s.registry.rootsChanger(RootsChangeWindow); other != nil && other != s {
			return nil, &connections.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf(
				"Method not found: dispatch serves many sessions over HTTP and roots/list came during a call of session %s but within %s (upstream.RootsChangeWindow) of session %s's notifications/roots/list_changed, so it cannot tell which agent's roots are asked for (ambiguous)",
				s.logID, RootsChangeWindow, other.logID)}
		}
	}
	if s.ctx.Err() != nil {
		return nil, s.endedError(method)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.ctx, func() { cancel(errSessionEnded) })()
	client := s.clientSession()
	if client == nil {
		return nil, errors.New("the session has made no call yet")
	}
	call := connections.CausingCall(ctx)
	s.log.Debug("relaying a server's request to the session", "method", method, "inCall", call != nil)
	if call != nil {
		// The call's values (its stream) with the relay's deadline.
		ctx = valuesOf{Context: ctx, values: call}
	}
	if (method != string(mcp.MethodElicitationCreate) || call == nil) && !s.awaitListening(ctx) {
		if errors.Is(context.Cause(ctx), errSessionEnded) {
			return nil, s.endedError(method)
		}
		// mcp-go would queue it for a stream nobody reads, and the
		// server would wait for ServerRequestTimeout.
		return nil, fmt.Errorf("session %s has no listening stream open (GET %s) after %s, the only way mcp-go sends it %s: an agent that declares the capability must keep one open", s.logID, MCPPath, ListenGrace, method)
	}
	ticket, ok := s.answers.awaitTurn(ctx, method)
	if !ok {
		if errors.Is(context.Cause(ctx), errSessionEnded) {
			return nil, s.endedError(method)
		}
		return nil, fmt.Errorf("session %s: another of its server requests was still being written when the relay of %s ended: %w", s.logID, method, context.Cause(ctx))
	}
	result, err := s.askSession(ctx, client, method, params)
	id, sent := s.answers.settle(ticket, err != nil && ctx.Err() != nil)
	if err != nil && sent && ctx.Err() != nil && s.ctx.Err() == nil {
		s.tellCancelled(client, id, method, context.Cause(ctx))
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), errSessionEnded) {
			return nil, s.endedError(method)
		}
		return nil, fmt.Errorf("session %s: %w", s.logID, err)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("encode the session's answer to %s: %w", method, err)
	}
	return raw, nil
}

// tellCancelled tells the agent that the request of method mcp-go wrote
// to it with id is cancelled (the server cancelled it, its time ran out,
// or the calls it came during ended), as dispatch serve tells an agent
// over stdio: the agent stops working on it. The notification goes on
// one of the session's streams (mcp-go writes a session's notifications
// on its listening stream or a call's); its answer, if it still comes,
// is dropped (it is no longer awaited).
func (s *httpSession) tellCancelled(client server.ClientSession, id int64, method string, why error) {
	s.answers.take(id)
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": cancelReason(why)}},
	}}
	select {
	case client.NotificationChannel() <- n:
		s.log.Debug("told the session a server's request is cancelled", "method", method, "why", cancelReason(why))
	default:
		s.log.Warn("could not tell the session a server's request is cancelled: its notification queue is full", "method", method)
	}
}

// cancelReason is the reason given to the agent for a relayed request's
// end.
func cancelReason(why error) string {
	if errors.Is(why, context.DeadlineExceeded) {
		return "the agent did not answer within dispatch's --server-request-timeout"
	}
	return why.Error()
}

// askSession hands the request of method to mcp-go's session of the
// agent and waits for the answer.
func (s *httpSession) askSession(ctx context.Context, client server.ClientSession, method string, params json.RawMessage) (any, error) {
	var result any
	var err error
	switch method {
	case string(mcp.MethodSamplingCreateMessage):
		sampler, ok := client.(server.SessionWithSampling)
		if !ok {
			return nil, methodNotFound(method)
		}
		var req mcp.CreateMessageRequest
		if err := json.Unmarshal(params, &req.CreateMessageParams); err != nil {
			return nil, &connections.RPCError{Code: mcp.INVALID_PARAMS, Message: "invalid sampling params: " + err.Error()}
		}
		result, err = sampler.RequestSampling(ctx, req)
	case string(mcp.MethodElicitationCreate):
		elicitor, ok := client.(server.SessionWithElicitation)
		if !ok {
			return nil, methodNotFound(method)
		}
		var req mcp.ElicitationRequest
		if err := json.Unmarshal(params, &req.Params); err != nil {
			return nil, &connections.RPCError{Code: mcp.INVALID_PARAMS, Message: "invalid elicitation params: " + err.Error()}
		}
		result, err = elicitor.RequestElicitation(ctx, req)
	case string(mcp.MethodListRoots):
		rooted, ok := client.(server.SessionWithRoots)
		if !ok {
			return nil, methodNotFound(method)
		}
		result, err = rooted.ListRoots(ctx, mcp.ListRootsRequest{})
	default:
		return nil, methodNotFound(method)
	}
	return result, err
}

// errSessionEnded ends the relays of a session that ended.
var errSessionEnded = errors.New("the session ended")

// endedError is the server's answer to a request of method relayed to
// the session once it ended.
func (s *httpSession) endedError(method string) error {
	return fmt.Errorf("session %s ended (DELETE, --session-idle or shutdown) before answering %s", s.logID, method)
}

// NotifyClient queues a server's log for the session, or says the queue
// is full. One for a session that ended is dropped.
func (s *httpSession) NotifyClient(method string, params any) bool {
	if !s.wantsLog(method, params) || s.ctx.Err() != nil {
		return true // below the session's level, or too late: not for it
	}
	client := s.clientSession()
	if client == nil || !client.Initialized() {
		return false
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	if fields, ok := params.(map[string]any); ok {
		n.Params.AdditionalFields = fields
	}
	select {
	case client.NotificationChannel() <- n:
		return true
	default:
		return false
	}
}

func methodNotFound(method string) error {
	return &connections.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: "Method not found: the session cannot take " + method}
}

// noCaller is the upstream of a server's request that no single
// session's call caused: none can be told to answer it.
type noCaller struct {
	mcp      *server.MCPServer
	sessions *registry
}

// ClientCapabilities are everything dispatch relays: see the rule above.
func (noCaller) ClientCapabilities() mcp.ClientCapabilities {
	caps := mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	return caps
}

// RootsChangeWindow is how long after a session's
// notifications/roots/list_changed a server's roots/list that no call in
// flight caused is taken as the server's answer to it, and goes to that
// session: a server asks for the roots right after the change notice. A
// roots/list during another session's call within it is refused as
// ambiguous (see httpSession.RequestClient).
const RootsChangeWindow = 5 * time.Second

// RequestClient routes a server's request that no session's call caused
// (none was in flight on that server, nor ended within
// connections.AttributionWindow). A roots/list goes to the session whose
// roots/list_changed the server heard last, if within RootsChangeWindow;
// else the request goes to the one session open, and with several open
// (or none) it is refused, saying why.
func (n noCaller) RequestClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	sess, why := n.sessions.rootsChanger(RootsChangeWindow), "it sent the latest notifications/roots/list_changed"
	if method != string(mcp.MethodListRoots) || sess == nil {
		open := n.sessions.initializedNow()
		if len(open) != 1 {
			return nil, &connections.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf(
				"Method not found: dispatch serves many sessions over HTTP and %s came while no session's call was on this server, with %d sessions open%s, so it cannot tell which agent to ask (ambiguous)",
				method, len(open), rootsHint(method))}
		}
		sess, why = open[0], "it is the only session open"
	}
	if !connections.Declares(sess.ClientCapabilities(), method, params) {
		return nil, &connections.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf(
			"Method not found: session %s, to which dispatch routes this request (%s), did not declare the capability %s needs", sess.logID, why, method)}
	}
	sess.log.Debug("routing a server's request no call caused to the session", "method", method, "why", why)
	return sess.RequestClient(ctx, method, params)
}

// rootsHint says, for roots/list, what would have routed it.
func rootsHint(method string) string {
	if method != string(mcp.MethodListRoots) {
		return ""
	}
	return fmt.Sprintf(" and none of them sent notifications/roots/list_changed in the last %s (upstream.RootsChangeWindow)", RootsChangeWindow)
}

// NotifyClient sends a server log no session's call caused to the one
// session open, if its level passes; with several open it goes to none:
// it may be any session's (a log trailing a call by more than
// connections.AttributionWindow), and one session's logs must not reach
// another.
func (n noCaller) NotifyClient(method string, params any) bool {
	open := n.sessions.initializedNow()
	if len(open) != 1 {
		return true
	}
	sess := open[0]
	if !sess.wantsLog(method, params) {
		return true
	}
	fields, _ := params.(map[string]any)
	if err := n.mcp.SendNotificationToSpecificClient(sess.id, method, fields); err != nil {
		sess.log.Debug("a server log did not reach the session", "error", err.Error())
	}
	return true
}

// valuesOf is a context with the values of another: a server's request
// relayed during a call is written to that call's response stream (mcp-go
// finds it among the call's values), bounded by the relay's own deadline.
type valuesOf struct {
	context.Context
	values context.Context
}

func (v valuesOf) Value(key any) any {
	if got := v.values.Value(key); got != nil {
		return got
	}
	return v.Context.Value(key)
}
