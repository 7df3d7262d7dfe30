package upstream

import (
	"cmp"
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// listedOrder is what mcp-go's lists lose of what the surface publishes:
// each kind's order (mcp-go sorts by name; the servers' order is the one
// they chose, and proxy-dispatch comes first) and each tool's execution,
// which the tool mcp-go serves cannot carry (see
// dispatch.PublishedExecution). The after-list hooks put them back.
type listedOrder struct {
	tools, resources, templates, prompts map[string]int // rank by the key mcp-go lists
	executions                           map[string]*mcp.ToolExecution
}

// ranks maps each item's key to its place in items.
func ranks[T any](items []T, key func(T) string) map[string]int {
	out := make(map[string]int, len(items))
	for i, item := range items {
		out[key(item)] = i
	}
	return out
}

// inOrder sorts items by rank; items rank does not know (listed by a
// SetTools that raced the hook) keep their order, after the others.
func inOrder[T any](items []T, key func(T) string, rank map[string]int) {
	place := func(item T) int {
		if i, ok := rank[key(item)]; ok {
			return i
		}
		return len(rank)
	}
	slices.SortStableFunc(items, func(a, b T) int { return cmp.Compare(place(a), place(b)) })
}

// templateKey is a template as mcp-go keys it: its URI template.
func templateKey(t mcp.ResourceTemplate) string {
	if t.URITemplate == nil {
		return ""
	}
	return t.URITemplate.Raw()
}

// updateListed changes a copy of the listed order and publishes it, before
// the Set that sends list_changed (an agent may list at once). Its
// callers hold mu, which orders the writers.
func (s *Surface) updateListed(change func(*listedOrder)) {
	var next listedOrder
	if cur := s.listed.Load(); cur != nil {
		next = *cur
	}
	change(&next)
	s.listed.Store(&next)
}

// listAsPublished adds the hooks that give every list answer its
// servers' order and each tool its execution. dispatch sets no pagination
// limit, so each answer is the whole list, and sorting it does not break
// mcp-go's name-based cursors.
func (s *Surface) listAsPublished(hooks *server.Hooks) {
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, result *mcp.ListToolsResult) {
		listed := s.listedNow()
		for i := range result.Tools {
			if e, ok := listed.executions[result.Tools[i].Name]; ok {
				result.Tools[i].Execution = e
			}
		}
		inOrder(result.Tools, func(t mcp.Tool) string { return t.Name }, listed.tools)
	})
	hooks.AddAfterListResources(func(_ context.Context, _ any, _ *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
		inOrder(result.Resources, func(r mcp.Resource) string { return r.URI }, s.listedNow().resources)
	})
	hooks.AddAfterListResourceTemplates(func(_ context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, result *mcp.ListResourceTemplatesResult) {
		inOrder(result.ResourceTemplates, templateKey, s.listedNow().templates)
	})
	hooks.AddAfterListPrompts(func(_ context.Context, _ any, _ *mcp.ListPromptsRequest, result *mcp.ListPromptsResult) {
		inOrder(result.Prompts, func(p mcp.Prompt) string { return p.Name }, s.listedNow().prompts)
	})
}

// listedNow is the order last published (empty before the first Sync).
func (s *Surface) listedNow() *listedOrder {
	if l := s.listed.Load(); l != nil {
		return l
	}
	return &listedOrder{}
}
