package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// InfoResponse answers action info: the tool's definition exactly as its
// server published it (input and output schema, annotations, everything).
type InfoResponse struct {
	Connection string          `json:"connection"`
	Server     string          `json:"server,omitempty"`
	Tool       json.RawMessage `json:"tool"`
	// RunsAsTask: see ToolEntry.
	RunsAsTask bool `json:"runsAsTask,omitempty"`
	// Warnings say which members of the definition were left out, and why
	// (see encodableTool).
	Warnings []string `json:"warnings,omitempty"`
}

// Info answers action info.
func (s *Service) Info(ctx context.Context, req Request) (*InfoResponse, error) {
	conn, def, err := s.resolveTool(ctx, req.Connection, req.Tool)
	if err != nil {
		return nil, err
	}
	tool, warnings := encodableTool(def.Raw)
	return &InfoResponse{Connection: conn.Alias, Server: conn.Config.Name, Tool: tool, RunsAsTask: def.RunsAsTask, Warnings: warnings}, nil
}

// encodableTool is a tool's definition as info's answer can carry it:
// whole, unless it nests deeper than MaxIndentedNesting there. encoding/json,
// which writes every answer (to the agent, the shell session, --json),
// refuses JSON past that depth, and an error about json.RawMessage would
// read as dispatch's own fault; nor can a reader take an answer deeper than
// that. So each top-level member too deep (in practice a schema) is left
// out, with a warning naming it and the limit; the tool stays listed,
// searchable and callable.
func encodableTool(raw json.RawMessage) (json.RawMessage, []string) {
	// The answer's object holds the tool's.
	const around = 1
	if JSONNesting(raw)+around <= MaxIndentedNesting {
		return raw, nil
	}
	var (
		kept     bytes.Buffer
		warnings []string
	)
	kept.WriteByte('{')
	gjson.ParseBytes(raw).ForEach(func(key, value gjson.Result) bool {
		// Within the tool's object, itself within the answer's.
		if depth := JSONNesting([]byte(value.Raw)); depth+around+1 > MaxIndentedNesting {
			warnings = append(warnings, leftOutWarning(decodedString(key), depth))
			return true
		}
		if kept.Len() > 1 {
			kept.WriteByte(',')
		}
		kept.WriteString(key.Raw)
		kept.WriteByte(':')
		kept.WriteString(value.Raw)
		return true
	})
	kept.WriteByte('}')
	return kept.Bytes(), warnings
}

// leftOutWarning says that a tool's member, nested depth levels, was left
// out of an answer that cannot carry it.
func leftOutWarning(member string, depth int) string {
	return fmt.Sprintf(
		"the tool's %s is left out: it nests %d levels deep, and inside the answer that is more than the %d levels (MaxIndentedNesting) dispatch's JSON answers can carry; the tool is still listed, searchable and callable, with the arguments its description names",
		member, depth, MaxIndentedNesting)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
