package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"dispatch/connections"
	"dispatch/spill"
)

// HotAnswer is where a call StartPlainCall began is answered: Answer
// gets dst with the tool result appended, or Panic what the code
// answering it panicked with. One of them is called, once, on a goroutine
// that must not be kept waiting (the one reading the server's answer).
// Batch, when not nil, holds the call's request to its server until the
// caller flushes it (connections.SendBatch). An interface, not funcs: the
// caller's one value per call, not a closure for each.
type HotAnswer interface {
	Answer(answer []byte)
	Panic(recovered any)
	Batch() *connections.SendBatch
}

// StartPlainCall is AppendPlainCall without waiting for the server: the
// call is sent and StartPlainCall returns; the answer is appended to dst
// and handed to to.Answer when the server's comes. ok is false, and
// nothing has run, for a call it cannot begin without waiting (the server
// is not running, its catalog is not at hand): AppendPlainCall then
// serves it. cancel abandons the call as the end of AppendPlainCall's
// context does; the answer (an error saying so) still comes.
//
// ctx is read for its values (the agent session), not for its end, and
// must be marked as the agent's already (AgentContext): the hot path's
// is, once for all its calls, so that none walks the context's chain
// three times more to mark it again.
func (s *Service) StartPlainCall(ctx context.Context, dst []byte, req Request, to HotAnswer) (cancel func(), ok bool) {
	req.Connection = strings.Clone(req.Connection) // a view of the agent's message; the tool's name startCall replaces
	return s.startCall(ctx, dst, req, true, to)
}

// StartExposedResult is StartPlainCall for the tool t listed beside
// proxy-dispatch, as AppendExposedResult answers it. arguments are, as
// PlainCall's are, part of a message the caller checked is valid JSON.
func (s *Service) StartExposedResult(ctx context.Context, dst []byte, t SurfaceTool, arguments json.RawMessage, to HotAnswer) (cancel func(), ok bool) {
	return s.startCall(ctx, dst, Request{Action: "call", Connection: t.Connection, Tool: t.Tool, Arguments: arguments, argumentsChecked: true}, false, to)
}

// startCall begins req as appendCall runs it, if that needs no waiting.
func (s *Service) startCall(ctx context.Context, dst []byte, req Request, stamped bool, to HotAnswer) (func(), bool) {
	checked := req
	if checked.Check() != nil || strings.Contains(checked.Tool, "/") {
		return nil, false // the general path words the refusal, or qualifies the name
	}
	conn, def, ok := s.resolveReady(checked.Connection, checked.Tool)
	if !ok || def.RunsAsTask {
		return nil, false
	}
	// A plain call's tool name is a view of the agent's message
	// (PlainCall): the catalog's, equal, is kept instead.
	if req.Tool == checked.Tool {
		req.Tool = def.Name
	}
	checked.Tool = def.Name
	c := &startedCall{s: s, conn: conn, req: req, checked: checked, stamped: stamped, dst: dst, to: to, ctx: ctx, started: time.Now()}
	c.timeout = s.callTimeout(conn, checked)
	cancel, ok := conn.StartCallTo(ctx, connections.CallRequest{Tool: checked.Tool, Arguments: checked.Arguments, Timeout: c.timeout, Batch: to.Batch(),
		ArgumentsValid: true, // both callers' are part of the agent's message, checked whole
	}, c)
	if !ok {
		return nil, false
	}
	c.cancelCall = cancel
	return c.cancel, true
}

// startedCall is a call startCall began, as its answer finds it.
type startedCall struct {
	s            *Service
	conn         *connections.Conn
	req, checked Request
	stamped      bool
	dst          []byte
	to           HotAnswer
	which        func() string // names the time limit, for its error; nil: limitAdvice
	started      time.Time
	ctx          context.Context // the call's, for saving its result
	timeout      time.Duration   // the call's time limit, from started

	cancelCall func() // the server call's cancel, from StartCallTo

	mu        sync.Mutex
	cancelled bool               // cancel has run
	stopSave  context.CancelFunc // ends a save in progress, if any
}

// cancel cancels the call: the request to its server and, once the
// server has answered, the saving of its result to a file.
func (c *startedCall) cancel() {
	c.mu.Lock()
	c.cancelled = true
	stop := c.stopSave
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	c.cancelCall()
}

// saveContext bounds saving the call's result by the call's own time
// limit and cancel.
func (c *startedCall) saveContext() (context.Context, context.CancelFunc) {
	ctx, stop := context.WithDeadline(context.WithoutCancel(c.ctx), c.started.Add(c.timeout))
	c.mu.Lock()
	c.stopSave = stop
	cancelled := c.cancelled
	c.mu.Unlock()
	if cancelled {
		stop()
	}
	return ctx, stop
}

// CallDone gets the server's answer, on the goroutine that read it.
func (c *startedCall) CallDone(raw json.RawMessage, err error) {
	var verdict fileVerdict
	if err == nil {
		verdict = c.s.resultFile(c.checked, raw)
		if !verdict.toFile && !c.s.opts.Toon {
			c.finish(raw, nil, verdict)
			return
		}
	}
	// Saved to a file (over the threshold, or nested too deep to answer
	// inline, however small), made TOON, or an error to word: work that
	// must not hold up the reading of the server's other answers.
	go c.finish(raw, err, verdict)
}

// finish answers the call from its server's answer: raw, with verdict
// (resultFile's on it), or err.
func (c *startedCall) finish(raw json.RawMessage, err error, verdict fileVerdict) {
	answered := false
	defer func() {
		r := recover()
		switch {
		case r == nil:
		case answered:
			// The agent has its answer (or Answer itself failed): a second
			// one would answer the call twice and free its slot twice.
			c.s.log.Error("panic after answering a call", "panic", fmt.Sprint(r))
		default:
			c.to.Panic(r)
		}
	}()
	if err == nil && !verdict.toFile {
		var facts proxyFactSet
		if c.stamped {
			facts = proxyFacts(c.req)
		}
		if answer, resp, ok := c.s.passThrough(c.dst, c.conn, c.checked, raw, facts); ok {
			answered = true
			c.to.Answer(answer)
			c.s.logCall(c.conn.Alias, c.checked.Tool, c.started, &resp, nil)
			return
		}
	}
	which := c.which
	if which == nil {
		which = c.limitAdvice
	}
	// Saving the result is part of the call: its time limit and its
	// cancel bound that too. The context is made only here, off the
	// passed-through path, which needs no timer per call.
	saveCtx, stopSave := c.saveContext()
	defer stopSave()
	resp, err := c.s.decidedCallResponse(saveCtx, c.conn, c.checked, raw, err, which, verdict)
	answer := c.s.appendAnswer(c.dst, c.req, c.stamped, resp, err)
	answered = true
	c.to.Answer(answer)
	c.s.logCall(c.conn.Alias, c.checked.Tool, c.started, resp, err) // after: no part of the latency
}

// passThrough appends the answer to a call of req (as checked) whose
// server answered raw, a result not to be saved to a file (resultFile),
// when that answer is raw passed through with dispatch's facts spliced
// into its _meta: what callResponse and appendAnswer make of it, with the
// result read once, not decoded by callResponse and read again by
// appendPassedThrough. ok is false, with nothing appended and nothing
// noted, for any other answer (made TOON, reshaped, an error):
// callResponse and appendAnswer then make it. resp is what callResponse
// would have returned, less the content, for the call's log line.
func (s *Service) passThrough(dst []byte, conn *connections.Conn, req Request, raw []byte, facts proxyFactSet) (answer []byte, resp CallResponse, ok bool) {
	if s.opts.Toon || req.ArgumentsFile != "" {
		return dst, CallResponse{}, false
	}
	resp = CallResponse{Connection: conn.Alias, Tool: req.Tool, Bytes: int64(len(raw)), EstimatedTokens: spill.EstimateTokens(int64(len(raw)))}
	answer, passed := splicePassedThrough(dst, raw, resultStamp{bytes: resp.Bytes, tokens: resp.EstimatedTokens, conn: resp.Connection, tool: resp.Tool}, facts)
	if !passed.ok {
		return dst, CallResponse{}, false
	}
	resp.IsError = passed.isError
	s.links.rememberItems(conn.Alias, passed.content)
	return answer, resp, true
}

func (c *startedCall) limitAdvice() string { return c.s.limitAdvice(c.conn, c.checked) }

// maxStackConns is how many connections resolveReady looks through
// without allocating the list of them.
const maxStackConns = 16

// resolveReady is resolveTool for a call that must not wait: ok only when
// every connection to look in has its catalog at hand and exactly one
// has the tool. Anything else is resolveTool's to settle or word.
func (s *Service) resolveReady(connKey, tool string) (*connections.Conn, toolDef, bool) {
	var (
		room  [maxStackConns]*connections.Conn
		conns []*connections.Conn
	)
	if connKey == "" {
		conns = s.conns.AppendConns(room[:0]) // not a slice allocated per call
	} else {
		c, err := s.conns.Lookup(connKey)
		if err != nil {
			return nil, toolDef{}, false
		}
		room[0] = c
		conns = room[:1]
	}
	var (
		found *connections.Conn
		def   toolDef
		n     int
	)
	for _, c := range conns {
		raw, ok := c.ToolsAtHand()
		if !ok {
			return nil, toolDef{}, false
		}
		for _, t := range s.parsed.tools(c, raw) {
			if t.Name == tool {
				found, def = c, t
				n++
			}
		}
	}
	return found, def, n == 1
}
