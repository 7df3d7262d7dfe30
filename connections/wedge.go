package connections

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// WedgeProbeTimeout bounds the ping dispatch sends a stdio server after
// one of its requests ran out of time. A server that answers it (any
// answer) is merely slow and stays; one that does not is wedged (it
// stopped reading its stdin, or answering, while its pipe still had room,
// which --stdin-timeout cannot see): it is stopped, with its process
// group, and started afresh on next use, as one that died. Well-behaved
// servers answer ping while their tools run (mcp-go and the TypeScript
// SDK serve it beside tool calls).
const WedgeProbeTimeout = 5 * time.Second

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
	limit := c.opts.wedgeProbe
	if !sess.stdio.pingUnanswered(id, params, limit) {
		c.log.Debug("the server answered ping after a request ran out of time; it is kept", "limit", limit.String())
		return
	}
	reason := fmt.Errorf("the server answered neither a request within its time limit nor a ping within %s (WedgeProbeTimeout), so it was treated as wedged and stopped; it is started afresh on next use", limit)
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
