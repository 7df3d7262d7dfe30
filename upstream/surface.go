package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
	"dispatch/dispatch"
)

// CompletionTimeout bounds one completion/complete passed to a server.
const CompletionTimeout = 10 * time.Second

// SessionRunner runs work for the agent session a request belongs to,
// with that session's Service (its result files) and a context whose
// servers' requests go to it: StdioRunner for the one stdio agent,
// HTTPServer.InSession over HTTP.
type SessionRunner func(ctx context.Context, run func(context.Context, *dispatch.Service) error) error

// StdioRunner runs everything with svc: stdio serves one agent.
func StdioRunner(svc *dispatch.Service) SessionRunner {
	return func(ctx context.Context, run func(context.Context, *dispatch.Service) error) error {
		return run(ctx, svc)
	}
}

// Surface keeps what an MCP server lists beside proxy-dispatch (--expose,
// --transparent) in step with the servers behind it. Sync computes it
// again and changes the MCP server only for the kinds that changed, so
// that the agent is sent tools, resources or prompts list_changed exactly
// when its list did.
type Surface struct {
	svc  *dispatch.Service
	opts dispatch.ExposeOptions
	log  *slog.Logger

	mu     sync.Mutex
	srv    *server.MCPServer
	runner SessionRunner
	// what each kind was when last set, to change only what changed
	toolsSum, resourcesSum, templatesSum, promptsSum [32]byte
	prompts                                          map[string]dispatch.SurfacePrompt   // by upstream name
	templates                                        map[string]dispatch.SurfaceResource // by upstream template
	resources                                        dispatch.Surface                    // the last one set, for subscriptions
	exposed                                          map[string]dispatch.SurfaceTool     // the tools listed beside proxy-dispatch, by upstream name
	lastUnknownRelist                                time.Time                           // see relistForUnknownTool
	listed                                           atomic.Pointer[listedOrder]         // each kind's order, and the tools' execution, as published; read by the list hooks without mu
}

// NewSurface returns the surface of svc that opts asks for.
func NewSurface(svc *dispatch.Service, opts dispatch.ExposeOptions, log *slog.Logger) *Surface {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Surface{svc: svc, opts: opts, log: log}
}

// Transparent says whether the surface lists every server's tools,
// resources and prompts (--transparent).
func (s *Surface) Transparent() bool { return s != nil && s.opts.Transparent }

// ServerOptions are the hooks that list what the surface lists as
// published (see listedOrder) and the capabilities the MCP server declares
// for it: with --transparent, resources and prompts (with listChanged)
// and completions, passed to the servers.
func (s *Surface) ServerOptions() []server.ServerOption {
	if s == nil {
		return nil
	}
	hooks := &server.Hooks{}
	s.listAsPublished(hooks)
	if !s.opts.Transparent {
		return []server.ServerOption{server.WithHooks(hooks)}
	}
	hooks.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		s.relistForUnknownTool(ctx, req.Params.Name)
	})
	hooks.AddBeforeReadResource(func(_ context.Context, _ any, req *mcp.ReadResourceRequest) {
		s.routeUnlisted(req)
	})
	hooks.AddAfterListResources(func(_ context.Context, _ any, _ *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
		hideUnlisted(result)
	})
	hooks.AddAfterReadResource(func(_ context.Context, _ any, _ *mcp.ReadResourceRequest, result *mcp.ReadResourceResult) {
		dispatch.ReadResultMeta(result)
	})
	hooks.AddBeforeSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest) {
		s.subscribe(ctx, req.Params.URI, true)
	})
	hooks.AddBeforeUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest) {
		s.subscribe(ctx, req.Params.URI, false)
	})
	return []server.ServerOption{
		server.WithHooks(hooks),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(promptCompleter{s}),
		server.WithResourceCompletionProvider(resourceCompleter{s}),
	}
}

// Attach makes srv the server Sync keeps in step; runner finds the
// session each request runs in (proxy-dispatch's included: Sync sets it
// again with the others).
func (s *Surface) Attach(srv *server.MCPServer, runner SessionRunner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv, s.runner = srv, runner
}

// Sync computes the surface again and applies what changed. It returns
// the surface's problems (see dispatch.ExposeProblem); the caller decides
// whether a fatal one stops dispatch (at start) or is a warning (live).
func (s *Surface) Sync(ctx context.Context) dispatch.Surface {
	surface := s.svc.Surface(ctx, s.opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return surface
	}
	s.syncTools(surface.Tools)
	if s.opts.Transparent {
		s.resources = dispatch.Surface{Resources: surface.Resources}
		s.syncResources(surface.Resources)
		s.syncPrompts(surface.Prompts)
	}
	return surface
}

// syncTools sets proxy-dispatch and the surface's tools. A tool mcp-go
// cannot list (a definition it refuses) is left out, with a warning.
func (s *Surface) syncTools(tools []dispatch.SurfaceTool) {
	sum := checksum(tools)
	if sum == s.toolsSum {
		return
	}
	s.toolsSum = sum
	proxy := func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.toolResult(ctx, func(ctx context.Context, svc *dispatch.Service) (*mcp.CallToolResult, error) {
			return svc.HandleTool(ctx, request)
		})
	}
	list := []server.ServerTool{{Tool: dispatch.Tool(), Handler: proxy}}
	exposed := make(map[string]dispatch.SurfaceTool, len(tools))
	order := map[string]int{list[0].Tool.Name: 0}
	executions := map[string]*mcp.ToolExecution{}
	for _, t := range tools {
		tool, err := dispatch.ExposedToolDefinition(t)
		if err != nil {
			s.log.Warn("not listing a tool to the agent", "error", err.Error())
			continue
		}
		exposed[tool.Name] = t
		order[tool.Name] = len(order)
		if e := dispatch.PublishedExecution(t.Definition); e != nil {
			executions[tool.Name] = e
		}
		handler := func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.toolResult(ctx, func(ctx context.Context, svc *dispatch.Service) (*mcp.CallToolResult, error) {
				return svc.CallExposed(ctx, t, request), nil
			})
		}
		list = append(list, server.ServerTool{Tool: tool, Handler: handler})
	}
	s.updateListed(func(l *listedOrder) { l.tools, l.executions = order, executions })
	s.srv.SetTools(list...)
	s.exposed = exposed
}

// ExposedTool returns the tool listed beside proxy-dispatch as name, for
// the hot path (StdioOptions.Exposed), as mcp-go would find its handler.
func (s *Surface) ExposedTool(name string) (dispatch.SurfaceTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.exposed[name]
	return t, ok
}

func (s *Surface) syncResources(items []dispatch.SurfaceResource) {
	var resources, templates []dispatch.SurfaceResource
	for _, r := range items {
		if r.Template {
			templates = append(templates, r)
		} else {
			resources = append(resources, r)
		}
	}
	if sum := checksum(resources); sum != s.resourcesSum {
		s.resourcesSum = sum
		list := make([]server.ServerResource, 0, len(resources))
		for _, r := range resources {
			res, err := dispatch.TransparentResource(r)
			if err != nil {
				s.log.Warn("not listing a resource to the agent", "error", err.Error())
				continue
			}
			list = append(list, server.ServerResource{Resource: res, Handler: s.reader(r)})
		}
		s.updateListed(func(l *listedOrder) {
			l.resources = ranks(list, func(r server.ServerResource) string { return r.Resource.URI })
		})
		s.srv.SetResources(append(list, s.unlistedResource())...)
	}
	if sum := checksum(templates); sum != s.templatesSum {
		s.templatesSum = sum
		list := make([]server.ServerResourceTemplate, 0, len(templates))
		s.templates = make(map[string]dispatch.SurfaceResource, len(templates))
		for _, r := range templates {
			tmpl, err := dispatch.TransparentTemplate(r)
			if err != nil {
				s.log.Warn("not listing a resource template to the agent", "error", err.Error())
				continue
			}
			list = append(list, server.ServerResourceTemplate{Template: tmpl, Handler: server.ResourceTemplateHandlerFunc(s.reader(r))})
			s.templates[r.URI] = r
		}
		s.updateListed(func(l *listedOrder) {
			l.templates = ranks(list, func(t server.ServerResourceTemplate) string { return templateKey(t.Template) })
		})
		s.srv.SetResourceTemplates(list...)
	}
}

func (s *Surface) syncPrompts(prompts []dispatch.SurfacePrompt) {
	sum := checksum(prompts)
	if sum == s.promptsSum {
		return
	}
	s.promptsSum = sum
	list := make([]server.ServerPrompt, 0, len(prompts))
	s.prompts = make(map[string]dispatch.SurfacePrompt, len(prompts))
	for _, p := range prompts {
		prompt, err := dispatch.TransparentPrompt(p)
		if err != nil {
			s.log.Warn("not listing a prompt to the agent", "error", err.Error())
			continue
		}
		handler := func(ctx context.Context, request mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			var out *mcp.GetPromptResult
			err := s.run(ctx, func(ctx context.Context, svc *dispatch.Service) error {
				var err error
				out, err = svc.GetPromptThrough(ctx, p, request)
				return err
			})
			return out, passServerError(ctx, err)
		}
		list = append(list, server.ServerPrompt{Prompt: prompt, Handler: handler})
		s.prompts[p.Name] = p
	}
	s.updateListed(func(l *listedOrder) {
		l.prompts = ranks(list, func(p server.ServerPrompt) string { return p.Prompt.Name })
	})
	s.srv.SetPrompts(list...)
}

// checksum identifies a list's content: names, connections and
// definitions, in order.
func checksum(v any) [32]byte {
	data, err := json.Marshal(v)
	if err != nil {
		// Strings and raw JSON the catalog already parsed: a failure
		// means "changed", which costs one list_changed too many.
		return sha256.Sum256([]byte(err.Error()))
	}
	return sha256.Sum256(data)
}

type promptCompleter struct{ s *Surface }

func (c promptCompleter) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	c.s.mu.Lock()
	p, ok := c.s.prompts[name]
	c.s.mu.Unlock()
	if !ok {
		// A client's mistake, as the server would answer it: -32602.
		return nil, passServerError(ctx, &connections.RPCError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("no prompt named %q", name)})
	}
	return c.s.complete(ctx, p.Connection, connections.CompleteRequest{Prompt: p.Prompt, Argument: arg.Name, Value: arg.Value, Context: cctx.Arguments})
}

type resourceCompleter struct{ s *Surface }

func (c resourceCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	c.s.mu.Lock()
	r, ok := c.s.templates[uri]
	c.s.mu.Unlock()
	if !ok {
		return nil, passServerError(ctx, &connections.RPCError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("no resource template %q", uri)})
	}
	return c.s.complete(ctx, r.Connection, connections.CompleteRequest{URITemplate: r.Original, Argument: arg.Name, Value: arg.Value, Context: cctx.Arguments})
}

// complete passes a completion/complete to the connection, its answer
// bounded and masked as connections.Conn.Complete keeps it.
func (s *Surface) complete(ctx context.Context, alias string, req connections.CompleteRequest) (*mcp.Completion, error) {
	conn, err := s.svc.Connections().Lookup(alias)
	if err != nil {
		return nil, err
	}
	req.Timeout = CompletionTimeout
	got, err := conn.Complete(dispatch.AgentContext(ctx), req)
	if err != nil {
		return nil, passServerError(ctx, err)
	}
	out := &mcp.Completion{Values: got.Values, HasMore: got.HasMore}
	if got.Total > 0 {
		out.Total = got.Total
	}
	return out, nil
}

// subscribe passes the agent's resources/subscribe (unsubscribe) on to the
// server of uri. mcp-go acknowledges it whatever happens here (its hooks
// cannot fail a request), so a failure is a warning.
func (s *Surface) subscribe(ctx context.Context, uri string, on bool) {
	s.mu.Lock()
	alias, original, ok := s.resources.ResourceRoute(uri)
	s.mu.Unlock()
	if !ok {
		s.log.Warn("resources/subscribe: no listed resource or template has this URI; not passed to any server", "uri", uri)
		return
	}
	conn, err := s.svc.Connections().Lookup(alias)
	if err == nil {
		err = conn.Subscribe(ctx, original, on)
	}
	if err != nil {
		s.log.Warn("resources/subscribe: the server refused or could not be asked", "connection", alias, "uri", original, "error", err.Error())
	}
}

// ResourceUpdated passes a server's notifications/resources/updated to
// the agent sessions, under the URI the agent knows. It does not block.
func (s *Surface) ResourceUpdated(alias, uri string) {
	s.mu.Lock()
	srv, upstreamURI := s.srv, s.resources.UpstreamURI(alias, uri)
	s.mu.Unlock()
	if srv == nil || !s.opts.Transparent {
		return
	}
	srv.SendNotificationToAllClients(string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": upstreamURI})
}

// run runs work in the request's session (see SessionRunner).
func (s *Surface) run(ctx context.Context, work func(context.Context, *dispatch.Service) error) error {
	s.mu.Lock()
	runner := s.runner
	s.mu.Unlock()
	if runner == nil {
		runner = StdioRunner(s.svc)
	}
	return runner(ctx, work)
}

// toolResult runs a tool call in the request's session; not finding the
// session is an error result the agent can read, as every tool failure is.
func (s *Surface) toolResult(ctx context.Context, call func(context.Context, *dispatch.Service) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var result *mcp.CallToolResult
	err := s.run(ctx, func(ctx context.Context, svc *dispatch.Service) error {
		var err error
		result, err = call(ctx, svc)
		return err
	})
	if errors.Is(err, ErrNoSession) {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return result, err
}

// reader is the handler of reads of r, in the request's session.
func (s *Surface) reader(r dispatch.SurfaceResource) server.ResourceHandlerFunc {
	return func(ctx context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		var out []mcp.ResourceContents
		err := s.run(ctx, func(ctx context.Context, svc *dispatch.Service) error {
			var err error
			out, err = svc.ReadThrough(ctx, r, request)
			return err
		})
		return out, passServerError(ctx, err)
	}
}
