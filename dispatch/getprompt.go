package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/connections"
	"dispatch/spill"
)

// PromptResponse answers call type=prompt: the prompt's messages with
// their roles and every content item as sent, except image and audio data
// and embedded blobs, which are saved to files (a SavedPart in place of
// the data). Above the threshold, or with resultToFile, the messages go to
// a JSON file instead (Spill).
type PromptResponse struct {
	Connection      string            `json:"connection"`
	Prompt          string            `json:"prompt"`
	Description     string            `json:"description,omitempty"`
	Messages        []json.RawMessage `json:"messages,omitempty"`
	Meta            json.RawMessage   `json:"_meta,omitempty"`
	Bytes           int64             `json:"bytes"`
	EstimatedTokens int64             `json:"estimatedTokens"`
	Hint            string            `json:"hint,omitempty"`
	Spill           *SpillInfo        `json:"spill,omitempty"`
}

type promptResult struct {
	Description string            `json:"description,omitempty"`
	Messages    []json.RawMessage `json:"messages"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// promptArg is one argument a prompt declares.
type promptArg struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// GetPrompt answers call type=prompt.
func (s *Service) GetPrompt(ctx context.Context, req Request, hooks Hooks) (*PromptResponse, error) {
	if req.ResultToFile && s.opts.Spill == nil {
		return nil, usagef("Start dispatch with --spill-dir DIR to keep result files from the command line",
			"resultToFile needs a spill directory, and this dispatch has none")
	}
	conn, def, err := s.resolvePrompt(ctx, req.Connection, req.Prompt)
	if err != nil {
		return nil, err
	}
	args, err := promptArguments(req.Prompt, req.Arguments, def)
	if err != nil {
		return nil, err
	}
	timeout, which := s.callLimit(conn, req)
	raw, err := conn.GetPrompt(ctx, connections.PromptRequest{Name: req.Prompt, Arguments: args, Meta: req.Meta, OnProgress: hooks.Progress, Timeout: timeout})
	if err != nil {
		if errors.Is(err, connections.ErrCallTimeout) {
			return nil, fmt.Errorf("%w (%s)", err, which())
		}
		return nil, tooDeepUsage(err)
	}
	var result promptResult
	if err := decodePromptResult(raw, &result); err != nil {
		return nil, fmt.Errorf("%s: get prompt %s: server sent an invalid result: %w", conn.Alias, req.Prompt, err)
	}
	resp := &PromptResponse{Connection: conn.Alias, Prompt: req.Prompt, Description: result.Description, Meta: result.Meta,
		Bytes: int64(len(raw)), EstimatedTokens: spill.EstimateTokens(int64(len(raw)))}
	var budget partBudget
	for i, msg := range result.Messages {
		if content := gjson.Get(jsonView(msg), "content"); content.Exists() {
			s.links.rememberView(conn.Alias, content.Raw)
		}
		out, saved, err := s.promptMessage(msg, &budget)
		if err != nil {
			s.discard(&budget)
			return nil, fmt.Errorf("%s: get prompt %s: message %d: %w", conn.Alias, req.Prompt, i+1, err)
		}
		result.Messages[i] = out
		if saved {
			resp.Hint = savedPartsHint
		}
	}
	threshold := s.opts.Threshold
	if req.ResultSizeThreshold != nil {
		threshold = *req.ResultSizeThreshold
	}
	var size int64
	for _, m := range result.Messages {
		size += int64(len(m))
	}
	auto := !req.ResultToFile && threshold > 0 && size > threshold && s.opts.Spill != nil
	if !req.ResultToFile && !auto {
		resp.Messages = result.Messages
		return resp, nil
	}
	data, err := marshalJSON(result.Messages)
	if err != nil {
		return nil, fmt.Errorf("encode messages: %w", err)
	}
	info, err := s.spillPayload(ctx, payloadJSON, data, "messages", auto)
	if err != nil {
		s.discard(&budget)
		return nil, fmt.Errorf("%s: get prompt %s: save result (%s): %w", conn.Alias, req.Prompt, humanize.IBytes(uint64(len(data))), err)
	}
	resp.Spill = info
	return resp, nil
}

// promptArguments checks the agent's arguments against the prompt's
// definition: strings only (MCP says so), every required one given.
func promptArguments(name string, raw json.RawMessage, def json.RawMessage) (map[string]string, error) {
	var declared []promptArg
	if a := gjson.GetBytes(def, "arguments"); a.IsArray() {
		if err := json.Unmarshal([]byte(a.Raw), &declared); err != nil {
			declared = nil
		}
	}
	example := promptExample(name, declared)
	args := map[string]string{}
	if len(raw) > 0 {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, usagef(example, "\"arguments\" of a prompt must be a JSON object of strings")
		}
		for k, v := range fields {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, usagef(example, "prompt argument %q must be a string (MCP prompt arguments are strings), not %s; quote it", k, summarize(string(v), 40))
			}
			args[k] = s
		}
	}
	var missing []string
	for _, a := range declared {
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, usagef(example, "prompt %q needs argument %s; its arguments: %s", name, quoteAll(missing), describeArgs(declared))
	}
	if len(args) == 0 {
		return nil, nil
	}
	return args, nil
}

func promptExample(name string, declared []promptArg) string {
	args := map[string]string{}
	for _, a := range declared {
		if a.Required {
			args[a.Name] = "..."
		}
	}
	example, err := marshalJSON(map[string]any{"action": "call", "type": TypePrompt, "prompt": name, "arguments": args})
	if err != nil {
		return exampleGetPrompt
	}
	return "Example: " + string(example)
}

// promptMessage returns a message with its binary data saved to files:
// an image or audio item's data, an embedded resource's blob.
func (s *Service) promptMessage(msg json.RawMessage, budget *partBudget) (json.RawMessage, bool, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		return nil, false, fmt.Errorf("server sent an invalid message: %w", err)
	}
	content := fields["content"]
	typ := gjson.GetBytes(content, "type").String()
	mimeType, _ := itemString(content, "mimeType")
	var part SavedPart
	switch data, isData := itemString(content, "data"); {
	case (typ == "image" || typ == "audio") && isData:
		if err := budget.take(); err != nil {
			return nil, false, err
		}
		file, err := s.saveBlob(data, mimeType)
		if err != nil {
			return nil, false, s.blobSaveErr(typ, mimeType, err)
		}
		budget.saved(file.Path)
		part = binaryPart(file, "", mimeType)
		part.Type = typ
		out, err := marshalJSON(part)
		if err != nil {
			return nil, false, err
		}
		fields["content"] = out
	case typ == "resource":
		blob, ok := itemString(content, "resource.blob")
		if !ok {
			return msg, false, nil
		}
		if err := budget.take(); err != nil {
			return nil, false, err
		}
		inner := gjson.GetBytes(content, "resource")
		file, err := s.saveBlob(blob, inner.Get("mimeType").String())
		if err != nil {
			return nil, false, s.blobSaveErr("embedded resource", inner.Get("mimeType").String(), err)
		}
		budget.saved(file.Path)
		part = binaryPart(file, inner.Get("uri").String(), inner.Get("mimeType").String())
		out, err := marshalJSON(map[string]any{"type": "resource", "resource": part})
		if err != nil {
			return nil, false, err
		}
		fields["content"] = out
	default:
		return msg, false, nil
	}
	out, err := marshalJSON(fields)
	return out, true, err
}

func (s *Service) blobSaveErr(what, mimeType string, err error) error {
	if errors.Is(err, ErrNoSpillStore) {
		return usageBoth("Start dispatch with --spill-dir DIR", "Pass --spill-dir DIR",
			"it holds %s data (%s), which is always saved to a file, decoded, and there is %v", what, dash(mimeType), err)
	}
	return fmt.Errorf("save %s data: %w", what, err)
}

// describeArgs lists prompt arguments for a message: "city (required), style".
func describeArgs(args []promptArg) string {
	if len(args) == 0 {
		return "none"
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprintf("%q", a.Name)
		if a.Required {
			parts[i] += " (required)"
		}
	}
	return strings.Join(parts, ", ")
}
