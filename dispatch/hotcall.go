package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"dispatch/rawjson"

	"github.com/tidwall/gjson"
)

// AppendToolResult answers one proxy-dispatch tools/call whose request had
// no _meta (so no progress token and no per-request protocol facts): it
// appends the JSON of the tool result to dst, as HandleTool's result would
// be encoded. ok is false, and nothing has run, when arguments are not a
// call of a tool; the caller then takes the general path (HandleTool).
// Arguments PlainCall takes are better served by AppendPlainCall, which
// does not read them again.
func (s *Service) AppendToolResult(ctx context.Context, dst []byte, arguments json.RawMessage) (out []byte, ok bool) {
	req, plain := plainCall(arguments)
	var err error
	if !plain {
		req, err = ParseRequest(arguments)
		if err != nil || req.Action != "call" || (req.Type != "" && req.Type != TypeTool) || req.ProxyShape {
			return dst, false
		}
	}
	return s.appendCall(ctx, dst, req, true), true
}

// AppendPlainCall is AppendToolResult for req, a call PlainCall read.
//
// It is the hot path of a proxied call. The agent's arguments are read
// once; the server's result, when it is passed through unchanged (the
// common case: not saved to a file, not made TOON, not an error), is not
// decoded and encoded again: its members are copied as they came, with
// dispatch's facts spliced into its _meta. Every other outcome is shaped
// by the general path's code.
func (s *Service) AppendPlainCall(ctx context.Context, dst []byte, req Request) []byte {
	return s.appendCall(ctx, dst, req.owned(), true)
}

// AppendExposedResult is AppendToolResult for the tool t listed beside
// proxy-dispatch (--expose, --transparent): the answer CallExposed gives a
// call without _meta, its arguments an object.
func (s *Service) AppendExposedResult(ctx context.Context, dst []byte, t SurfaceTool, arguments json.RawMessage) []byte {
	return s.appendCall(ctx, dst, Request{Action: "call", Connection: t.Connection, Tool: t.Tool, Arguments: arguments}, false)
}

// appendCall runs req, a call of a tool, as Do does and appends the answer
// shape gives it; stamped, with req's proxy facts as stampProxy adds them.
func (s *Service) appendCall(ctx context.Context, dst []byte, req Request, stamped bool) []byte {
	ctx = AgentContext(ctx)
	var resp *CallResponse
	checked := req // as Do checks it, leaving req as parsed for stampProxy
	err := checked.Check()
	if err == nil {
		resp, err = s.Call(ctx, s.qualifyTool(ctx, checked), Hooks{})
	}
	return s.appendAnswer(dst, req, stamped, resp, err)
}

// appendAnswer appends the answer to req, a call of a tool that got resp
// or err, as shape gives it; stamped, with req's proxy facts as
// stampProxy adds them.
func (s *Service) appendAnswer(dst []byte, req Request, stamped bool, resp *CallResponse, err error) []byte {
	var facts proxyFactSet
	if stamped {
		facts = proxyFacts(req)
	}
	if err == nil && resp.Spill == nil && resp.Format == "" && len(resp.Arguments) == 0 {
		if spliced, ok := appendPassedThrough(dst, resp, facts); ok {
			return spliced
		}
	}
	var answer any // nil, not a typed nil, when there is no response
	if resp != nil {
		answer = resp
	}
	result := s.shape(req, answer, err)
	if stamped {
		stampProxy(result, req)
	}
	data, err := json.Marshal(result)
	if err != nil {
		data, err = json.Marshal(errorResult(fmt.Errorf("encode response: %w", err)))
	}
	if err != nil { // an error result always encodes; this is only in case
		data = []byte(`{"content":[{"type":"text","text":"encode response failed"}],"isError":true}`)
	}
	return append(dst, data...)
}

// plainCall reads arguments of the commonest form,
// {"action":"call","tool":T,"connection":C,"arguments":{...}} (connection
// and arguments optional, strings without escapes), into the Request
// ParseRequest would return, without decoding them with encoding/json
// twice (once as a map to check the keys, once into Request). ok is false
// for anything else, and for a request Check refuses: ParseRequest then
// decides, and words any error.
func plainCall(arguments []byte) (req Request, ok bool) {
	if !gjson.ValidBytes(arguments) {
		return Request{}, false
	}
	req, ok = PlainCall(gjson.Parse(jsonView(arguments)))
	return req.owned(), ok
}

// PlainCall is plainCall for arguments the caller has already checked
// and parsed as part of the agent's message (gjson.ValidBytes, then
// gjson.Parse over a view of the message's bytes, not a copy): the hot
// path reads the message once. The Request's Arguments, Tool and
// Connection are views of that message (StartPlainCall and AppendPlainCall
// copy what they keep).
func PlainCall(arguments gjson.Result) (req Request, ok bool) {
	if !arguments.IsObject() {
		return Request{}, false
	}
	var seen [4]bool // action, tool, connection, arguments
	ok = true
	arguments.ForEach(func(key, value gjson.Result) bool {
		i := -1
		switch key.Raw {
		case `"action"`:
			i, ok = 0, value.Raw == `"call"`
			req.Action = "call"
		case `"tool"`:
			i = 1
			req.Tool, ok = plainString(value)
		case `"connection"`:
			i = 2
			req.Connection, ok = plainString(value)
		case `"arguments"`:
			i, ok = 3, value.IsObject()
			req.Arguments = viewBytes(value.Raw)
			req.argumentsChecked = true // an object (gjson's Raw: no space around it) of a message checked whole
		default:
			ok = false
		}
		ok = ok && !seen[i]
		if ok {
			seen[i] = true
		}
		return ok
	})
	if !ok || !seen[0] || !seen[1] || req.Check() != nil {
		return Request{}, false
	}
	return req, true
}

// plainString is a JSON string value that holds no escape and is valid
// UTF-8, so that it reads as its bytes (encoding/json would read it so):
// a view of them.
func plainString(v gjson.Result) (string, bool) {
	if v.Type != gjson.String || len(v.Raw) < 2 {
		return "", false
	}
	inner := v.Raw[1 : len(v.Raw)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' || inner[i] < 0x20 {
			return "", false
		}
	}
	if !utf8.ValidString(inner) {
		return "", false
	}
	return inner, true
}

// owned is req, a Request PlainCall read, with its names copied: not
// views that hold the agent's whole message, for as long as they are
// kept.
func (req Request) owned() Request {
	req.Tool, req.Connection = strings.Clone(req.Tool), strings.Clone(req.Connection)
	return req
}

// appendPassedThrough appends the server's result in resp.raw with
// dispatch's facts in its _meta: what inlineCallResult and stampProxy
// make of it, without decoding it. ok is false for a result whose members
// are not exactly the ones that would pass through unchanged (an unknown
// or repeated member, content that is not an array, a null
// structuredContent, a _meta that is not an object or already has a key
// dispatch sets): the general path then says what becomes of them.
func appendPassedThrough(dst []byte, resp *CallResponse, facts proxyFactSet) ([]byte, bool) {
	out, passed := splicePassedThrough(dst, resp.raw, resultStamp{bytes: resp.Bytes, tokens: resp.EstimatedTokens, conn: resp.Connection, tool: resp.Tool}, facts)
	return out, passed.ok
}

// resultStamp is what _meta.dispatch says of a passed-through result.
type resultStamp struct {
	bytes, tokens int64
	conn, tool    string
}

// passedThrough is what splicePassedThrough read of a result on its way.
type passedThrough struct {
	ok      bool
	isError bool
	content gjson.Result // the content array, a view of the result
}

// splicePassedThrough is appendPassedThrough of raw, reporting also what
// callResponse would have decoded of it: a result it passes (ok) is one
// decodeCallResult reads without error.
func splicePassedThrough(dst, raw []byte, stamp resultStamp, facts proxyFactSet) ([]byte, passedThrough) {
	var passed passedThrough
	if len(raw) == 0 || !gjson.ValidBytes(raw) {
		return dst, passed
	}
	root := gjson.Parse(jsonView(raw))
	if !root.IsObject() {
		return dst, passed
	}
	var (
		seen    [4]bool // content, structuredContent, isError, _meta
		meta    gjson.Result
		members [6]gjson.Result // keys and values, in order, _meta left out
		n       int
		ok      = true
	)
	root.ForEach(func(key, value gjson.Result) bool {
		i := -1
		switch key.Str {
		case "content":
			i, ok, passed.content = 0, value.IsArray(), value
		case "structuredContent":
			i, ok = 1, value.Type != gjson.Null
		case "isError":
			i, ok, passed.isError = 2, value.Type == gjson.True || value.Type == gjson.False, value.Type == gjson.True
		case "_meta":
			i, ok, meta = 3, value.IsObject(), value
		default:
			ok = false
		}
		if !ok || seen[i] {
			ok = false
			return false
		}
		seen[i] = true
		if i != 3 {
			members[n], members[n+1] = key, value
			n += 2
		}
		return true
	})
	if !ok || !seen[0] {
		return dst, passedThrough{}
	}
	start := len(dst)
	dst = append(dst, `{"_meta":{"dispatch":{"bytes":`...)
	dst = strconv.AppendInt(dst, stamp.bytes, 10)
	dst = append(dst, `,"connection":`...)
	dst = rawjson.AppendString(dst, stamp.conn)
	dst = append(dst, `,"estimatedTokens":`...)
	dst = strconv.AppendInt(dst, stamp.tokens, 10)
	dst = append(dst, `,"tool":`...)
	dst = rawjson.AppendString(dst, stamp.tool)
	dst = append(dst, '}')
	dst = facts.appendMembers(dst)
	if meta.Exists() {
		var seenKeys []string
		meta.ForEach(func(key, value gjson.Result) bool {
			if facts.has(key.Str) || key.Str == "dispatch" || isAmong(key.Str, seenKeys) {
				ok = false // ours replace the server's; a repeated key is the general path's to settle
				return false
			}
			seenKeys = append(seenKeys, key.Str)
			dst = append(dst, ',')
			dst = append(dst, key.Raw...)
			dst = append(dst, ':')
			dst = append(dst, value.Raw...)
			return true
		})
		if !ok {
			return dst[:start], passedThrough{}
		}
	}
	dst = append(dst, '}')
	for i := 0; i < n; i += 2 {
		dst = append(dst, ',')
		dst = append(dst, members[i].Raw...)
		dst = append(dst, ':')
		dst = append(dst, members[i+1].Raw...)
	}
	passed.ok = true
	return append(dst, '}'), passed
}

func isAmong(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
