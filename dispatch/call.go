package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/connections"
	"dispatch/rawjson"
	"dispatch/spill"
	"dispatch/toon"
)

// CallResponse answers action call. Inline, it carries the downstream
// result untouched (every content item, structuredContent, isError);
// spilled, it carries Spill instead of the content.
type CallResponse struct {
	Connection        string            `json:"connection"`
	Tool              string            `json:"tool"`
	IsError           bool              `json:"isError,omitempty"`
	Content           []json.RawMessage `json:"content,omitempty"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	Meta              json.RawMessage   `json:"_meta,omitempty"`
	Bytes             int64             `json:"bytes"`
	EstimatedTokens   int64             `json:"estimatedTokens"`
	Arguments         json.RawMessage   `json:"arguments,omitempty"`
	// Format says, with --toon, which form an object or array result
	// took: "toon" when dispatch re-encoded it because that was smaller,
	// "json" when compact JSON was smaller and the result is as the server
	// sent it. Empty without --toon, for results that are not JSON, and
	// for content lists (several items, or images and other non-text
	// items), which are never converted.
	Format string     `json:"format,omitempty"`
	Spill  *SpillInfo `json:"spill,omitempty"`

	// raw is the server's result as it came, which an answer that passes
	// it through unchanged writes back as it is (see AppendToolResult).
	raw json.RawMessage
}

// SpillInfo tells the agent what a spilled result holds, enough to decide
// its next step without reading it.
type SpillInfo struct {
	ResultFile  string `json:"resultFile"`
	AutoSpilled bool   `json:"autoSpilled"`
	Format      string `json:"format"`
	// Saved names the part of the result the file holds: "structuredContent",
	// "text" (the lone text item, or the JSON it holds; also when
	// structuredContent only wrapped that text), "structuredContent.KEY" (a
	// wrapper's string that holds more than the text), or "content" (the
	// whole content list), or "result" (the whole result as the server
	// sent it, when its _meta nests too deep for the answer to carry); for
	// a list, search or info answer saved to a file, "answer" (see
	// SavedAnswer).
	Saved            string   `json:"saved"`
	Bytes            int64    `json:"bytes"`
	Size             string   `json:"size"`
	EstimatedTokens  int64    `json:"estimatedTokens"`
	Lines            int64    `json:"lines"`
	TopLevelKeys     []string `json:"topLevelKeys,omitempty"`
	Elements         *int64   `json:"elements,omitempty"`
	FirstElementKeys []string `json:"firstElementKeys,omitempty"`
	Preview          string   `json:"preview"`
	Hint             string   `json:"hint,omitempty"` // empty only in a run's steps: the run says it once
}

// Bounds of a spill answer.
const (
	previewBytes  = 300
	maxListedKeys = 30
)

// Call answers action call.
func (s *Service) Call(ctx context.Context, req Request, hooks Hooks) (resp *CallResponse, err error) {
	alias, started := req.Connection, time.Now()
	defer func() { s.logCall(alias, req.Tool, started, resp, err) }()
	conn, def, err := s.resolveTool(ctx, req.Connection, req.Tool)
	if err != nil {
		return nil, err
	}
	alias = conn.Alias
	// The limit covers the tool call only: starting the server, here in
	// resolveTool or in conn.Call, is bounded by --connect-timeout.
	timeout, which := s.callLimit(conn, req)
	// Reading an argumentsFile is part of the call: its limit bounds it.
	argsCtx, stopArgs := context.WithTimeout(ctx, timeout)
	args, err := s.callArguments(argsCtx, req)
	stopArgs()
	if err != nil {
		return nil, err
	}
	if req.ResultToFile && s.opts.Spill == nil {
		return nil, usagef("Start dispatch with --spill-dir DIR to keep result files from the command line, or use --result-to-file PATH",
			"resultToFile needs a spill directory, and this dispatch has none")
	}

	// Saving the result is part of the call: the same limit bounds it.
	saveCtx, stopSave := context.WithDeadline(ctx, time.Now().Add(timeout))
	defer stopSave()
	raw, err := conn.Call(ctx, connections.CallRequest{
		Tool:       req.Tool,
		Arguments:  args,
		Meta:       req.Meta,
		OnProgress: hooks.Progress,
		AsTask:     def.RunsAsTask,
		Timeout:    timeout,
	})
	if deep := (*connections.RequestTooDeepError)(nil); errors.As(err, &deep) {
		return nil, tooDeepRequest(req, args, err, deep)
	}
	return s.callResponse(saveCtx, conn, req, raw, err, which)
}

// callResponse is Call's answer from its server's: raw, or err. ctx bounds
// saving the result to a file: it ends when the call is cancelled or its
// time limit passes.
func (s *Service) callResponse(ctx context.Context, conn *connections.Conn, req Request, raw json.RawMessage, err error, which func() string) (*CallResponse, error) {
	var verdict fileVerdict
	if err == nil {
		verdict = s.resultFile(req, raw)
	}
	return s.decidedCallResponse(ctx, conn, req, raw, err, which, verdict)
}

// decidedCallResponse is callResponse with resultFile's verdict on raw
// already made.
func (s *Service) decidedCallResponse(ctx context.Context, conn *connections.Conn, req Request, raw json.RawMessage, err error, which func() string, verdict fileVerdict) (*CallResponse, error) {
	if err != nil {
		if errors.Is(err, connections.ErrCallTimeout) {
			return nil, fmt.Errorf("%w (%s)", err, which())
		}
		return nil, err
	}
	var result callResult
	if err := decodeCallResult(raw, &result); err != nil {
		return nil, fmt.Errorf("%s: call %s: server sent an invalid result: %w", conn.Alias, req.Tool, err)
	}
	s.links.rememberContent(conn.Alias, result.Content)
	resp := &CallResponse{
		Connection:      conn.Alias,
		Tool:            req.Tool,
		IsError:         result.IsError,
		Bytes:           int64(len(raw)),
		EstimatedTokens: spill.EstimateTokens(int64(len(raw))),
		raw:             raw,
	}
	if req.ArgumentsFile != "" {
		resp.Arguments = fromFileEcho(req.ArgumentsFile)
	}

	if verdict.toFile {
		info, err := s.spillCallResult(ctx, &result, raw, verdict.auto)
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: call %s: saving the result (server sent %s) ran past the call's time limit, and the partial file was deleted (%s): %w",
				conn.Alias, req.Tool, humanize.IBytes(uint64(resp.Bytes)), which(), err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: call %s: save result (server sent %s): %w", conn.Alias, req.Tool, humanize.IBytes(uint64(resp.Bytes)), err)
		}
		resp.Spill = info
		if info.Saved != savedResult {
			resp.Meta = result.Meta
		}
		return resp, nil
	}
	resp.Content = result.Content
	resp.StructuredContent = result.StructuredContent
	resp.Meta = result.Meta
	if s.opts.Toon && !result.IsError && !req.AsSent {
		s.preferTOON(resp, &result)
	}
	return resp, nil
}

// callLimit returns the time limit of req's tool call: the request's own,
// else its server's "timeout" setting, else --timeout; and advice naming
// the one that applies, for the error when it runs out (written only then:
// it costs more than a small call's own work).
func (s *Service) callLimit(conn *connections.Conn, req Request) (time.Duration, func() string) {
	return s.callTimeout(conn, req), func() string { return s.limitAdvice(conn, req) }
}

// callTimeout is callLimit's time limit alone, for a caller that words
// the advice only when it is needed (limitAdvice): a closure holding the
// request costs a small call two allocations.
func (s *Service) callTimeout(conn *connections.Conn, req Request) time.Duration {
	switch {
	case req.Timeout != nil:
		// Check bounds it; a value below a nanosecond still means a limit.
		return max(time.Duration(*req.Timeout*float64(time.Second)), time.Nanosecond)
	case conn.Config.Timeout > 0:
		return conn.Config.Timeout
	}
	return s.opts.CallTimeout
}

// limitAdvice is callLimit's advice naming the limit that applies.
func (s *Service) limitAdvice(conn *connections.Conn, req Request) string {
	name, _ := req.timeoutParam()
	switch {
	case req.Timeout != nil:
		return fmt.Sprintf("the limit set by %s for this call; pass a larger one", name)
	case conn.Config.Timeout > 0:
		return fmt.Sprintf("the limit is the \"timeout\" setting of server %s in its config; raise it there, or pass %s in seconds for this call",
			describeConn(conn), name)
	}
	return fmt.Sprintf("the limit is --timeout; raise it, or pass %s in seconds for this call", name)
}

func fromFileEcho(path string) json.RawMessage {
	data, err := json.Marshal(map[string]string{"_fromFile": path})
	if err != nil {
		return nil
	}
	return data
}

// spillCallResult writes a call's result (raw, decoded) to a new spill
// file: its payload, or the whole result when its _meta nests deeper than
// the answer naming the file, which carries the _meta, can hold
// (MaxInlineNesting inside the answer's own object): encoding/json would
// write that answer, and no agent could read it.
func (s *Service) spillCallResult(ctx context.Context, result *callResult, raw []byte, auto bool) (*SpillInfo, error) {
	if len(result.Meta) > MaxInlineNesting && !rawjson.NestingWithin(result.Meta, MaxInlineNesting) {
		return s.spillPayload(ctx, payloadJSON, bytes.TrimSpace(raw), savedResult, auto)
	}
	return s.spillResult(ctx, result, auto)
}

// spillResult writes the result's payload to a new spill file. The result
// is not read after: a lone text that may hold JSON is unescaped over the
// message it arrived in.
func (s *Service) spillResult(ctx context.Context, result *callResult, auto bool) (*SpillInfo, error) {
	if token, ok := result.loneTextToken(); ok && !result.hasStructured() {
		if !mayStartJSON(token) {
			// A lone plain text is unescaped straight into its file, never
			// held whole.
			return s.spillWith(ctx, payloadText, spill.FormatText, -1, func(w io.Writer) error { return writeUnescaped(w, token) }, nil, savedText, auto)
		}
		// One that may hold JSON must be held to be checked and indented:
		// where it lies, not in a second copy beside the message.
		text, err := unescapeInPlace(token)
		if err != nil {
			return nil, fmt.Errorf("decode its text: %w", err)
		}
		kind, data := textPayload(jsonView(text))
		return s.spillPayload(ctx, kind, data, savedText, auto)
	}
	kind, data, part := result.payload()
	return s.spillPayload(ctx, kind, data, part, auto)
}

// spillPayload writes a payload to a new spill file; part names what it
// holds.
func (s *Service) spillPayload(ctx context.Context, kind payloadKind, data []byte, part string, auto bool) (*SpillInfo, error) {
	format, size, write := s.encoderFor(kind, data)
	return s.spillWith(ctx, kind, format, size, write, data, part, auto)
}

// spillWith is spillPayload for a payload written by write, of size bytes
// (-1: not known before); data is the payload's JSON, for its shape, when
// kind is payloadJSON. The file is deleted if ctx ends while it is written.
func (s *Service) spillWith(ctx context.Context, kind payloadKind, format spill.Format, size int64, write func(io.Writer) error, data []byte, part string, auto bool) (*SpillInfo, error) {
	file, err := s.opts.Spill.CreateContext(ctx, format, size, write)
	if err != nil {
		return nil, err
	}
	info := &SpillInfo{
		ResultFile:      file.Path,
		AutoSpilled:     auto,
		Format:          string(file.Format),
		Saved:           part,
		Bytes:           file.Bytes,
		Size:            humanize.IBytes(uint64(file.Bytes)),
		EstimatedTokens: file.Tokens,
		Lines:           file.Lines,
		Preview:         spill.PreviewOf(file.Prefix, file.Bytes, previewBytes),
		Hint:            fmt.Sprintf(`Saved to a file instead of your context. Read it with {"action":"readresult","resultFile":%q,"op":"head"} (or grep, slice, query); do not use another server's file tool. %s`, file.Path, feedHint(kind)),
	}
	if kind == payloadJSON {
		describeShape(info, data)
	}
	return info, nil
}

// feedHint says how a result file feeds the next call.
func feedHint(kind payloadKind) string {
	if kind == payloadText {
		return `Pass it as "argumentsFile" with "argumentsKey":"NAME" to feed its text to a call as {"NAME": "..."}.`
	}
	return `Pass it as "argumentsFile" to feed a call ("argumentsPath" selects a part).`
}

// encoderFor returns how to write a payload, and the size it will have
// (-1 when not known before it is written): JSON indented one value per
// line, so head, tail, slice and grep mean something; text as it is.
func (s *Service) encoderFor(kind payloadKind, data []byte) (spill.Format, int64, func(io.Writer) error) {
	// --toon is a preference: JSON too deep for TOON stays JSON.
	return encoderIn(kind, data, s.opts.Toon && kind == payloadJSON && toonFits(data))
}

// encoderIn is encoderFor with the choice of TOON for JSON made by the
// caller.
func encoderIn(kind payloadKind, data []byte, asTOON bool) (spill.Format, int64, func(io.Writer) error) {
	if kind == payloadText {
		return spill.FormatText, int64(len(data)), func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}
	}
	if asTOON {
		if !toonFits(data) {
			return spill.FormatTOON, -1, func(io.Writer) error {
				return usagef("Name a .json file instead",
					"the result is nested %d levels deep, more than the %d levels (MaxIndentDepth) written as TOON, whose indentation grows with the square of the depth",
					JSONNesting(data), MaxIndentDepth)
			}
		}
		return spill.FormatTOON, -1, func(w io.Writer) error {
			return toon.EncodeJSON(w, bytes.NewReader(data), toon.EncodeOptions{})
		}
	}
	layout := layoutIndented(data)
	return spill.FormatJSON, layout.size, func(w io.Writer) error { return writeIndented(w, data, layout) }
}

// describeShape records the top-level keys of an object, or the element
// count and first element's keys of an array, without decoding the value.
func describeShape(info *SpillInfo, data []byte) {
	// A view, not ParseBytes, which copies the whole payload first; the
	// keys are cloned so that they do not keep it alive.
	root := gjson.Parse(jsonView(data))
	keysOf := func(v gjson.Result) (keys []string) {
		v.ForEach(func(key, _ gjson.Result) bool {
			keys = append(keys, strings.Clone(key.String()))
			return len(keys) < maxListedKeys
		})
		return keys
	}
	switch {
	case root.IsObject():
		info.TopLevelKeys = keysOf(root)
	case root.IsArray():
		var n int64
		var first gjson.Result
		root.ForEach(func(_, v gjson.Result) bool {
			if n == 0 {
				first = v
			}
			n++
			return true
		})
		info.Elements = &n
		if first.IsObject() {
			info.FirstElementKeys = keysOf(first)
		}
	}
}
