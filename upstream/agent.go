package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"dispatch/connections"
	"dispatch/dispatch"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MaxPendingAgentRequests bounds the requests dispatch relays to the agent
// (a server's sampling, elicitation or roots) that wait for its answer at
// once. One past it is refused at once: the server hears that dispatch is
// busy instead of dispatch holding without bound.
const MaxPendingAgentRequests = 64

// logQueue bounds the server log messages waiting to be written to the
// agent. It is its own queue, so that a server flooding logs cannot crowd
// out progress; a full queue drops the message, counted (see
// connections.Set.DroppedLogs).
const logQueue = 100

// stdioSession is the one agent of a stdio server: the upstream that
// servers' requests and logs reach.
type stdioSession struct {
	notifications chan mcp.JSONRPCNotification
	logs          chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	server        *stdioServer

	mu           sync.Mutex
	clientInfo   mcp.Implementation
	capabilities mcp.ClientCapabilities
	logLevel     mcp.LoggingLevel
}

var (
	_ dispatch.RequestLogLevelFollower = (*stdioSession)(nil)
	_ server.ClientSession             = (*stdioSession)(nil)
	_ server.SessionWithClientInfo     = (*stdioSession)(nil)
	_ server.SessionWithLogging        = (*stdioSession)(nil)
	_ connections.Upstream             = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string                                   { return "stdio" }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }
func (s *stdioSession) Initialize()                                         { s.initialized.Store(true) }
func (s *stdioSession) Initialized() bool                                   { return s.initialized.Load() }

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

func (s *stdioSession) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = info
}

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities { return s.ClientCapabilities() }

// SetClientCapabilities takes what the agent declared in initialize, and
// has servers started before (--eager) start again declaring the same.
func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.mu.Lock()
	s.capabilities = caps
	s.mu.Unlock()
	if s.server.relay != nil {
		s.server.relay.ClientCapabilitiesChanged()
	}
}

// ClientCapabilities are the agent's, from its initialize.
func (s *stdioSession) ClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capabilities
}

// SetLogLevel takes the agent's logging/setLevel and passes it on to the
// servers.
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) {
	s.mu.Lock()
	s.logLevel = level
	s.mu.Unlock()
	if s.server.relay != nil {
		s.server.relay.SetLogLevel(level)
	}
}

// FollowRequestLogLevel takes the log level a request on protocol
// 2026-07-28 declares in its _meta (that protocol has no logging/setLevel):
// none means the agent wants no server logs. Servers hear of it only when
// it changes.
func (s *stdioSession) FollowRequestLogLevel(level mcp.LoggingLevel) {
	if level == "" {
		level = connections.LogLevelOff
	}
	if s.GetLogLevel() == level {
		return
	}
	s.SetLogLevel(level)
}

func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

// RequestClient sends a request to the agent with an id of dispatch's own
// and waits for its answer, until ctx ends (the agent is then told with
// notifications/cancelled) or the agent goes away.
func (s *stdioSession) RequestClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !s.Initialized() {
		return nil, errors.New("the agent has not initialized the session yet")
	}
	return s.server.agent.request(ctx, s.server.write, method, params)
}

// NotifyClient queues a notification (a server's log) for the agent, or
// drops it when the queue is full.
func (s *stdioSession) NotifyClient(method string, params any) bool {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	if fields, ok := params.(map[string]any); ok {
		n.Params.AdditionalFields = fields
	}
	select {
	case s.logs <- n:
		return true
	default:
		return false
	}
}

// agentRequests are dispatch's requests to the agent waiting for answers,
// by id. Their ids ("dispatch-N") are dispatch's own: the agent's ids name
// its requests to dispatch, a separate space.
type agentRequests struct {
	max int

	mu      sync.Mutex
	next    uint64
	pending map[string]chan agentAnswer
	closed  bool
}

type agentAnswer struct {
	result json.RawMessage
	err    error
}

func newAgentRequests(max int) *agentRequests {
	return &agentRequests{max: max, pending: make(map[string]chan agentAnswer)}
}

// outgoing is a request dispatch sends the agent.
type outgoing struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      string          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

func (a *agentRequests) request(ctx context.Context, write func(any), method string, params json.RawMessage) (json.RawMessage, error) {
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return nil, errors.New("the agent went away")
	case len(a.pending) >= a.max:
		a.mu.Unlock()
		return nil, fmt.Errorf("dispatch is busy: %d requests already wait for the agent's answer (the limit, MaxPendingAgentRequests); retry later", a.max)
	}
	a.next++
	id := fmt.Sprintf("dispatch-%d", a.next)
	answer := make(chan agentAnswer, 1)
	a.pending[id] = answer
	a.mu.Unlock()
	defer a.forget(id)

	write(outgoing{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params})
	select {
	case got := <-answer:
		return got.result, got.err
	case <-ctx.Done():
		write(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()}},
		}})
		return nil, fmt.Errorf("no answer from the agent to %s: %w", method, ctx.Err())
	}
}

func (a *agentRequests) forget(id string) {
	a.mu.Lock()
	delete(a.pending, id)
	a.mu.Unlock()
}

// answer delivers a response from the agent to the request it answers, and
// says whether there was one.
func (a *agentRequests) answer(msg message) bool {
	var id string
	if json.Unmarshal(msg.ID, &id) != nil {
		return false
	}
	a.mu.Lock()
	waiting, ok := a.pending[id]
	delete(a.pending, id)
	a.mu.Unlock()
	if !ok {
		return false
	}
	got := agentAnswer{result: msg.Result}
	switch {
	case msg.Error != nil:
		got = agentAnswer{err: msg.Error}
	case len(msg.Result) == 0:
		got = agentAnswer{err: errors.New("the agent answered with neither a result nor an error")}
	}
	waiting <- got
	return true
}

// close fails every request still waiting: the agent is gone.
func (a *agentRequests) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for id, waiting := range a.pending {
		waiting <- agentAnswer{err: errors.New("the agent went away before answering")}
		delete(a.pending, id)
	}
}
