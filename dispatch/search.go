package dispatch

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"dispatch/connections"
	"dispatch/toolsearch"
)

// SearchResponse answers action search.
type SearchResponse struct {
	Query       string      `json:"query"`
	Hits        []ToolEntry `json:"hits"`
	Total       int         `json:"totalTools"`
	Unreachable []string    `json:"unreachable,omitempty"`
	Hint        string      `json:"hint,omitempty"`
}

// searchIndex is a toolsearch index over some catalogs, reused while they
// are unchanged: building one over a thousand tools costs far more than a
// query.
type searchIndex struct {
	key   string
	index *toolsearch.Index
	defs  []toolDef
	conns []*connections.Conn // per doc
}

// indexCache holds the last index built.
type indexCache struct {
	mu   sync.Mutex
	last *searchIndex
}

func (c *indexCache) get(cats []catalog) *searchIndex {
	var key strings.Builder
	for _, cat := range cats {
		fmt.Fprintf(&key, "%s:%d:%d:%t;", cat.conn.Alias, cat.conn.CatalogGeneration(), len(cat.tools), cat.err != nil)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && c.last.key == key.String() {
		return c.last
	}
	built := &searchIndex{key: key.String()}
	var docs []toolsearch.Doc
	for _, cat := range cats {
		for _, t := range cat.tools {
			doc, err := toolsearch.DocFromRaw(cat.conn.Alias, t.Raw)
			if err != nil {
				continue
			}
			docs = append(docs, doc)
			built.defs = append(built.defs, t)
			built.conns = append(built.conns, cat.conn)
		}
	}
	built.index = toolsearch.New(docs)
	c.last = built
	return built
}

// Search answers action search: the tools that best match the query across
// all connections (or one), best first.
func (s *Service) Search(ctx context.Context, req Request) (*SearchResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := s.catalogs(ctx, conns, req.Refresh)
	// No hits is an empty list, not null: an agent reads "hits": null as
	// a failure rather than as an answer.
	resp := &SearchResponse{Query: req.Query, Hits: []ToolEntry{}}
	for _, cat := range cats {
		if cat.err != nil {
			resp.Unreachable = append(resp.Unreachable, cat.err.Error())
		}
	}
	idx := s.index.get(cats)
	resp.Total = idx.index.Len()
	limit := DefaultSearchLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	limit = min(limit, MaxSearchLimit)
	for _, hit := range idx.index.Search(req.Query, limit) {
		entry := s.toolEntry(idx.conns[hit.Doc], idx.defs[hit.Doc], req)
		entry.Score = roundScore(hit.Score)
		resp.Hits = append(resp.Hits, entry)
	}
	if len(resp.Hits) == 0 {
		resp.Hint = `No tool matched. Try other words (what the tool does, not how), or {"action":"list"} to browse.`
	} else {
		resp.Hint = `Call with {"action":"call","tool":NAME,"connection":CONNECTION,"arguments":{...}}; params marked ? are optional. Use info for a full schema.`
	}
	return resp, nil
}

func roundScore(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
