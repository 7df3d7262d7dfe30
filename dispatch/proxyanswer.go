package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"

	"dispatch/rawjson"
)

// Every answer says what it answers, as the Proxy Extension's annotations
// do: in _meta under these keys, and on call results also as annotations
// of each content item.
const (
	metaProxyAction = "proxyAction"
	metaProxyType   = "proxyType"
	metaProxyPath   = "proxyPath"
)

// proxyFactSet is the proxyAction, proxyType and proxyPath of a request
// (proxyFacts): a struct, not a map, for the hot path's answers, which
// spell them at the byte level. The zero value holds none.
type proxyFactSet struct {
	given             bool   // action is one, even when empty
	action, typ, path string // typ and path are facts when not empty
}

// proxyFacts are the proxyAction, proxyType and proxyPath of req, leaving
// out the empty ones.
func proxyFacts(req Request) proxyFactSet {
	facts := proxyFactSet{given: true, action: req.Action}
	if req.Action == "readresult" || req.Action == "run" {
		return facts
	}
	facts.typ = req.ProxyType()
	if req.Action == "info" || req.Action == "call" {
		if target, _ := req.nameField(); *target != "" {
			facts.path = *target
		} else if req.Path != "" {
			facts.path = req.Path
		}
	}
	return facts
}

// has reports whether key is one of the facts.
func (f proxyFactSet) has(key string) bool {
	switch key {
	case metaProxyAction:
		return f.given
	case metaProxyType:
		return f.typ != ""
	case metaProxyPath:
		return f.path != ""
	}
	return false
}

// asMap is the facts by key, for the general path's _meta and
// annotations.
func (f proxyFactSet) asMap() map[string]string {
	m := make(map[string]string, 3)
	if f.given {
		m[metaProxyAction] = f.action
	}
	if f.typ != "" {
		m[metaProxyType] = f.typ
	}
	if f.path != "" {
		m[metaProxyPath] = f.path
	}
	return m
}

// appendMembers appends the facts as members of a JSON object, each after
// a comma: action, path, type.
func (f proxyFactSet) appendMembers(dst []byte) []byte {
	for _, fact := range [...]struct {
		key, value string
		given      bool
	}{{metaProxyAction, f.action, f.given}, {metaProxyPath, f.path, f.path != ""}, {metaProxyType, f.typ, f.typ != ""}} {
		if fact.given {
			dst = append(dst, ',')
			dst = rawjson.AppendString(dst, fact.key)
			dst = append(dst, ':')
			dst = rawjson.AppendString(dst, fact.value)
		}
	}
	return dst
}

// stampProxy adds req's proxy facts to result's _meta, and to its content
// items' annotations when it answers a call written in the Proxy
// Extension's spelling.
func stampProxy(result *mcp.CallToolResult, req Request) {
	if req.Action == "" {
		return // not even parsed: there is nothing to say
	}
	facts := proxyFacts(req).asMap()
	if result.Meta == nil {
		result.Meta = &mcp.Meta{}
	}
	if result.Meta.AdditionalFields == nil {
		result.Meta.AdditionalFields = map[string]any{}
	}
	for k, v := range facts {
		result.Meta.AdditionalFields[k] = v
	}
	// Content items carry them as annotations only for a request in the
	// Proxy Extension's spelling, whose clients read them there: in
	// dispatch's own form a call's content stays exactly as its server
	// sent it, and _meta says the same in a few bytes.
	if req.Action != "call" || !req.ProxyShape {
		return
	}
	for i, item := range result.Content {
		raw, ok := rawOf(item)
		if !ok {
			continue
		}
		result.Content[i] = rawContent{raw: annotateItem(raw, facts)}
	}
}

// rawOf returns a content item's JSON.
func rawOf(item mcp.Content) (json.RawMessage, bool) {
	if r, ok := item.(rawContent); ok {
		return r.raw, true
	}
	raw, err := json.Marshal(item)
	return raw, err == nil
}

// annotateItem adds facts to a content item's annotations. An item that is
// not an object, or whose annotations are not one, is a server's to keep
// as it sent it: the facts are in _meta as well.
func annotateItem(item json.RawMessage, facts map[string]string) json.RawMessage {
	trimmed := bytes.TrimSpace(item)
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return item
	}
	existing := gjson.GetBytes(trimmed, "annotations")
	if existing.Exists() {
		if existing.Type != gjson.Null && !existing.IsObject() {
			return item
		}
		return mergeAnnotations(trimmed, facts)
	}
	// The common case: splice the annotations in before the closing brace,
	// keeping the item's bytes and key order as the server sent them.
	ann, err := marshalJSON(facts)
	if err != nil {
		return item
	}
	body := bytes.TrimSpace(trimmed[:len(trimmed)-1])
	var out bytes.Buffer
	out.Grow(len(body) + len(ann) + 16)
	out.Write(body)
	if len(body) > 1 {
		out.WriteByte(',')
	}
	out.WriteString(`"annotations":`)
	out.Write(ann)
	out.WriteByte('}')
	return out.Bytes()
}

// mergeAnnotations sets facts among an item's own annotations.
func mergeAnnotations(item json.RawMessage, facts map[string]string) json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(item, &obj); err != nil || obj == nil {
		return item
	}
	ann := map[string]json.RawMessage{}
	if raw, ok := obj["annotations"]; ok && given(raw) {
		if err := json.Unmarshal(raw, &ann); err != nil || ann == nil {
			return item
		}
	}
	for k, v := range facts {
		quoted, err := marshalJSON(v)
		if err != nil {
			return item
		}
		ann[k] = quoted
	}
	merged, err := marshalJSON(ann)
	if err != nil {
		return item
	}
	obj["annotations"] = merged
	out, err := marshalJSON(obj)
	if err != nil {
		return item
	}
	return out
}

// proxyQueryResult is the Proxy Extension's answer to list or info: one
// embedded resource of JSON, annotated so that Magg's client decodes it.
func proxyQueryResult(pq *ProxyQueryResponse) (*mcp.CallToolResult, error) {
	uri := "proxy:list/" + pq.Type
	annotations := map[string]any{
		metaProxyAction: pq.Action,
		metaProxyType:   pq.Type,
		"pythonType":    pq.PythonType,
		"many":          pq.Action == "list",
	}
	if pq.Action == "info" {
		uri = "proxy:info/" + pq.Type + "/" + pq.Path
		annotations[metaProxyPath] = pq.Path
	} else {
		annotations["totalCount"] = pq.Total
		annotations["offset"] = pq.Offset
		annotations["limit"] = pq.Limit
		if pq.NextOffset > 0 {
			annotations["nextOffset"] = pq.NextOffset
		}
		if len(pq.Errors) > 0 {
			annotations["errors"] = pq.Errors
		}
	}
	text := pq.payloadJSON()
	item, err := marshalJSON(map[string]any{
		"type": "resource",
		"resource": map[string]any{
			"uri":      uri,
			"mimeType": "application/json",
			"text":     string(text),
		},
		"annotations": annotations,
	})
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", pq.Action, pq.Type, err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{rawContent{raw: item}}}, nil
}

// proxyCallResult is the Proxy Extension's answer to call type=resource
// (each content an embedded resource; one dispatch saved to a file stays
// its text description) or type=prompt (one embedded resource holding the
// GetPromptResult as JSON). It returns nil for anything else, and for a
// prompt result saved to a file, which keep dispatch's own form.
func proxyCallResult(resp any) (*mcp.CallToolResult, error) {
	switch r := resp.(type) {
	case *ResourceResponse:
		if r.Saved != nil {
			return nil, nil
		}
		result := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(r.Contents))}
		for _, content := range r.Contents {
			var item []byte
			var err error
			if gjson.GetBytes(content, "resultFile").Exists() {
				item, err = marshalJSON(map[string]any{"type": "text", "text": string(content)})
			} else {
				item, err = marshalJSON(map[string]any{"type": "resource", "resource": content})
			}
			if err != nil {
				return nil, fmt.Errorf("encode resource %s: %w", r.URI, err)
			}
			result.Content = append(result.Content, rawContent{raw: item})
		}
		ours := map[string]any{"connection": r.Connection, "uri": r.URI, "bytes": r.Bytes, "estimatedTokens": r.EstimatedTokens}
		if r.Hint != "" {
			ours["hint"] = r.Hint
		}
		result.Meta = mcp.NewMetaFromMap(map[string]any{"dispatch": ours})
		return result, nil
	case *PromptResponse:
		if r.Spill != nil {
			return nil, nil
		}
		got := map[string]any{"messages": r.Messages}
		if r.Description != "" {
			got["description"] = r.Description
		}
		text, err := marshalJSON(got)
		if err != nil {
			return nil, fmt.Errorf("encode prompt %s: %w", r.Prompt, err)
		}
		item, err := marshalJSON(map[string]any{
			"type":        "resource",
			"resource":    map[string]any{"uri": "proxy:" + r.Prompt, "mimeType": "application/json", "text": string(text)},
			"annotations": map[string]any{"pythonType": "GetPromptResult", "many": false},
		})
		if err != nil {
			return nil, fmt.Errorf("encode prompt %s: %w", r.Prompt, err)
		}
		ours := map[string]any{"connection": r.Connection, "prompt": r.Prompt, "bytes": r.Bytes, "estimatedTokens": r.EstimatedTokens}
		if r.Hint != "" {
			ours["hint"] = r.Hint
		}
		result := &mcp.CallToolResult{Content: []mcp.Content{rawContent{raw: item}}}
		result.Meta = mcp.NewMetaFromMap(map[string]any{"dispatch": ours})
		return result, nil
	}
	return nil, nil
}
