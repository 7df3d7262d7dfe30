package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/rawjson"
)

// The hot path: a tools/call of proxy-dispatch in its plainest form is
// answered here, not by mcp-go's server, which decodes each message about
// eight times (validity, reply types, envelope, protocol facts, the
// arguments as a map) before the handler decodes them once more. Here the
// line is checked once with gjson, its arguments go to the Service as the
// bytes they came in, and the answer is written as the Service encodes it.
//
// Only what mcp-go would serve exactly so takes it: a request with
// "jsonrpc":"2.0", an id written as mcp-go writes ids back, and params of
// only "name" and "arguments" (an object). _meta (progress tokens, the
// 2026-07-28 protocol's per-request facts, trace context), "task" and
// anything else go through mcp-go, as does a proxy-dispatch request that
// is not a call of a tool (the Service says so before running anything).

// maxHotIDBytes bounds the ids the hot path echoes as they came; a longer
// one goes through mcp-go. Ids are short in practice.
const maxHotIDBytes = 128

// hotCall is a tools/call of proxy-dispatch, or of a tool listed beside
// it, as slices of its line.
type hotCall struct {
	id        []byte       // as sent, and as mcp-go and idKey would write it
	name      string       // the tool's
	arguments []byte       // a JSON object
	args      gjson.Result // arguments, as parsed with the line

	// For proxy-dispatch: the call arguments hold, read once (readPlain),
	// when plain (dispatch.PlainCall).
	req   dispatch.Request
	plain bool
}

// parseHotCall returns line as a hotCall if it is one the hot path
// answers exactly as mcp-go would.
func parseHotCall(line []byte) (hotCall, bool) {
	// Bounded first: gjson's validator recurses once per level, and a
	// line too deep for the general path's decoder is refused there.
	if !rawjson.NestingWithin(line, MaxRequestNesting) || !gjson.ValidBytes(line) {
		return hotCall{}, false
	}
	// A view, not ParseBytes, which copies: the slices returned are of line.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	if !root.IsObject() {
		return hotCall{}, false
	}
	var (
		call   hotCall
		params gjson.Result
		seen   [4]bool // jsonrpc, id, method, params
		ok     = true
	)
	root.ForEach(func(key, value gjson.Result) bool {
		i := -1
		switch key.Raw {
		case `"jsonrpc"`:
			i, ok = 0, value.Raw == `"2.0"`
		case `"id"`:
			i, ok = 1, plainID(value)
			call.id = line[value.Index : value.Index+len(value.Raw)]
		case `"method"`:
			i, ok = 2, value.Raw == `"tools/call"`
		case `"params"`:
			i, ok, params = 3, value.IsObject(), value
		default:
			ok = false
		}
		ok = ok && !seen[i]
		if ok {
			seen[i] = true
		}
		return ok
	})
	if !ok || seen != [4]bool{true, true, true, true} {
		return hotCall{}, false
	}
	var named bool
	params.ForEach(func(key, value gjson.Result) bool {
		switch {
		case key.Raw == `"name"` && !named:
			named, ok = true, value.Type == gjson.String && !strings.Contains(value.Raw, `\`)
			call.name = value.Str
		case key.Raw == `"arguments"` && call.arguments == nil:
			ok = value.IsObject()
			call.arguments = line[value.Index : value.Index+len(value.Raw)]
			call.args = value
		default:
			ok = false
		}
		return ok
	})
	if !ok || !named || call.arguments == nil {
		return hotCall{}, false
	}
	return call, true
}

// plainID reports whether id is one that mcp-go writes back, and idKey
// spells, exactly as it came: an integer small enough to survive a
// float64, or a string of printable ASCII that encoding/json does not
// escape.
func plainID(id gjson.Result) bool {
	raw := id.Raw
	if len(raw) == 0 || len(raw) > maxHotIDBytes {
		return false
	}
	switch id.Type {
	case gjson.Number:
		digits := raw
		if digits[0] == '-' {
			digits = digits[1:]
		}
		// -0 comes back from mcp-go as 0.
		if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && (len(digits) > 1 || len(digits) < len(raw))) {
			return false
		}
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return false
			}
		}
		return true
	case gjson.String:
		for i := 1; i < len(raw)-1; i++ {
			switch c := raw[i]; {
			case c < 0x20 || c >= 0x7f, c == '\\', c == '"', c == '<', c == '>', c == '&':
				return false
			}
		}
		return true
	}
	return false
}

// hotTool finds the tool call is of: ok is false for one the hot path
// does not serve; exposed, for a tool listed beside proxy-dispatch (t).
func (s *stdioServer) hotTool(call hotCall) (t dispatch.SurfaceTool, exposed, ok bool) {
	if s.exposed != nil {
		t, exposed = s.exposed(call.name)
	}
	switch {
	case call.name == dispatch.ToolName && !exposed:
		return t, false, true
	case exposed && call.name != dispatch.ToolName:
		return t, true, true
	}
	return t, false, false
}

// readPlain reads the arguments of call, a call of proxy-dispatch, for
// the Service, once for both ways of serving it (startHot, hotAnswer).
func (call *hotCall) readPlain() {
	call.req, call.plain = dispatch.PlainCall(call.args)
}

// hotAnswer returns how the Service answers call, a call hotTool found
// the tool of (t, exposed).
func (s *stdioServer) hotAnswer(call hotCall, t dispatch.SurfaceTool, exposed bool) func(ctx context.Context, dst []byte) ([]byte, bool) {
	switch {
	case !exposed && call.plain:
		return func(ctx context.Context, dst []byte) ([]byte, bool) {
			return s.direct.AppendPlainCall(ctx, dst, call.req), true
		}
	case !exposed:
		return func(ctx context.Context, dst []byte) ([]byte, bool) {
			return s.direct.AppendToolResult(ctx, dst, call.arguments)
		}
	}
	return func(ctx context.Context, dst []byte) ([]byte, bool) {
		return s.direct.AppendExposedResult(ctx, dst, t, call.arguments), true
	}
}

// handlerName is the name of the tool a call hotTool found (t, exposed)
// is of, as mcp-go's recovery names it when its handler panics: the name
// the agent called.
func handlerName(t dispatch.SurfaceTool, exposed bool) string {
	if exposed {
		return t.Name
	}
	return dispatch.ToolName
}

// panicAnswer answers the call with id whose handler, of tool, panicked
// with r, as mcp-go's recovery middleware answers a handler's panic.
func panicAnswer(id []byte, tool string, r any) mcp.JSONRPCMessage {
	return errorAnswer(id, mcp.INTERNAL_ERROR, fmt.Sprintf("panic recovered in %s tool handler: %v", tool, r))
}

// answerHot serves the call with id of tool with answer and writes its
// answer. A request the Service does not take on this path (not a call)
// goes through mcp-go.
func (s *stdioServer) answerHot(ctx context.Context, id []byte, tool string, line []byte, answer func(context.Context, []byte) ([]byte, bool)) {
	buf := s.answerBuffer()
	out := appendAnswerHead(*buf, id)
	var taken bool
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic serving a request", "panic", fmt.Sprint(r))
				s.write(panicAnswer(id, tool, r))
				taken = true
			}
		}()
		out, taken = answer(ctx, out)
		if taken {
			line := append(out, "}\n"...)
			s.writeLine(line)
			s.reuseAnswer(buf, line)
		}
	}()
	if !taken {
		// As handle would have served it: a line encoding/json cannot
		// decode (too deeply nested, say) is answered as such.
		var msg message
		if err := json.Unmarshal(line, &msg); err != nil {
			s.write(undecodable(line))
			return
		}
		s.reply(ctx, line, msg.ID)
	}
}

// answerBufferBytes is the room an answer buffer starts with; a small
// call's answer fits.
const answerBufferBytes = 1024

// maxReusedAnswerBytes bounds the answer buffers kept for reuse: one a
// large answer grew is left to the collector.
const maxReusedAnswerBytes = 64 << 10

// answerBuffer returns a buffer for an answer, empty, from those written
// already (reuseAnswer) when there are some: not one allocated per call.
func (s *stdioServer) answerBuffer() *[]byte {
	if buf, ok := s.answerBuffers.Get().(*[]byte); ok {
		return buf
	}
	buf := make([]byte, 0, answerBufferBytes)
	return &buf
}

// reuseAnswer keeps buf, which holds line, for another answer. line must
// be written (writeLine keeps no line past its call), and nothing else
// may hold it.
func (s *stdioServer) reuseAnswer(buf *[]byte, line []byte) {
	if buf == nil || cap(line) > maxReusedAnswerBytes {
		return
	}
	*buf = line[:0]
	s.answerBuffers.Put(buf)
}

// appendAnswerHead appends a JSON-RPC answer to id up to its result.
func appendAnswerHead(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	return append(dst, `,"result":`...)
}

// startHot begins call without waiting for its server, if the Service can
// (see dispatch.Service.StartPlainCall): the reading goroutine sends it
// and reads on, and the goroutine that reads the server's answer writes
// the agent's. It reports false, having done nothing, when the call must
// be served the general way (serve), which also says when dispatch is
// busy.
func (s *stdioServer) startHot(ctx context.Context, call hotCall, t dispatch.SurfaceTool, exposed bool) bool {
	if !exposed && !call.plain {
		return false // for AppendToolResult to read
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return false
	}
	h := &hotStart{s: s, id: call.id, key: string(call.id), tool: handlerName(t, exposed)}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		<-s.slots
		return false
	}
	s.inFlight[h.key] = h
	s.handlers.Add(1)
	s.mu.Unlock()
	h.buf = s.answerBuffer()
	out := appendAnswerHead(*h.buf, call.id)
	var (
		cancel  func()
		started bool
	)
	if exposed {
		cancel, started = s.direct.StartExposedResult(ctx, out, t, call.arguments, h)
	} else {
		cancel, started = s.direct.StartPlainCall(ctx, out, call.req, h)
	}
	if !started {
		h.ended()
		return false
	}
	h.begun(cancel)
	return true
}

// hotStart is a call startHot began: where its answer goes
// (dispatch.HotAnswer), and what a cancellation finds it by. It may be
// cancelled (by drain) before the Service has said how.
type hotStart struct {
	s    *stdioServer
	id   []byte  // as the agent wrote it
	key  string  // in inFlight
	tool string  // the name the agent called (handlerName)
	buf  *[]byte // its answer's, from answerBuffer

	answered atomic.Bool // Answer or Panic has run

	mu        sync.Mutex
	stop      func()
	cancelled bool
}

// Answer and Panic answer the call once: a second answer, from either,
// is dropped (it would answer the call twice and free its slot twice).
func (h *hotStart) Answer(answer []byte) {
	if !h.answered.CompareAndSwap(false, true) {
		h.s.log.Error("a second answer to a call was dropped")
		return
	}
	defer h.ended()
	line := append(answer, "}\n"...)
	h.s.writeLine(line)
	h.s.reuseAnswer(h.buf, line)
}

func (h *hotStart) Panic(r any) {
	// As answerHot answers a panic.
	h.s.log.Error("panic serving a request", "panic", fmt.Sprint(r))
	if !h.answered.CompareAndSwap(false, true) {
		return // answered already
	}
	defer h.ended()
	h.s.write(panicAnswer(h.id, h.tool, r))
}

// Batch holds the call back while more lines are at hand, and also when
// calls are held already: then it joins them, and the reader flushes them
// before it reads on, so that calls go out in the order the agent sent
// them (a lone call written at once would overtake those held).
func (h *hotStart) Batch() *connections.SendBatch {
	if !h.s.readAhead && !h.s.batch.Holding() {
		return nil
	}
	return &h.s.batch
}

// ended gives back what startHot took.
func (h *hotStart) ended() {
	h.s.mu.Lock()
	delete(h.s.inFlight, h.key)
	h.s.mu.Unlock()
	<-h.s.slots
	h.s.handlers.Done()
}

func (h *hotStart) cancel() {
	h.mu.Lock()
	h.cancelled = true
	stop := h.stop
	h.mu.Unlock()
	if stop != nil {
		stop()
	}
}

func (h *hotStart) begun(stop func()) {
	h.mu.Lock()
	h.stop = stop
	cancelled := h.cancelled
	h.mu.Unlock()
	if cancelled {
		stop()
	}
}
