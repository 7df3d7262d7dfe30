package dispatch

import (
	"context"

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

// Search answers action search: the tools that best match the query across
// all connections (or one), best first.
func (s *Service) Search(ctx context.Context, req Request) (*SearchResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := s.catalogs(ctx, conns, req.Refresh)
	var (
		docs []toolsearch.Doc
		defs []toolDef
	)
	resp := &SearchResponse{Query: req.Query}
	for _, cat := range cats {
		if cat.err != nil {
			resp.Unreachable = append(resp.Unreachable, cat.err.Error())
			continue
		}
		for _, t := range cat.tools {
			doc, err := toolsearch.DocFromRaw(cat.conn.Alias, t.Raw)
			if err != nil {
				continue
			}
			docs = append(docs, doc)
			defs = append(defs, t)
		}
	}
	resp.Total = len(docs)
	limit := req.Limit
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	index := toolsearch.New(docs)
	for _, hit := range index.Search(req.Query, limit) {
		conn, err := s.conns.Lookup(docs[hit.Doc].Connection)
		if err != nil {
			continue
		}
		entry := s.toolEntry(conn, defs[hit.Doc], req)
		entry.Score = roundScore(hit.Score)
		resp.Hits = append(resp.Hits, entry)
	}
	if len(resp.Hits) == 0 {
		resp.Hint = "No tool matched. Try other words (what the tool does, not how), or {\"action\":\"list\"} to browse."
	} else {
		resp.Hint = "Call with {\"action\":\"call\",\"tool\":NAME,\"connection\":CONNECTION,\"arguments\":{...}}; params marked ? are optional. Use info for a full schema."
	}
	return resp, nil
}

func roundScore(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
