package upstream

import (
	"context"
	"log/slog"
	"regexp"
)

// sessionIDPattern matches a session id as newSessionID makes them.
var sessionIDPattern = regexp.MustCompile(`[0-9a-f]{32}`)

// endedSession stands in a log line for the id of a session no longer
// open (or never ours).
const endedSession = "(no open session)"

// sessionLogHandler is the log handler given to mcp-go's HTTP transport,
// which writes full Mcp-Session-Ids into its lines (a delivered answer,
// a failed one): anyone who reads the log could take over the session.
// Each id is replaced by the session's short log id.
type sessionLogHandler struct {
	next     slog.Handler
	sessions *registry
}

func (h sessionLogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h sessionLogHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.mask(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.maskAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h sessionLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = h.maskAttr(a)
	}
	return sessionLogHandler{next: h.next.WithAttrs(masked), sessions: h.sessions}
}

func (h sessionLogHandler) WithGroup(name string) slog.Handler {
	return sessionLogHandler{next: h.next.WithGroup(name), sessions: h.sessions}
}

// maskAttr replaces session ids in a's value; values other than text and
// groups (numbers, times) hold none. An error or other value is logged
// as its text.
func (h sessionLogHandler) maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.mask(v.String()))
	case slog.KindGroup:
		group := v.Group()
		masked := make([]any, len(group))
		for i, g := range group {
			masked[i] = h.maskAttr(g)
		}
		return slog.Group(a.Key, masked...)
	case slog.KindAny:
		return slog.String(a.Key, h.mask(v.String()))
	default:
		return slog.Attr{Key: a.Key, Value: v}
	}
}

func (h sessionLogHandler) mask(text string) string {
	return sessionIDPattern.ReplaceAllStringFunc(text, func(id string) string {
		if s := h.sessions.get(id); s != nil {
			return s.logID
		}
		return endedSession
	})
}
