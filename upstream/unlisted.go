package upstream

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
	"dispatch/dispatch"
)

// A read of a URI no listed resource or template has (a resource_link
// target, a resource a server just added) would get mcp-go's -32002
// without reaching any server: mcp-go finds a handler by URI only. The
// before-read hook sends such a read to unlistedReadURI, a resource that
// is never listed, with the URI asked for in its arguments; its handler
// reads that URI from the server that owns it (Service.UnlistedOwner).
const (
	unlistedReadURI = "dispatch-internal:unlisted-read"
	unlistedURIArg  = "dispatch-internal:uri"
)

// routeUnlisted is the before-read hook: a URI the surface does not route
// goes to unlistedReadURI.
func (s *Surface) routeUnlisted(req *mcp.ReadResourceRequest) {
	s.mu.Lock()
	_, _, routed := s.resources.ResourceRoute(req.Params.URI)
	s.mu.Unlock()
	if routed || req.Params.URI == unlistedReadURI {
		return
	}
	req.Params.Arguments = map[string]any{unlistedURIArg: req.Params.URI}
	req.Params.URI = unlistedReadURI
}

// unlistedResource is the resource routeUnlisted sends reads to.
func (s *Surface) unlistedResource() server.ServerResource {
	return server.ServerResource{
		Resource: mcp.NewResource(unlistedReadURI, "unlisted"),
		Handler: func(ctx context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			uri, _ := request.Params.Arguments[unlistedURIArg].(string)
			if uri == "" {
				return nil, passServerError(ctx, &connections.RPCError{Code: resourceNotFound, Message: "Resource not found: " + unlistedReadURI})
			}
			request.Params.URI, request.Params.Arguments = uri, nil
			s.mu.Lock()
			surface := s.resources
			s.mu.Unlock()
			var out []mcp.ResourceContents
			err := s.run(ctx, func(ctx context.Context, svc *dispatch.Service) error {
				alias, err := svc.UnlistedOwner(surface, uri)
				if err != nil {
					return &connections.RPCError{Code: resourceNotFound, Message: "Resource not found: " + err.Error()}
				}
				out, err = svc.ReadThrough(ctx, dispatch.SurfaceResource{URI: uri, Connection: alias, Original: uri}, request)
				return err
			})
			return out, passServerError(ctx, err)
		},
	}
}

// resourceNotFound is MCP's error code for a resource that does not exist.
const resourceNotFound = -32002

// hideUnlisted drops unlistedReadURI from a resources/list answer.
func hideUnlisted(result *mcp.ListResourcesResult) {
	kept := result.Resources[:0]
	for _, r := range result.Resources {
		if r.URI != unlistedReadURI {
			kept = append(kept, r)
		}
	}
	result.Resources = kept
}

// UnknownToolRelistInterval bounds how often a call of a tool name the
// surface does not list makes dispatch re-list the running servers' tools:
// an agent calling a tool a server has just added (its list_changed still
// in the debounce) is served, and one calling unknown names in a loop costs
// the servers at most one tools/list each per interval.
const UnknownToolRelistInterval = time.Second

// relistForUnknownTool is the before-call hook: a name not listed makes
// the running servers list their tools again, once, and the surface
// follow, before mcp-go looks the tool up.
func (s *Surface) relistForUnknownTool(ctx context.Context, name string) {
	if name == dispatch.ToolName {
		return
	}
	s.mu.Lock()
	_, known := s.exposed[name]
	now := time.Now()
	due := now.Sub(s.lastUnknownRelist) >= UnknownToolRelistInterval
	if !known && due {
		s.lastUnknownRelist = now
	}
	s.mu.Unlock()
	if known || !due {
		return
	}
	for _, c := range s.svc.Connections().Conns() {
		if c.State().Status != connections.StatusReady {
			continue // a server not running lists its tools when it starts
		}
		if _, err := c.Tools(ctx, true); err != nil {
			s.log.Debug("re-list tools for an unknown name", "connection", c.Alias, "error", err.Error())
		}
	}
	s.Sync(ctx)
}
