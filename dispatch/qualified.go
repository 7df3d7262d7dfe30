package dispatch

import (
	"context"
	"strings"

	"dispatch/connections"
)

// qualifyTool accepts a tool written "c1/read_file" (or "NAME/read_file"),
// the form list, search and every "did you mean" show, by splitting it into
// connection and tool when that connection has such a tool. A name that
// does not split that way is left for resolveTool to report.
func (s *Service) qualifyTool(ctx context.Context, req Request) Request {
	prefix, name, ok := strings.Cut(req.Tool, "/")
	if !ok || name == "" {
		return req
	}
	conn, err := s.conns.Lookup(prefix)
	if err != nil {
		return req
	}
	if req.Connection != "" {
		if other, err := s.conns.Lookup(req.Connection); err != nil || other != conn {
			return req
		}
	}
	found := false
	for _, t := range s.catalogs(ctx, []*connections.Conn{conn}, false)[0].tools {
		if t.Name == req.Tool {
			return req // the server's own name has a slash in it
		}
		found = found || t.Name == name
	}
	// A tool the connection's filter hides is split too, so that the
	// answer is the filter's refusal, not "no tool named c1/x".
	if found || conn.ToolAllowed(name) != nil {
		req.Connection, req.Tool = conn.Alias, name
	}
	return req
}
