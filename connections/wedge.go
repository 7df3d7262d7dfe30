package connections

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// WedgeProbeTimeout is the least time the ping dispatch sends a stdio
// server after one of its requests ran out of time may go unanswered
// before the server is judged wedged (see wedgeWait). A server that
// answers it (any answer) is merely slow and stays; one that does not is
// wedged (it stopped reading its stdin, or answering, while its pipe
// still had room, which --stdin-timeout cannot see): it is stopped, with
// its process group, and started afresh on next use, as one that died.
const WedgeProbeTimeout = 5 * time.Second

// wedgeWait is how long that ping may go unanswered: the longest a call
// of this server may run by configuration (--timeout, or its own longer
// timeout), and at least WedgeProbeTimeout. Any shorter would stop a
// server that serves one call at a time (as the Python SDK's sync tools
// do) while it finishes a call that outran a limit the agent chose for
// it, losing its state and the other agents' calls on it; and an agent
// asking for short limits could have a shared server stopped again and
// again until --max-restarts locks everyone out.
func (c *Conn) wedgeWait() time.Duration {
	if c.opts.wedgeProbe > 0 {
		return c.opts.wedgeProbe
	}
	return max(WedgeProbeTimeout, c.opts.CallTimeout, c.Config.Timeout)
}

// checkWedged pings the stdio server of sess (nil: the live session)
// after a request on it ran out of time, off the caller's path, and
// stops it if the ping goes unanswered too. One probe runs at a time per
// connection: requests timing out together say nothing more than one.
func (c *Conn) checkWedged(sess *session) {
	c.mu.Lock()
	if sess == nil {
		sess = c.sess
	}
	if sess == nil || sess.stdio == nil || !sess.alive() || c.status == StatusClosed || !c.probing.CompareAndSwap(false, true) {
		c.mu.Unlock()
		return
	}
	c.background.Add(1) // Close waits for the probe, which ends once the server is stopped
	c.mu.Unlock()
	go func() {
		defer c.background.Done()
		defer c.probing.Store(false)
		c.probeWedged(sess)
	}()
}

// probeWedged is checkWedged's probe.
func (c *Conn) probeWedged(sess *session) {
	var params any
	if sess.modern {
		params = c.withProtocolMeta(sess, nil)
	}
	id := mcp.NewRequestId(requestIDText(c.seq.Add(1)))
	limit := c.wedgeWait()
	if !sess.stdio.pingUnanswered(id, params, limit) {
		c.log.Debug("the server answered ping after a request ran out of time; it is kept", "limit", limit.String())
		return
	}
	reason := fmt.Errorf("the server answered neither a request within its time limit nor a ping within %s (the longest a call to it may run: --timeout, or its own timeout if longer, and at least WedgeProbeTimeout), so it was treated as wedged and stopped; it is started afresh on next use", limit)
	sess.stdio.stuck(reason) // fails what still waits on it with reason
	lost := fmt.Errorf("%w: %v", ErrServerGone, reason)
	if c.markDeadIf(sess, lost) {
		c.log.Warn("server wedged; stopped", "error", c.fail("session", lost, true).Error())
	}
}

// pingUnanswered sends ping (with params) as request id and reports
// whether it went unanswered for limit once written, not counting the
// time dispatch's reader of the server's stdout spent handing answers on
// meanwhile (the answer may wait behind them, which is dispatch's doing).
// Any answer counts, an error too. It reports false, the server not
// judged, when the ping could not be written (the server exited or was
// given up on meanwhile, or other writes held its stdin past the stdin
// timeout: they are --stdin-timeout's to judge).
func (t *stdioTransport) pingUnanswered(id mcp.RequestId, params any, limit time.Duration) bool {
	key := pendingKeyOf(id)
	answer := make(chan pendingAnswer, 1)
	if !t.addPending(key, pendingRequest{ch: answer}) {
		return false
	}
	forget := t.forgetter(key)
	defer forget()
	slotWait, cancel := context.WithTimeout(context.Background(), t.stdinTimeout)
	defer cancel()
	if err := t.writeJSON(slotWait, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodPing), Params: params}); err != nil {
		return false
	}
	start, handedAtStart := time.Now(), t.handedOff()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case <-answer: // an answer, or closed: the server exited
			return false
		case <-timer.C:
			deadline := start.Add(limit + t.handedOff() - handedAtStart)
			if wait := time.Until(deadline); wait > 0 {
				timer.Reset(max(wait, minStdinWait))
				continue
			}
			return true
		}
	}
}
