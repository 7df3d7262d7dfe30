package dispatch

import (
	"context"
	"encoding/json"
	"strings"

	"dispatch/connections"
)

// PromptEntry is one prompt in list answers.
type PromptEntry struct {
	Connection  string `json:"connection"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // detail format
	Description string `json:"description,omitempty"`
	// Arguments are its argument names, optional ones marked with "?".
	Arguments string `json:"arguments,omitempty"`
}

// ListPrompts answers list type=prompt.
func (s *Service) ListPrompts(ctx context.Context, req Request) (*SideListResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := promptCatalogs(ctx, conns, req.Refresh)
	resp := &SideListResponse{Prompts: []PromptEntry{}, Unreachable: unreachable(cats)}
	limit := listLimit(req)
	for _, cat := range cats {
		for _, p := range cat.prompts {
			if resp.Total >= req.Offset && len(resp.Prompts) < limit {
				resp.Prompts = append(resp.Prompts, promptEntry(cat.conn, p, req.Format == "detail"))
			}
			resp.Total++
		}
	}
	page(resp, req, int64(len(resp.Prompts)), "prompts", cats)
	return resp, nil
}

func promptEntry(c *connections.Conn, p promptDef, detail bool) PromptEntry {
	e := PromptEntry{Connection: c.Alias, Name: p.Name, Arguments: p.Signature()}
	if detail {
		e.Title, e.Description = p.Title, p.Description
	} else {
		e.Description = summarize(p.Description, maxSummaryLen)
	}
	return e
}

// PromptInfoResponse answers info type=prompt: the prompt exactly as its
// server published it, and its arguments in short.
type PromptInfoResponse struct {
	Connection string          `json:"connection"`
	Server     string          `json:"server,omitempty"`
	Prompt     json.RawMessage `json:"prompt"`
	// Arguments: see PromptEntry. The published form says "required" only
	// of required ones; this says which are optional too.
	Arguments string `json:"arguments,omitempty"`
}

// InfoPrompt answers info type=prompt. The prompt may be written
// "alias/name" to pick its connection.
func (s *Service) InfoPrompt(ctx context.Context, req Request) (*PromptInfoResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := promptCatalogs(ctx, conns, req.Refresh)
	var matches []resourceMatch
	var found promptDef
	for _, cat := range cats {
		for _, p := range cat.prompts {
			if p.Name == req.Prompt {
				matches = append(matches, resourceMatch{conn: cat.conn, def: resourceDef{URI: p.Name}})
				found = p
			}
		}
	}
	switch {
	case len(matches) == 1:
		return &PromptInfoResponse{Connection: matches[0].conn.Alias, Server: matches[0].conn.Config.Name, Prompt: found.Raw, Arguments: found.Signature()}, nil
	case len(matches) > 1:
		return nil, ambiguous("prompt", "name", req.Prompt, matches)
	}
	if prefix, name, ok := strings.Cut(req.Prompt, "/"); ok && name != "" && req.Connection == "" {
		if c, err := s.conns.Lookup(prefix); err == nil {
			qualified := req
			qualified.Connection, qualified.Prompt = c.Alias, name
			if resp, err := s.InfoPrompt(ctx, qualified); err == nil {
				return resp, nil
			}
		}
	}
	return nil, notFound("prompt", "name", req.Prompt, cats)
}
