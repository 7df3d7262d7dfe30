package dispatch

import (
	"context"
	"fmt"
	"strings"

	"dispatch/connections"
)

// MaxQueryBytes bounds a search query: a task in words is a line or two,
// and every word of a longer one costs ranking time for nothing.
const MaxQueryBytes = 4 << 10

// SearchResponse answers action search.
type SearchResponse struct {
	Query string      `json:"query"`
	Hits  []SearchHit `json:"hits"`
	Total int         `json:"totalTools"`
	// TotalResources (resources and templates) and TotalPrompts count what
	// was searched beside the tools; absent when there is none.
	TotalResources int      `json:"totalResources,omitempty"`
	TotalPrompts   int      `json:"totalPrompts,omitempty"`
	Unreachable    []string `json:"unreachable,omitempty"`
	Hint           string   `json:"hint,omitempty"`
}

// SearchHit is one hit. A tool's hit is its list entry, exactly as before
// search covered other kinds; a resource, resource template or prompt says
// so in Type ("resource" for both resources and templates, "prompt") and
// gives its uri, uriTemplate or (as Name) prompt name, the value call and
// info take.
type SearchHit struct {
	Type string `json:"type,omitempty"`
	ToolEntry
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Arguments are a prompt's argument names, optional ones marked "?".
	Arguments string `json:"arguments,omitempty"`
	// Unmatched are the query's words this hit does not match. Search
	// always answers with the best it has, even when no tool does what was
	// asked ("delete a file" over a memory server finds delete_entities);
	// the words left out let the agent see that before it calls.
	Unmatched []string `json:"unmatched,omitempty"`
}

// Search answers action search: the tools, resources, resource templates
// and prompts that best match the query across all connections (or one),
// best first, ranked together; "type" keeps one kind.
func (s *Service) Search(ctx context.Context, req Request) (*SearchResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	var (
		cats         []rawToolCatalog
		rcats, pcats []sideCatalog
	)
	if req.Type == "" || req.Type == TypeTool {
		cats = rawToolCatalogs(ctx, conns, req.Refresh)
	}
	if req.Type == "" || req.Type == TypeResource {
		rcats = resourceCatalogs(ctx, conns, req.Refresh)
	}
	if req.Type == "" || req.Type == TypePrompt {
		pcats = promptCatalogs(ctx, conns, req.Refresh)
	}
	// No hits is an empty list, not null: an agent reads "hits": null as
	// a failure rather than as an answer.
	resp := &SearchResponse{Query: req.Query, Hits: []SearchHit{}}
	// A server that is down fails its tools, resources and prompts alike
	// (the later asks meet its back-off): say so once, with the first error.
	failed := map[*connections.Conn]bool{}
	for _, cat := range cats {
		if cat.err != nil && !failed[cat.conn] {
			failed[cat.conn] = true
			resp.Unreachable = append(resp.Unreachable, cat.err.Error())
		}
	}
	for _, cat := range append(append([]sideCatalog{}, rcats...), pcats...) {
		if cat.err != nil && !failed[cat.conn] {
			failed[cat.conn] = true
			resp.Unreachable = append(resp.Unreachable, cat.err.Error())
		}
	}
	idx := s.index.get(cats, rcats, pcats, s.conns.Options().Cache, s.log)
	resp.Total, resp.TotalResources, resp.TotalPrompts = idx.tools, idx.resources, idx.prompts
	limit := DefaultSearchLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	limit = min(limit, MaxSearchLimit)
	var tools, others bool
	for _, hit := range idx.index.Search(req.Query, limit) {
		h := s.searchHit(idx.entries[hit.Doc], req)
		h.Score = roundScore(hit.Score)
		h.Unmatched = hit.Missing
		tools = tools || h.Type == ""
		others = others || h.Type != ""
		resp.Hits = append(resp.Hits, h)
	}
	resp.Hint = searchHint(req, resp, tools, others)
	return resp, nil
}

func (s *Service) searchHit(e searchEntry, req Request) SearchHit {
	detail := req.Format == "detail"
	switch {
	case e.resource != nil:
		r := resourceEntry(e.conn, *e.resource, detail)
		return SearchHit{Type: TypeResource,
			ToolEntry: ToolEntry{Connection: r.Connection, Name: r.Name, Title: r.Title, Description: r.Description},
			URI:       r.URI, URITemplate: r.URITemplate, MIMEType: r.MIMEType}
	case e.prompt != nil:
		p := promptEntry(e.conn, *e.prompt, detail)
		return SearchHit{Type: TypePrompt,
			ToolEntry: ToolEntry{Connection: p.Connection, Name: p.Name, Title: p.Title, Description: p.Description},
			Arguments: p.Arguments}
	}
	// Only the tools shown are parsed: a saved index answers without
	// reading any tool's schema.
	def, ok := parseToolDef(e.tool)
	if !ok {
		def = toolDef{Name: e.name, Raw: e.tool}
	}
	return SearchHit{ToolEntry: s.toolEntry(e.conn, def, req)}
}

// searchHint says what to do with the hits: the tool-only wording when
// only tools were found, how to read a resource or get a prompt when one
// was.
func searchHint(req Request, resp *SearchResponse, tools, others bool) string {
	if len(resp.Hits) == 0 {
		what := map[string]string{"": "Nothing", TypeTool: "No tool", TypeResource: "No resource", TypePrompt: "No prompt"}[req.Type]
		if (req.Type == "" && resp.TotalResources+resp.TotalPrompts == 0) || req.Type == TypeTool {
			// As before search covered other kinds.
			return `No tool matched. Try other words (what the tool does, not how), or {"action":"list"} to browse.`
		}
		list := `{"action":"list"}`
		if req.Type == TypeResource || req.Type == TypePrompt {
			list = fmt.Sprintf(`{"action":"list","type":%q}`, req.Type)
		}
		return fmt.Sprintf(`%s matched. Try other words (what it does, not how), or %s to browse.`, what, list)
	}
	var hints []string
	if tools {
		hints = append(hints, `Call with {"action":"call","tool":NAME,"connection":CONNECTION,"arguments":{...}}; params marked ? are optional. Use info for a full schema.`)
	}
	if others {
		hints = append(hints, `A hit with "type":"resource" is read with {"action":"call","type":"resource","uri":URI} (a uriTemplate's variables go in "arguments"); "type":"prompt" with {"action":"call","type":"prompt","prompt":NAME,"arguments":{...}}.`)
	}
	return strings.Join(hints, " ")
}

func roundScore(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
