package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tool returns the proxy-dispatch tool definition agents see.
func Tool() mcp.Tool {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(inputSchema)); err != nil {
		panic("dispatch: invalid input schema: " + err.Error()) // a constant; the golden test catches it
	}
	tool := mcp.NewToolWithRawSchema(ToolName, ToolDescription, compact.Bytes())
	tool.Annotations = mcp.ToolAnnotation{Title: "MCP tool gateway"}
	return tool
}

// RequestLogLevelFollower is an agent session that takes the server log
// level each request declares (protocol 2026-07-28 has no
// logging/setLevel). The sessions of upstream/ implement it; dispatch/
// names only the behaviour so that it never imports upstream/.
type RequestLogLevelFollower interface {
	FollowRequestLogLevel(level mcp.LoggingLevel)
}

// HandleTool is the MCP handler of proxy-dispatch. Every failure becomes an
// isError result the agent can read and act on, never a protocol error.
func (s *Service) HandleTool(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := request.Params.RawArguments
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(request.Params.Arguments); err != nil {
			return errorResult(fmt.Errorf("arguments: %w", err)), nil
		}
	}
	req, err := s.Parse(ctx, raw)
	if err != nil {
		return errorResult(err), nil
	}
	ctx = AgentContext(ctx)
	result := s.answer(ctx, req, Hooks{Progress: progressForwarder(ctx, request)})
	stampProxy(result, req)
	return result, nil
}

// answer runs req and shapes its answer for the agent.
func (s *Service) answer(ctx context.Context, req Request, hooks Hooks) *mcp.CallToolResult {
	resp, err := s.Do(ctx, req, hooks)
	if err == nil {
		resp, err = s.answerToFile(ctx, req, resp)
	}
	return s.shape(req, resp, err)
}

// shape is the tool result that answers req with what Do returned.
func (s *Service) shape(req Request, resp any, err error) *mcp.CallToolResult {
	if err != nil {
		s.log.Debug("request failed", "action", req.Action, "error", err.Error())
		return errorResult(err)
	}
	if req.ProxyShape && req.Action == "call" {
		result, err := proxyCallResult(resp)
		if err != nil {
			return errorResult(err)
		}
		if result != nil {
			return result
		}
	}
	if pq, ok := resp.(*ProxyQueryResponse); ok {
		result, err := proxyQueryResult(pq)
		if err != nil {
			return errorResult(err)
		}
		return result
	}
	if call, ok := resp.(*CallResponse); ok && call.Spill == nil {
		return inlineCallResult(call)
	}
	if read, ok := resp.(*ReadResponse); ok {
		// readresult's text is the answer; wrapping it in JSON would
		// escape every newline and quote of it. The value alone, and
		// grep's count, go in structuredContent for programs.
		result := mcp.NewToolResultText(read.Text)
		result.StructuredContent = read.Structured()
		return result
	}
	data, err := marshalJSON(resp)
	if err != nil {
		return errorResult(fmt.Errorf("encode response: %w", err))
	}
	result := mcp.NewToolResultText(string(data))
	switch r := resp.(type) {
	case *CallResponse:
		result.IsError = r.IsError
	case *RunResponse:
		// Each step says how it went; isError tells an agent skimming
		// the result that one of them did not.
		result.IsError = r.Failed > 0
	}
	return result
}

func errorResult(err error) *mcp.CallToolResult {
	return mcp.NewToolResultError(err.Error())
}

// rawContent passes a downstream content item through verbatim, whatever
// its type: mcp-go's typed content would drop fields or fail on types it
// does not know. Embedding TextContent only satisfies mcp.Content.
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

func (r rawContent) MarshalJSON() ([]byte, error) { return r.raw, nil }

// inlineCallResult returns the downstream result as the tool's own: every
// content item, structuredContent and isError untouched. dispatch's own
// facts go in _meta under "dispatch", beside the server's _meta.
func inlineCallResult(call *CallResponse) *mcp.CallToolResult {
	result := &mcp.CallToolResult{IsError: call.IsError, Content: make([]mcp.Content, 0, len(call.Content))}
	for _, item := range call.Content {
		result.Content = append(result.Content, rawContent{raw: item})
	}
	if len(bytes.TrimSpace(call.StructuredContent)) > 0 && string(bytes.TrimSpace(call.StructuredContent)) != "null" {
		result.RawStructuredContent = call.StructuredContent
	}
	// Each member of the server's _meta as it wrote it: decoded into
	// map[string]any, 9007199254740993 would come back as ...992.
	var members map[string]json.RawMessage
	// "_meta": null decodes without an error into no map: it means what
	// no _meta means (a nil map made a nil *mcp.Meta, and the call panicked).
	if len(call.Meta) == 0 || json.Unmarshal(call.Meta, &members) != nil || members == nil {
		members = map[string]json.RawMessage{}
	}
	meta := resultMeta(members)
	ours := map[string]any{
		"connection":      call.Connection,
		"tool":            call.Tool,
		"bytes":           call.Bytes,
		"estimatedTokens": call.EstimatedTokens,
	}
	if call.Format != "" {
		ours["format"] = call.Format
	}
	if len(call.Arguments) > 0 {
		// {"_fromFile": PATH}: which file the arguments came from, never
		// its content, so a large input does not come back into context.
		ours["arguments"] = call.Arguments
	}
	meta.AdditionalFields["dispatch"] = ours
	result.Meta = meta
	return result
}

// progressForwarder relays the downstream server's progress to the agent
// under the agent's own progress token, or returns nil if it asked for none.
func progressForwarder(ctx context.Context, request mcp.CallToolRequest) func(map[string]any) {
	if request.Params.Meta == nil || request.Params.Meta.ProgressToken == nil {
		return nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	token := exactProgressToken(request.Params.Meta.ProgressToken)
	return func(params map[string]any) {
		out := make(map[string]any, len(params))
		for k, v := range params {
			out[k] = v
		}
		out["progressToken"] = token
		// Non-blocking in mcp-go: a full channel drops the update, which
		// is the right trade for progress.
		if err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), out); err != nil {
			return
		}
	}
}
