package upstream

import (
	"context"
	"sync"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Serving over HTTP, the servers' log level is shared by every session,
// and each session asks for its own with logging/setLevel. The rule: the
// servers are told the most verbose level any live session asked for
// (so that each session can get every log it asked for), and each
// session receives only the logs at or above its own level. A session
// that asked for none receives whatever the servers send. When the
// session that asked for the most verbose level ends, the servers are
// told the next one; when none is left, they keep the last (MCP has no
// way to unset it) and every log passes on to the sessions that asked
// for none.

// serverLogLevel tracks the level the servers were last told.
type serverLogLevel struct {
	relay *connections.Set // nil: no servers to tell (tests)

	mu      sync.Mutex // held while servers are told: levels apply in order
	applied mcp.LoggingLevel
}

// apply tells the servers the level wanted now when it differs from what
// they were last told, and returns once they have answered: a session's
// setLevel is answered when it is in effect, as from a direct connection.
// wanted runs under the lock, so that of two sessions' setLevels the
// later one's view of every session's level is applied last.
func (l *serverLogLevel) apply(wanted func() mcp.LoggingLevel) {
	if l.relay == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	want := wanted()
	if want == l.applied {
		return
	}
	l.applied = want
	l.relay.SetLogLevel(want)
}

// mostVerbose is the most verbose of levels ("" among them ignored), or
// "" when none is set.
func mostVerbose(levels []mcp.LoggingLevel) mcp.LoggingLevel {
	var most mcp.LoggingLevel
	for _, level := range levels {
		if level == "" {
			continue
		}
		if most == "" || !connections.LogLevelPasses(level, most) {
			most = level
		}
	}
	return most
}

// logLevels are the levels the live sessions asked for.
func (r *registry) logLevels() []mcp.LoggingLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	levels := make([]mcp.LoggingLevel, 0, len(r.byID))
	for _, s := range r.byID {
		if s != nil {
			levels = append(levels, s.getLogLevel())
		}
	}
	return levels
}

// sessionsNow are the live sessions.
func (r *registry) sessionsNow() []*httpSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*httpSession, 0, len(r.byID))
	for _, s := range r.byID {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (s *httpSession) setLogLevel(level mcp.LoggingLevel) {
	s.mu.Lock()
	s.logLevel = level
	s.mu.Unlock()
}

func (s *httpSession) getLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

// wantsLog says whether a notification is for this session: a server log
// below its level is not.
func (s *httpSession) wantsLog(method string, params any) bool {
	if method != string(mcp.MethodNotificationMessage) {
		return true
	}
	fields, _ := params.(map[string]any)
	level, _ := fields["level"].(string)
	return connections.LogLevelPasses(mcp.LoggingLevel(level), s.getLogLevel())
}

// sessionOf is the session a request of mcp-go's runs in, or nil.
func (h *HTTPServer) sessionOf(ctx context.Context) *httpSession {
	client := server.ClientSessionFromContext(ctx)
	if client == nil {
		return nil
	}
	return h.sessions.get(client.SessionID())
}

// followLogLevels makes the servers' level follow the sessions' (see the
// rule above): after a session's setLevel, and after a session ends.
func (h *HTTPServer) followLogLevels() {
	h.serverLevel.apply(func() mcp.LoggingLevel { return mostVerbose(h.sessions.logLevels()) })
}
