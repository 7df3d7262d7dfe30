package connections

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// Upstream is the client dispatch serves, as a server's requests and logs
// see it: one agent session. The stdio server implements it; a later HTTP
// server has one per agent session.
type Upstream interface {
	// ClientCapabilities are the capabilities the agent declared in its
	// initialize; dispatch declares exactly these to its servers.
	ClientCapabilities() mcp.ClientCapabilities
	// RequestClient sends a request to the agent and returns its result.
	// The agent's error answer is an *RPCError.
	RequestClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// NotifyClient queues a notification for the agent and says whether it
	// was queued: a full queue drops it rather than wait.
	NotifyClient(method string, params any) bool
}

type upstreamKey struct{}

// WithUpstream marks ctx as coming from up, so that requests a server
// makes while serving a call made under ctx reach the agent session that
// made the call.
func WithUpstream(ctx context.Context, up Upstream) context.Context {
	return context.WithValue(ctx, upstreamKey{}, up)
}

// CarriesUpstream reports whether ctx is marked as coming from up
// already (WithUpstream), so that a caller on a call's path need not mark
// it again.
func CarriesUpstream(ctx context.Context, up Upstream) bool {
	have := upstreamFrom(ctx)
	if have == nil || up == nil {
		return false
	}
	// == on interfaces panics for an incomparable dynamic type.
	return reflect.TypeOf(have) == reflect.TypeOf(up) && reflect.TypeOf(up).Comparable() && have == up
}

func upstreamFrom(ctx context.Context) Upstream {
	up, _ := ctx.Value(upstreamKey{}).(Upstream)
	return up
}

// relayHub is what every connection of a Set shares about the client side:
// the default upstream (the one agent of a stdio server; none in the
// shell), the log level the agent asked for, and counts of dropped logs.
type relayHub struct {
	mu       sync.RWMutex
	up       Upstream
	logLevel mcp.LoggingLevel // "" until the agent sets one: everything passes

	droppedLogs atomic.Uint64
	// unattributedLogs counts the server logs dropped because calls of
	// several sessions were on the server (see Conn.logUpstream).
	unattributedLogs atomic.Uint64
}

func (h *relayHub) upstream() Upstream {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.up
}

func (h *relayHub) level() mcp.LoggingLevel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.logLevel
}

// capabilities are what dispatch declares to a server starting now: the
// agent's, or none from the shell.
func (h *relayHub) capabilities() mcp.ClientCapabilities {
	up := h.upstream()
	if up == nil {
		return mcp.ClientCapabilities{}
	}
	return mirroredCapabilities(up.ClientCapabilities())
}

// mirroredCapabilities keeps the client capabilities dispatch can relay.
// Tasks and extensions are the agent's dealings with dispatch itself, not
// something a server's requests can reach through it.
func mirroredCapabilities(agent mcp.ClientCapabilities) mcp.ClientCapabilities {
	return mcp.ClientCapabilities{Roots: agent.Roots, Sampling: agent.Sampling, Elicitation: agent.Elicitation}
}

func sameCapabilities(a, b mcp.ClientCapabilities) bool {
	// Every call asks: both sides are nearly always copies of the agent's
	// one declaration, the same pointers, which reflect need not walk.
	if a.Roots == b.Roots && a.Sampling == b.Sampling && a.Elicitation == b.Elicitation && a.Tasks == b.Tasks &&
		a.Extensions == nil && b.Extensions == nil && a.Experimental == nil && b.Experimental == nil {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// SetUpstream makes up the agent session that servers' requests and logs
// go to when no call of another session caused them (nil: the shell, where
// none can be answered). A server already running that was started
// declaring other capabilities is stopped, so that its next use starts it
// again declaring the agent's, and it offers the tools it would offer the
// agent directly.
func (s *Set) SetUpstream(up Upstream) {
	s.hub.mu.Lock()
	s.hub.up = up
	s.hub.mu.Unlock()
	s.ClientCapabilitiesChanged()
}

// ClientCapabilitiesChanged restarts, on their next use, the running
// servers that were started declaring other capabilities than the
// upstream's now.
func (s *Set) ClientCapabilitiesChanged() {
	want := s.hub.capabilities()
	for _, c := range s.Conns() {
		c.capabilitiesChanged(want)
	}
}

// RootsChanged tells every running server that the agent's roots changed.
func (s *Set) RootsChanged() {
	for _, c := range s.Conns() {
		c.notifyServer(string(mcp.MethodNotificationRootsListChanged), nil)
	}
}

// SetLogLevel records the level the agent asked for and passes it on to
// every running server that offers logging, returning once they have
// answered (each within logLevelTimeout), so that the agent's setLevel is
// answered when it is in effect, as from a direct connection; servers
// started later get it at start.
func (s *Set) SetLogLevel(level mcp.LoggingLevel) {
	s.hub.mu.Lock()
	s.hub.logLevel = level
	s.hub.mu.Unlock()
	each(s.Conns(), func(c *Conn) { c.forwardLogLevel(level) })
}

// DroppedLogs counts the server log messages dropped because the agent's
// queue was full.
func (s *Set) DroppedLogs() uint64 { return s.hub.droppedLogs.Load() }
