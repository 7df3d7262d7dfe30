package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// CallRequest is one tools/call.
type CallRequest struct {
	Tool      string
	Arguments json.RawMessage // a JSON object; nil sends none
	Meta      json.RawMessage // a JSON object, forwarded as the request's _meta with its numbers as written
	// OnProgress, when set, receives the params of each progress
	// notification the server sends for this call. It runs on the read
	// loop and must not block or call back into the connection.
	OnProgress func(params map[string]any)
	// AsTask calls the tool as a task (its execution.taskSupport is
	// "required"): Timeout bounds creating it, waiting for it and fetching
	// its result, and its status is relayed to OnProgress.
	AsTask bool
	// Timeout bounds the tools/call request itself; starting the server
	// first is bounded by the connect timeout instead. Zero: no limit but
	// the caller's context.
	Timeout time.Duration
	// Batch, for StartCall only, holds the call to be written with
	// others to the same server when the batch is flushed (see
	// SendBatch); nil writes it at once.
	Batch *SendBatch
	// ArgumentsValid, for StartCall only, says Arguments are known to be
	// one valid JSON value (part of a message the caller checked), so the
	// request is written without checking them again.
	ArgumentsValid bool
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
	Task      *struct{}       `json:"task,omitempty"`
	// The agent's answers to a multi-round-trip call's input requests,
	// and the state the server asked to get back with them.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   string                     `json:"requestState,omitempty"`

	argumentsValid bool // CallRequest.ArgumentsValid
}

// Call runs tools/call and returns the server's raw result, starting the
// server first if need be. A JSON-RPC error from the server is a *RPCError
// and an exceeded req.Timeout is ErrCallTimeout (each wrapped in a
// ConnError).
func (c *Conn) Call(ctx context.Context, req CallRequest) (json.RawMessage, error) {
	// Here, not only in the callers, so that no path can forget it.
	if err := c.ToolAllowed(req.Tool); err != nil {
		return nil, err
	}
	op := "call " + req.Tool
	// Before the server is started: it could not read the request.
	if err := checkParamsNesting(req.Arguments, req.Meta); err != nil {
		return nil, c.fail(op, err, false)
	}
	c.beginCall()
	defer c.endCall()
	// Not under req.Timeout: a server that takes longer to start than
	// its calls may take would otherwise never start.
	sess, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	defer c.trackCaller(ctx)()
	meta, unregister, err := c.progressMeta(req.Meta, req.OnProgress)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", c.Alias, op, err)
	}
	defer unregister()
	params := callParams{Name: req.Tool, Arguments: req.Arguments, Meta: meta}
	var (
		raw     json.RawMessage
		expired bool
		mark    = sess.unattributedMark()
	)
	if req.AsTask {
		raw, expired, err = c.callAsTask(ctx, sess, req, params)
	} else {
		raw, expired, err = c.callWithInput(ctx, sess, req.Timeout, params)
	}
	if err != nil {
		timedOut := c.timedOut(sess, mark, "answer", req.Timeout)
		return nil, c.wrapRequestErr(op, ctx, expired, timedOut, err)
	}
	return raw, nil
}

// send runs one request on sess within limit (0: none but ctx's). If the
// server answers that it no longer knows the session (a streamable HTTP
// server that restarted while we were idle), the request goes once more on
// a new session, with the whole limit: that is safe because the server
// never ran the first one, and the agent does not see the restart. It
// returns the session the request last went on, and whether limit ran out.
func (c *Conn) send(ctx context.Context, sess *session, limit time.Duration, method string, params any) (json.RawMessage, *session, bool, error) {
	raw, expired, err := c.sendOnce(ctx, sess, limit, method, params)
	if !errors.Is(err, transport.ErrSessionTerminated) || expired || ctx.Err() != nil {
		return raw, sess, expired, err
	}
	c.log.Info("the server no longer knows the session; reconnecting", "method", method)
	c.markDead(err)
	if sess, err = c.ensure(ctx); err != nil {
		return nil, nil, false, err
	}
	raw, expired, err = c.sendOnce(ctx, sess, limit, method, params)
	return raw, sess, expired, err
}

func (c *Conn) sendOnce(ctx context.Context, sess *session, limit time.Duration, method string, params any) (json.RawMessage, bool, error) {
	limited, cancel := withOptionalTimeout(ctx, limit)
	defer cancel()
	raw, err := c.request(limited, sess, method, params)
	return raw, err != nil && limited.Err() != nil && ctx.Err() == nil, err
}

func withOptionalTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// wrapRequestErr explains a failed request: reconnecting failed (already
// explained), the server refused it, the caller gave up (ctx ended), the
// request's own time limit ran out (expired: timedOut says which limit), or
// the server was lost, in which case it is marked dead so that the next use
// restarts it.
func (c *Conn) wrapRequestErr(op string, ctx context.Context, expired bool, timedOut, err error) error {
	return c.explainRequestErr(nil, op, ctx.Err(), expired, timedOut, err)
}

// explainRequestErr is wrapRequestErr for a request whose caller's
// context ended with gone (nil: it did not end), made on sess (nil: the
// live session). A session lost is marked dead only while it is the live
// one: a call's failure on a server already replaced says nothing of the
// new one.
func (c *Conn) explainRequestErr(sess *session, op string, gone error, expired bool, timedOut, err error) error {
	var (
		rpc  *RPCError
		conn *ConnError
	)
	var (
		needsAuth *NeedsAuthError
		tooLong   *MessageTooLongError
		tooDeep   *MessageTooDeepError
	)
	switch {
	case errors.As(err, &conn):
		return err
	case errors.As(err, &needsAuth):
		// The OAuth client's (a refused refresh, a wider scope wanted):
		// the session is fine, the request lacks authorization.
		return c.fail(op, needsAuth, false)
	case errors.As(err, &rpc), errors.Is(err, ErrTaskCancelled), errors.As(err, &tooLong), errors.As(err, &tooDeep):
		// The server is fine: it refused, or (tooLong, tooDeep) dispatch did.
		return c.fail(op, err, false)
	case errors.As(err, new(serverAnswered)):
		// The server answered, with an HTTP error status or something
		// that is not MCP: it is there, and the session may still serve.
		return c.fail(op, explainHTTPErr(c.Config, err), false)
	case gone != nil:
		return c.fail(op, callerGoneErr(gone), false)
	case expired:
		// Slow, or wedged: a ping tells which, off the caller's path.
		c.checkWedged(sess)
		return c.fail(op, timedOut, false)
	default:
		lost := c.fail(op, fmt.Errorf("%w: %v", ErrServerGone, explainHTTPErr(c.Config, err)), true)
		if c.markDeadIf(sess, err) {
			c.log.Warn("server connection lost", "error", lost.Error())
		}
		return lost
	}
}

// callerGone explains a request or start abandoned because its caller's
// context ended (the agent cancelled, dispatch is shutting down, ...):
// none of dispatch's own limits fired.
func callerGone(ctx context.Context) error {
	return callerGoneErr(ctx.Err())
}

// callerGoneErr is callerGone for a context that ended with err.
func callerGoneErr(err error) error {
	return fmt.Errorf("abandoned: the caller stopped waiting (%w)", err)
}

// request sends one JSON-RPC request with an ID of our own, which cannot
// collide with the numeric IDs mcp-go's client uses for initialize. If ctx
// ends first, the server is told with notifications/cancelled.
func (c *Conn) request(ctx context.Context, sess *session, method string, params any) (json.RawMessage, error) {
	if !sess.alive() {
		return nil, errors.New("session ended")
	}
	idText := requestIDText(c.seq.Add(1))
	id := mcp.NewRequestId(idText)
	if sess.modern {
		params = c.withProtocolMeta(sess, params)
	}
	sendCtx, watch := ctx, (*deepWatch)(nil)
	if sess.http != nil {
		// An SSE answer too deep for mcp-go to decode is dropped by it:
		// the guard ends this request with dispatch's refusal instead.
		sendCtx, watch = sess.http.nesting.watch(ctx, idText)
		defer watch.end()
	}
	resp, err := sess.transport.SendRequest(sendCtx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      id,
		Method:  method,
		Params:  params,
	})
	if err != nil {
		if refusal := watch.refused(); refusal != nil {
			return nil, refusal // the server answered: nothing to cancel
		}
		if tooDeep := (*MessageTooDeepError)(nil); errors.As(err, &tooDeep) {
			return nil, tooDeep // a JSON body's (guardAnswer), under mcp-go's wrapping
		}
		if tooLong := (*MessageTooLongError)(nil); errors.As(err, &tooLong) {
			return nil, tooLong // likewise
		}
		if ctx.Err() != nil {
			sess.cancel(id, ctx.Err().Error())
		}
		return nil, err
	}
	if refusal := watch.refused(); refusal != nil {
		// An SSE event cut at --max-message may still decode (what was
		// cut was not JSON): it is refused all the same.
		return nil, refusal
	}
	if resp.Error != nil {
		return nil, c.serverError(resp.Error)
	}
	if catalogMethods[method] {
		// Repaired and masked item by item by listPages, which must
		// see which names are not valid UTF-8 as the server wrote them.
		return resp.Result, nil
	}
	return c.cleanAnswer(resp.Result), nil
}

// catalogMethods are the requests whose answers are a server's catalog:
// dispatch masks those as server text, token shapes included, once it
// has read them. Every other answer has its invalid UTF-8 repaired and
// the exact values of the known secrets masked here (cleanAnswer), the
// one place every request's answer passes.
var catalogMethods = map[string]bool{
	string(mcp.MethodToolsList): true, string(mcp.MethodResourcesList): true,
	string(mcp.MethodResourcesTemplatesList): true, string(mcp.MethodPromptsList): true,
}

func rawData(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}
