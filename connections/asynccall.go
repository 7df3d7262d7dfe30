package connections

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"dispatch/rawjson"
)

// StartCall begins req as Call would, without waiting for the answer:
// done gets what Call would return, on the goroutine that read the
// server's answer (so it must not block), or on the connection's expiry
// clock's when req.Timeout runs out. No goroutine waits for the answer, so none has to be woken to
// take it: that hand-off was a fifth of a small call's cost.
//
// ok is false, and nothing has happened, when the call cannot begin
// without waiting (the server is not running and ready, or its stdin
// cannot take the call at once: StartCall's caller is the agent's
// reader, which must never wait on a server) or needs what only
// Call does (progress, a task, the 2026-07-28 protocol's per-request
// facts, an HTTP server): the caller then uses Call.
//
// cancel abandons the call as the end of Call's context does: the server
// is sent notifications/cancelled and done gets the error Call would
// return. done is called exactly once. ctx is read for its values (the
// agent session the call is made for), not for its end.
func (c *Conn) StartCall(ctx context.Context, req CallRequest, done func(json.RawMessage, error)) (cancel func(), ok bool) {
	return c.StartCallTo(ctx, req, doneFunc(done))
}

// CallDone is where a call StartCallTo began gets what Call would
// return: an interface, so that a caller's one value per call serves,
// not a method value allocated for it.
type CallDone interface {
	CallDone(raw json.RawMessage, err error)
}

type doneFunc func(json.RawMessage, error)

func (f doneFunc) CallDone(raw json.RawMessage, err error) { f(raw, err) }

// StartCallTo is StartCall with done a CallDone.
func (c *Conn) StartCallTo(ctx context.Context, req CallRequest, done CallDone) (cancel func(), ok bool) {
	if req.OnProgress != nil || req.AsTask || len(req.Meta) > 0 || c.ToolAllowed(req.Tool) != nil {
		return nil, false
	}
	// Arguments from a checked agent message sit at least as deep in it
	// as in the request (MaxRequestNesting bounds both): they fit. Others
	// too deep go the general way, where Call refuses them.
	if !req.ArgumentsValid && !rawjson.NestingWithin(req.Arguments, MaxParamsMemberNesting) {
		return nil, false
	}
	c.mu.Lock()
	sess := c.sess
	ok = c.status == StatusReady && sess != nil && sess.stdio != nil && !sess.modern && sess.alive() &&
		sameCapabilities(sess.declared, c.hub.capabilities())
	if ok {
		c.calls++ // beginCall
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	a := &asyncCall{
		conn:   c,
		sess:   sess,
		ctx:    ctx,
		params: callParams{Name: req.Tool, Arguments: req.Arguments, argumentsValid: req.ArgumentsValid},
		limit:  req.Timeout,
		done:   done,
		caller: c.trackCall(ctx),
		id:     mcp.NewRequestId(requestIDText(c.seq.Add(1))),
		mark:   sess.unattributedMark(),
	}
	a.mu.Lock() // expire and abandon may come before forget is set: they wait (answered needs none of it)
	defer a.mu.Unlock()
	if a.limit > 0 {
		c.expiries.add(a, a.limit)
	}
	forget, err := sess.stdio.sendAsync(transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      a.id,
		Method:  "tools/call",
		Params:  &a.params, // not a copy boxed in an interface per call
	}, a.answered, req.Batch)
	if errors.Is(err, errWouldBlock) || errors.Is(err, errNotSent) {
		// Sending now would mean waiting on the server, or its stdin
		// broke (the session is over): the caller sends it the way that
		// may wait, and starts the server afresh, on a goroutine of its own.
		a.stopTimer()
		c.untrackCall(a.caller)
		c.endCall()
		return nil, false
	}
	if err != nil {
		a.stopTimer()
		a.forget = func() bool { return false }
		go a.finish(nil, nil, false, err) // done must not run on the caller's goroutine
		return a.abandon, true
	}
	a.forget = forget
	return a.abandon, true
}

// asyncCall is a call StartCall began.
type asyncCall struct {
	conn   *Conn
	sess   *session
	ctx    context.Context // for its values only
	params callParams
	limit  time.Duration
	done   CallDone
	caller callerMark // tracked (trackCall) while the call is in flight
	id     mcp.RequestId
	mark   uint64 // sess.unattributedMark() as the call was sent

	mu        sync.Mutex
	forget    func() bool        // takes the request back from the transport; true: it was still waiting
	abandoned bool               // cancel was called
	stopInput context.CancelFunc // set while input rounds run, or the call is sent again (see answered)
}

// stopTimer forgets a's time limit. It needs no a.mu: the expiry clock has
// its own lock, and a.limit is set before a is shared.
func (a *asyncCall) stopTimer() {
	if a.limit > 0 {
		a.conn.expiries.remove(a)
	}
}

// answered gets the server's answer, or the error that ended the wait.
//
// It does not take a.mu: StartCall holds it until the call is written and
// set up, and a quick server's answer often came while it still did (a
// fifth of the calls through a real dispatch). Waiting for it parked the
// reader of the server's stdout, and its Unlock then had to wake a thread
// to run it again: a futex wake-up and a thread switch on the answer's
// way. Nothing here needs what StartCall sets up after the write (forget,
// for abandon and expire); what it reads was set before the request was
// registered, which the reader found it by, under the transport's lock.
func (a *asyncCall) answered(resp *transport.JSONRPCResponse, err error) {
	if err == nil && resp.Error == nil {
		resp.Result = a.conn.cleanAnswer(resp.Result)
		if !mayNeedInput(resp.Result) {
			// The answer goes first and the time limit is forgotten
			// after it, off the call's latency: an expiry meanwhile
			// finds the request answered (forget) and does nothing.
			defer a.stopTimer()
			a.finish(resp.Result, nil, false, nil)
			return
		}
	}
	a.stopTimer()
	switch {
	case errors.Is(err, errNotSent):
		a.resend()
	case err != nil:
		a.finish(nil, nil, false, err)
	case resp.Error != nil:
		a.finish(nil, nil, false, a.conn.serverError(resp.Error))
	default: // the server needs input
		a.inputRounds(resp.Result)
	}
}

// inputRounds goes on as Call does with a server that answered that it
// needs input: that means waiting for the agent, so on a goroutine of its
// own, under a context that cancel ends.
func (a *asyncCall) inputRounds(raw json.RawMessage) {
	ctx, stop := a.detach()
	go func() {
		defer stop()
		raw, expired, err := a.conn.inputRounds(ctx, a.sess, a.limit, a.params, raw)
		a.finish(raw, ctx.Err(), expired, err)
	}()
}

// detach returns the context of work the call goes on with on a goroutine
// of its own: abandon (the caller's cancel) ends it, also if it came
// before.
func (a *asyncCall) detach() (context.Context, context.CancelFunc) {
	ctx, stop := context.WithCancel(context.WithoutCancel(a.ctx))
	a.mu.Lock()
	abandoned := a.abandoned
	a.stopInput = stop
	a.mu.Unlock()
	if abandoned {
		stop()
	}
	return ctx, stop
}

// resend sends again, the general way (Call, which starts the server
// afresh), a call that never reached the server because its stdin broke
// (errNotSent), as if it had been sent that way from the start. That
// waits, so on a goroutine of its own, under a context cancel ends.
func (a *asyncCall) resend() {
	ctx, stop := a.detach()
	go func() {
		defer stop()
		raw, err := a.conn.Call(ctx, CallRequest{Tool: a.params.Name, Arguments: a.params.Arguments, Timeout: a.limit})
		a.finish(raw, ctx.Err(), false, err) // err is explained already
	}()
}

// expire ends a call whose time limit ran out, as Call's limit does.
func (a *asyncCall) expire() {
	a.mu.Lock()
	taken := a.forget()
	a.mu.Unlock()
	if !taken {
		return // answered meanwhile
	}
	a.sess.cancel(a.id, context.DeadlineExceeded.Error())
	a.finish(nil, nil, true, context.DeadlineExceeded)
}

// abandon is the cancel StartCall returns.
func (a *asyncCall) abandon() {
	a.mu.Lock()
	a.abandoned = true
	a.stopTimer()
	stopInput := a.stopInput
	taken := stopInput == nil && a.forget()
	a.mu.Unlock()
	if stopInput != nil {
		stopInput()
		return
	}
	if !taken {
		return // answered meanwhile, or ending already
	}
	a.sess.cancel(a.id, context.Canceled.Error())
	a.finish(nil, context.Canceled, false, context.Canceled)
}

// finish ends the call with what Call would return: gone is how the
// caller's context ended (nil: it did not), expired says the limit ran out.
//
// The answer goes first: the bookkeeping after it is no part of the
// call's latency.
func (a *asyncCall) finish(raw json.RawMessage, gone error, expired bool, err error) {
	defer a.conn.endCall()
	defer a.conn.untrackCall(a.caller)
	if err != nil {
		op := "call " + a.params.Name
		timedOut := a.conn.timedOut(a.sess, a.mark, "answer", a.limit)
		a.done.CallDone(nil, a.conn.explainRequestErr(a.sess, op, gone, expired, timedOut, err))
		return
	}
	a.done.CallDone(raw, nil)
}

// ToolsAtHand is Tools for a caller that must not wait: the catalog as
// Tools would return it without listing, or ok false when Tools would
// have to list (none yet, or the server announced a change).
func (c *Conn) ToolsAtHand() (tools []json.RawMessage, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil || c.toolsStale {
		return nil, false
	}
	return c.visible, true
}

// requestIDText is the id dispatch gives its request number n ("d17"),
// made with one allocation, not two: it is made for every call.
func requestIDText(n uint64) string {
	var buf [24]byte
	return string(strconv.AppendUint(append(buf[:0], 'd'), n, 10))
}
