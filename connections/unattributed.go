package connections

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// unattributedAnswer is an error a stdio server answered to id null.
type unattributedAnswer struct {
	seq     uint64 // counts them, from 1
	code    int
	message string // the server's, masked, then cut to MaxQuotedText with a note
}

// unattributedError takes an error answer to id null: JSON-RPC's reply
// to a message the server could not read (a parse error, an invalid
// request), whose id it therefore could not know. Dropped, it left a call
// waiting out its time limit with no word of why. It is logged at warn,
// naming the server, and kept for the time-out of a call waiting meanwhile
// to mention (timedOut).
//
// It fails no request, not even the only one in flight. Nothing ties the
// answer to a request: the message the server could not read may have
// been one that awaits no answer (a notification dispatch sent, such as
// notifications/cancelled, or dispatch's answer to one of the server's
// own requests), and one written just before a request may be answered
// once the request is waiting. Failing that request would tell the agent
// a call failed that the server may well be running, side effects and
// all; its time limit ends it anyway, with an error that names this
// answer as the likely cause.
func (t *stdioTransport) unattributedError(e *mcp.JSONRPCErrorDetails) {
	// Masked before it is cut, as every quote of a server's text is (see
	// quote): a cut through a secret would leave its start.
	kept, note := cutQuote(t.redactor.String(e.Message), false)
	u := &unattributedAnswer{seq: 1, code: e.Code, message: kept + note}
	if last := t.unattributed.Load(); last != nil {
		u.seq = last.seq + 1 // only the reading goroutine stores
	}
	t.unattributed.Store(u)
	fmt.Fprintf(t.diag, "[stdout] error answered to id null: %d %s\n", u.code, u.message)
	t.log.Warn(fmt.Sprintf("server %s could not parse a request: %s", t.alias, u.message),
		"code", u.code,
		"why", "the server answered an error to id null, as JSON-RPC servers answer a message they could not read; it answers no request, so a call it was meant for waits until its time limit")
}

// unattributedMark is what timedOut compares with to tell whether the
// server answered an error to id null since: taken before a request is
// sent. An atomic load: every call takes one.
func (s *session) unattributedMark() uint64 {
	if s == nil || s.stdio == nil {
		return 0
	}
	if u := s.stdio.unattributed.Load(); u != nil {
		return u.seq
	}
	return 0
}

// timedOut is the error of a request of c's on sess that had no answer
// (what) within limit: what Call and the others return when their limit
// runs out. An error the server answered to id null since mark (taken as
// the request was sent) is named, as the likely cause: the server could
// not read the request.
func (c *Conn) timedOut(sess *session, mark uint64, what string, limit time.Duration) error {
	if sess != nil && sess.stdio != nil {
		if u := sess.stdio.unattributed.Load(); u != nil && u.seq > mark {
			return fmt.Errorf("%w: no %s within %s; meanwhile the server answered id null with error %d %q, as a server answers a message it could not read: most likely it could not read this request",
				ErrCallTimeout, what, limit, u.code, u.message)
		}
	}
	return fmt.Errorf("%w: no %s within %s", ErrCallTimeout, what, limit)
}

// discardLogger is the logger of a transport given none.
var discardLogger = slog.New(slog.DiscardHandler)
