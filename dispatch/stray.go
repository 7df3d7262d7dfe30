package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// StrayParamsError is ParseRequest's error for a call with top-level keys
// that are not call's parameters. Its message, written without the tool's
// schema, suggests moving them all into "arguments"; Service.Parse checks
// that suggestion against the tool's schema, since moving a key the tool
// does not take only trades one error for another.
type StrayParamsError struct {
	*UsageError
	Stray  []string // the keys, sorted
	fields map[string]json.RawMessage
}

func (e *StrayParamsError) Unwrap() error { return e.UsageError }

// Parse is ParseRequest for a service that can look the tool up: a stray
// top-level key is only said to belong in "arguments" when the tool's input
// schema has that property, or when the schema is unknown.
func (s *Service) Parse(ctx context.Context, raw json.RawMessage) (Request, error) {
	req, err := ParseRequest(raw)
	var stray *StrayParamsError
	if err == nil || !errors.As(err, &stray) {
		return req, err
	}
	return req, s.checkStray(ctx, stray)
}

// checkStray returns stray's error reworded for the tool's schema, or
// stray itself when the tool or its schema cannot be had.
func (s *Service) checkStray(ctx context.Context, stray *StrayParamsError) error {
	var probe Request
	if json.Unmarshal(stray.fields["tool"], &probe.Tool) != nil || probe.Tool == "" {
		return stray
	}
	if c, ok := stray.fields["connection"]; ok && json.Unmarshal(c, &probe.Connection) != nil {
		return stray
	}
	probe = s.qualifyTool(ctx, probe)
	_, def, err := s.resolveTool(ctx, probe.Connection, probe.Tool)
	if err != nil {
		return stray
	}
	props, known := schemaProperties(def.Raw)
	if !known {
		return stray
	}
	var movable, foreign []string
	for _, name := range stray.Stray {
		if props[name] {
			movable = append(movable, name)
		} else {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return stray
	}
	return notToolParamsError(probe.Tool, def, foreign, movable, stray.fields)
}

// notToolParamsError says which keys belong neither to call nor to the
// tool, listing both parameter sets, and still shows how to move the keys
// the tool does take.
func notToolParamsError(tool string, def toolDef, foreign, movable []string, fields map[string]json.RawMessage) error {
	takes := "takes no parameters"
	if len(def.Params) > 0 {
		names := make([]string, len(def.Params))
		for i, p := range def.Params {
			names[i] = p.Name
		}
		takes = "takes: " + strings.Join(names, ", ")
	}
	msg := fmt.Sprintf("parameter(s) %s are not parameters of action call (%s), nor of tool %q, which %s",
		quoteAll(foreign), strings.Join(actionParams["call"], ", "), tool, takes)
	if fields["path"] != nil && slices.Contains(foreign, "path") {
		msg += ` ("path" on call names the tool, as "tool" already does)`
	}
	hint := fmt.Sprintf(`Leave out %s, or check the tool with {"action":"info","tool":%s}`, quoteAll(foreign), jsonString(tool))
	if len(movable) > 0 {
		hint = fmt.Sprintf("Put the tool's inputs %s inside \"arguments\": %s. %s", quoteAll(movable), movedExample(fields, movable), hint)
	}
	return &UsageError{Msg: msg, Hint: hint}
}

// movedExample is the request with keys moved into its arguments, next to
// any arguments already given.
func movedExample(fields map[string]json.RawMessage, keys []string) string {
	moved := map[string]json.RawMessage{}
	if obj, err := argumentsObject(fields["arguments"]); err == nil && len(obj) > 0 {
		if err := json.Unmarshal(obj, &moved); err != nil || moved == nil {
			moved = map[string]json.RawMessage{}
		}
	}
	for _, k := range keys {
		moved[k] = fields[k]
	}
	example, err := json.Marshal(map[string]any{"action": "call", "tool": toolOrPlaceholder(fields), "arguments": moved})
	if err != nil {
		return `{"action":"call","tool":"TOOL","arguments":{...}}`
	}
	return string(example)
}

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		return `"TOOL"`
	}
	return string(b)
}

// schemaProperties returns the names of a tool definition's input schema
// properties; known is false when the schema has no readable "properties"
// object, so nothing can be said about what the tool takes.
func schemaProperties(raw json.RawMessage) (props map[string]bool, known bool) {
	var t struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.InputSchema.Properties == nil {
		return nil, false
	}
	props = make(map[string]bool, len(t.InputSchema.Properties))
	for name := range t.InputSchema.Properties {
		props[name] = true
	}
	return props, true
}
