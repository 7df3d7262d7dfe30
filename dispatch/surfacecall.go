package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
)

// ExposedToolDefinition returns t as mcp-go lists it.
func ExposedToolDefinition(t SurfaceTool) (mcp.Tool, error) {
	tool, err := upstreamTool(t.Name, t.Definition)
	if err != nil {
		return mcp.Tool{}, fmt.Errorf("%s: tool %q: %w", t.Connection, t.Tool, err)
	}
	return tool, nil
}

// CallExposed runs a call of the exposed tool t. It goes the way
// proxy-dispatch's call goes (Service.Call): the spill threshold into this
// Service's result files, _meta forwarded, progress relayed, cancellation,
// relays to the calling session; the answer is the server's result as
// proxy-dispatch's call gives it (the content as sent with
// _meta.dispatch, or the result file's description).
func (s *Service) CallExposed(ctx context.Context, t SurfaceTool, request mcp.CallToolRequest) *mcp.CallToolResult {
	args := request.Params.RawArguments
	if len(args) == 0 && request.Params.Arguments != nil {
		var err error
		if args, err = json.Marshal(request.Params.Arguments); err != nil {
			return errorResult(fmt.Errorf("arguments: %w", err))
		}
	}
	meta, err := forwardedMeta(ctx, request.Params.Meta)
	if err != nil {
		return errorResult(err)
	}
	req := Request{Action: "call", Connection: t.Connection, Tool: t.Tool, Arguments: args, Meta: meta}
	ctx = AgentContext(ctx)
	return s.answer(ctx, req, Hooks{Progress: progressForwarder(ctx, request)})
}

// upstreamTool is a server's tool definition as mcp-go lists it, under
// name: its schemas as published (raw, so nothing mcp-go's types do not
// know is lost). Its execution is left out, since mcp-go refuses a plain
// call of a tool whose taskSupport is "required": dispatch runs a
// task-only tool as a task itself, so the agent calls it like any other.
// The list shows it (PublishedExecution).
func upstreamTool(name string, def json.RawMessage) (mcp.Tool, error) {
	var tool mcp.Tool
	if err := json.Unmarshal(def, &tool); err != nil {
		return mcp.Tool{}, fmt.Errorf("definition: %w", err)
	}
	var schemas struct {
		Input  json.RawMessage            `json:"inputSchema"`
		Output json.RawMessage            `json:"outputSchema"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(def, &schemas); err != nil {
		return mcp.Tool{}, fmt.Errorf("definition: %w", err)
	}
	// The _meta as the server wrote it, not as mcp-go decoded it (into
	// float64s).
	if tool.Meta != nil {
		tool.Meta = resultMeta(schemas.Meta)
	}
	tool.Name = name
	tool.InputSchema, tool.OutputSchema = mcp.ToolInputSchema{}, mcp.ToolOutputSchema{}
	tool.RawInputSchema = schemas.Input
	if len(tool.RawInputSchema) == 0 || string(tool.RawInputSchema) == "null" {
		tool.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if len(schemas.Output) > 0 && string(schemas.Output) != "null" {
		tool.RawOutputSchema = schemas.Output
	}
	tool.Execution = nil
	// mcp-go panics when it lists a tool whose x-mcp-header annotations it
	// refuses: a server's tool is checked here instead, and left out.
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return mcp.Tool{}, fmt.Errorf("definition: %w", err)
	}
	return tool, nil
}

// PublishedExecution is the execution a server published for its tool
// (nil when none), which the agent's tools/list shows as published. The
// tool mcp-go serves has none (see upstreamTool): mcp-go would refuse a
// plain call of a task-only tool, and dispatch, which declares no tasks
// capability (so an agent must not make a task of the call), runs the task.
func PublishedExecution(def json.RawMessage) *mcp.ToolExecution {
	var d struct {
		Execution *mcp.ToolExecution `json:"execution"`
	}
	if json.Unmarshal(def, &d) != nil {
		return nil
	}
	return d.Execution
}

// AgentContext is ctx for work done for the agent session that made the
// request: a server's sampling, elicitation and roots requests during it
// go to that session, and an agent on protocol 2026-07-28, which says in
// each request's _meta which server logs it wants (it has no
// logging/setLevel), gets those.
func AgentContext(ctx context.Context) context.Context {
	sess := server.ClientSessionFromContext(ctx)
	if up, ok := sess.(connections.Upstream); ok && !connections.CarriesUpstream(ctx, up) {
		ctx = connections.WithUpstream(ctx, up)
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if f, ok := sess.(RequestLogLevelFollower); ok {
			f.FollowRequestLogLevel(info.LogLevel)
		}
	}
	return ctx
}

// TransparentResource returns r as mcp-go lists it.
func TransparentResource(r SurfaceResource) (mcp.Resource, error) {
	var res mcp.Resource
	if err := json.Unmarshal(r.Definition, &res); err != nil {
		return mcp.Resource{}, fmt.Errorf("%s: resource %q: %w", r.Connection, r.Original, err)
	}
	res.URI = r.URI
	return res, nil
}

// TransparentTemplate returns the template r as mcp-go lists it.
func TransparentTemplate(r SurfaceResource) (mcp.ResourceTemplate, error) {
	var tmpl mcp.ResourceTemplate
	if err := json.Unmarshal(r.Definition, &tmpl); err != nil {
		return mcp.ResourceTemplate{}, fmt.Errorf("%s: resource template %q: %w", r.Connection, r.Original, err)
	}
	upstream, err := parseTemplate(r.URI)
	if err != nil {
		return mcp.ResourceTemplate{}, fmt.Errorf("%s: resource template %q: %w", r.Connection, r.Original, err)
	}
	tmpl.URITemplate = &mcp.URITemplate{Template: upstream}
	return tmpl, nil
}

// ReadThrough reads the URI asked for from r's connection, the prefix a
// clash gave it taken off. The answer is passed through as the server sent
// it (each content as sent, blobs in base64), bounded like every answer
// (--max-message): an agent reading a resource directly expects the
// protocol's shape, not a result file.
func (s *Service) ReadThrough(ctx context.Context, r SurfaceResource, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := strings.TrimPrefix(request.Params.URI, strings.TrimSuffix(r.URI, r.Original))
	conn, err := s.conns.Lookup(r.Connection)
	if err != nil {
		return nil, err
	}
	ctx = AgentContext(ctx)
	timeout, _ := s.callLimit(conn, Request{})
	meta, err := forwardedMeta(ctx, request.Params.Meta)
	if err != nil {
		return nil, err
	}
	raw, err := conn.ReadResource(ctx, connections.ReadRequest{URI: uri, Meta: meta,
		OnProgress: metaProgressForwarder(ctx, request.Params.Meta), Timeout: timeout})
	if err != nil {
		return nil, err
	}
	var result struct {
		Meta     map[string]json.RawMessage `json:"_meta"`
		Contents []json.RawMessage          `json:"contents"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return nil, fmt.Errorf("%s: read %s: server sent an invalid result: %w", conn.Alias, uri, err)
	}
	s.links.rememberContent(conn.Alias, result.Contents)
	out := make([]mcp.ResourceContents, 0, len(result.Contents))
	for _, item := range result.Contents {
		out = append(out, rawResourceContents{raw: item})
	}
	if meta := resultMeta(result.Meta); meta != nil {
		// mcp-go's resource handlers return contents only: the result's
		// _meta rides on the first content (or on one that is not sent,
		// when there is none) until ReadResultMeta puts it in place.
		if len(out) == 0 {
			out = append(out, rawResourceContents{resultMeta: meta})
		} else {
			first := out[0].(rawResourceContents)
			first.resultMeta = meta
			out[0] = first
		}
	}
	return out, nil
}

// ReadResultMeta moves the result _meta ReadThrough carried on the
// contents into result, as the server sent it; mcp-go's after-read hook
// calls it before the result is written.
func ReadResultMeta(result *mcp.ReadResourceResult) {
	if result == nil || len(result.Contents) == 0 {
		return
	}
	first, ok := result.Contents[0].(rawResourceContents)
	if !ok || first.resultMeta == nil {
		return
	}
	result.Meta = first.resultMeta
	if first.raw == nil {
		result.Contents = result.Contents[1:]
		return
	}
	first.resultMeta = nil
	result.Contents[0] = first
}

// resultMeta is a server's result _meta for mcp-go to send: each value as
// the server wrote it (nil when there is none).
func resultMeta(fields map[string]json.RawMessage) *mcp.Meta {
	if fields == nil {
		return nil
	}
	meta := &mcp.Meta{AdditionalFields: make(map[string]any, len(fields))}
	for k, v := range fields {
		meta.AdditionalFields[k] = v
	}
	return meta
}

// rawResourceContents passes a resource content through verbatim, as
// rawContent does for a tool's; embedding satisfies mcp.ResourceContents.
// resultMeta is the read result's _meta (see ReadResultMeta).
type rawResourceContents struct {
	mcp.TextResourceContents
	raw        json.RawMessage
	resultMeta *mcp.Meta
}

func (r rawResourceContents) MarshalJSON() ([]byte, error) { return r.raw, nil }

// TransparentPrompt returns p as mcp-go lists it.
func TransparentPrompt(p SurfacePrompt) (mcp.Prompt, error) {
	var prompt mcp.Prompt
	if err := json.Unmarshal(p.Definition, &prompt); err != nil {
		return mcp.Prompt{}, fmt.Errorf("%s: prompt %q: %w", p.Connection, p.Prompt, err)
	}
	prompt.Name = p.Name
	return prompt, nil
}

// GetPromptThrough gets p from its server, passed through as the server
// answered it.
func (s *Service) GetPromptThrough(ctx context.Context, p SurfacePrompt, request mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	conn, err := s.conns.Lookup(p.Connection)
	if err != nil {
		return nil, err
	}
	ctx = AgentContext(ctx)
	timeout, _ := s.callLimit(conn, Request{})
	meta, err := forwardedMeta(ctx, request.Params.Meta)
	if err != nil {
		return nil, err
	}
	raw, err := conn.GetPrompt(ctx, connections.PromptRequest{Name: p.Prompt, Arguments: request.Params.Arguments,
		Meta: meta, OnProgress: metaProgressForwarder(ctx, request.Params.Meta), Timeout: timeout})
	if err != nil {
		return nil, err
	}
	var result struct {
		Meta        map[string]json.RawMessage `json:"_meta"`
		Description string                     `json:"description"`
		Messages    []struct {
			Role    mcp.Role        `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return nil, fmt.Errorf("%s: get prompt %s: server sent an invalid result: %w", conn.Alias, p.Prompt, err)
	}
	out := &mcp.GetPromptResult{Description: result.Description, Messages: make([]mcp.PromptMessage, 0, len(result.Messages))}
	out.Meta = resultMeta(result.Meta)
	for _, m := range result.Messages {
		if len(m.Content) == 0 {
			return nil, fmt.Errorf("%s: get prompt %s: server sent a message without content", conn.Alias, p.Prompt)
		}
		s.links.rememberContent(conn.Alias, []json.RawMessage{m.Content})
		out.Messages = append(out.Messages, mcp.PromptMessage{Role: m.Role, Content: rawContent{raw: m.Content}})
	}
	return out, nil
}

// metaProgressForwarder is progressForwarder for a request other than a
// tool call.
func metaProgressForwarder(ctx context.Context, meta *mcp.Meta) func(map[string]any) {
	return progressForwarder(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Meta: meta}})
}
