package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"dispatch/connections"
)

// HotAnswer is where a call StartToolResult began is answered: Answer
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

// StartToolResult is AppendToolResult without waiting for the server:
// the call is sent and StartToolResult returns; the answer is appended to
// dst and handed to to.Answer when the server's comes. ok is false, and
// nothing has run, for a call it cannot begin without waiting (the server
// is not running, its catalog is not at hand) or that is not of the
// plainest form: AppendToolResult then serves it. cancel abandons the
// call as the end of AppendToolResult's context does; the answer (an
// error saying so) still comes.
//
// ctx is read for its values (the agent session), not for its end.
func (s *Service) StartToolResult(ctx context.Context, dst []byte, arguments json.RawMessage, to HotAnswer) (cancel func(), ok bool) {
	req, plain := plainCall(arguments)
	if !plain {
		return nil, false
	}
	return s.startCall(ctx, dst, req, true, to)
}

// StartExposedResult is StartToolResult for the tool t listed beside
// proxy-dispatch, as AppendExposedResult answers it.
func (s *Service) StartExposedResult(ctx context.Context, dst []byte, t SurfaceTool, arguments json.RawMessage, to HotAnswer) (cancel func(), ok bool) {
	return s.startCall(ctx, dst, Request{Action: "call", Connection: t.Connection, Tool: t.Tool, Arguments: arguments}, false, to)
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
	ctx = AgentContext(ctx)
	timeout, which := s.callLimit(conn, checked)
	c := &startedCall{s: s, conn: conn, req: req, checked: checked, stamped: stamped, dst: dst, to: to, which: which, started: time.Now()}
	// Saving the result is part of the call: its time limit and its
	// cancel bound that too.
	c.saveCtx, c.stopSave = context.WithDeadline(context.WithoutCancel(ctx), c.started.Add(timeout))
	cancel, ok := conn.StartCall(ctx, connections.CallRequest{Tool: checked.Tool, Arguments: checked.Arguments, Timeout: timeout, Batch: to.Batch()}, c.done)
	if !ok {
		c.stopSave()
		return nil, false
	}
	return func() { c.stopSave(); cancel() }, true
}

// startedCall is a call startCall began, as its answer finds it.
type startedCall struct {
	s            *Service
	conn         *connections.Conn
	req, checked Request
	stamped      bool
	dst          []byte
	to           HotAnswer
	which        func() string // names the time limit, for its error
	started      time.Time
	saveCtx      context.Context // bounds saving the result to a file
	stopSave     context.CancelFunc
}

// done gets the server's answer, on the goroutine that read it.
func (c *startedCall) done(raw json.RawMessage, err error) {
	if err == nil && c.s.answersInline(raw) {
		c.finish(raw, nil)
		return
	}
	// Saved to a file, made TOON, or an error to word: work that must
	// not hold up the reading of the server's other answers.
	go c.finish(raw, err)
}

func (c *startedCall) finish(raw json.RawMessage, err error) {
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
	defer c.stopSave()
	resp, err := c.s.callResponse(c.saveCtx, c.conn, c.checked, raw, err, c.which)
	answer := c.s.appendAnswer(c.dst, c.req, c.stamped, resp, err)
	answered = true
	c.to.Answer(answer)
	c.s.logCall(c.conn.Alias, c.checked.Tool, c.started, resp, err) // after: no part of the latency
}

// answersInline reports whether the answer to a call whose server
// answered raw is quick to make: not saved to a file, not made TOON.
func (s *Service) answersInline(raw json.RawMessage) bool {
	spills := s.opts.Spill != nil && s.opts.Threshold > 0 && int64(len(raw)) > s.opts.Threshold
	return !spills && !s.opts.Toon
}

// resolveReady is resolveTool for a call that must not wait: ok only when
// every connection to look in has its catalog at hand and exactly one
// has the tool. Anything else is resolveTool's to settle or word.
func (s *Service) resolveReady(connKey, tool string) (*connections.Conn, toolDef, bool) {
	conns, err := s.selectConns(connKey)
	if err != nil {
		return nil, toolDef{}, false
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
