package dispatch

import (
	"context"
	"encoding/json"
	"strconv"
)

// InfoResponse answers action info: the tool's definition exactly as its
// server published it (input and output schema, annotations, everything).
type InfoResponse struct {
	Connection string          `json:"connection"`
	Server     string          `json:"server,omitempty"`
	Tool       json.RawMessage `json:"tool"`
	// RunsAsTask: see ToolEntry.
	RunsAsTask bool `json:"runsAsTask,omitempty"`
}

// Info answers action info.
func (s *Service) Info(ctx context.Context, req Request) (*InfoResponse, error) {
	conn, def, err := s.resolveTool(ctx, req.Connection, req.Tool)
	if err != nil {
		return nil, err
	}
	return &InfoResponse{Connection: conn.Alias, Server: conn.Config.Name, Tool: def.Raw, RunsAsTask: def.RunsAsTask}, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
