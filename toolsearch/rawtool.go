package toolsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Param is one input parameter of a tool: its name (nested properties are
// dotted, "entities.name") and its description.
type Param struct{ Name, Description string }

// Kinds of Doc. The zero Kind is a tool, so that a Doc built by hand or by
// DocFromRaw needs no kind.
const (
	KindTool     = ""
	KindResource = "resource"
	KindTemplate = "template" // a resource template: URI holds the uriTemplate
	KindPrompt   = "prompt"
)

// Doc is what the index knows about one tool, resource, resource template or
// prompt.
type Doc struct {
	Connection string // the connection the tool belongs to, e.g. "c1"; opaque here
	// Kind is KindTool (empty), KindResource, KindTemplate or KindPrompt.
	Kind string
	// URI is a resource's uri or a template's uriTemplate; empty otherwise.
	URI string
	// MimeType is a resource's or template's mimeType; empty otherwise.
	MimeType string
	Name     string
	Title    string
	// Description is the tool's description as published.
	Description string
	Params      []Param
	// Annotations holds the names of the boolean annotation hints that are
	// true, e.g. "readOnlyHint"; the annotation title goes in Title.
	Annotations []string
}

// maxParamDepth bounds how deep DocFromRaw descends into nested schemas.
const maxParamDepth = 3

// rawTool is the subset of an MCP tool object the index reads.
type rawTool struct {
	Name        string                     `json:"name"`
	Title       string                     `json:"title"`
	Description string                     `json:"description"`
	InputSchema json.RawMessage            `json:"inputSchema"`
	Annotations map[string]json.RawMessage `json:"annotations"`
}

type rawSchema struct {
	Description string                `json:"description"`
	Properties  map[string]*rawSchema `json:"properties"`
	Items       *rawSchema            `json:"items"`
	Enum        []any                 `json:"enum"`
}

// DocFromRaw turns a raw MCP tool object (as listed by tools/list) into a
// Doc: name; title (or annotations.title); description; the names and
// descriptions of inputSchema properties, nested ones dotted, with string
// enum values appended to the description; and the annotation hints that are
// true.
func DocFromRaw(connection string, raw json.RawMessage) (Doc, error) {
	var t rawTool
	if err := json.Unmarshal(raw, &t); err != nil {
		// A member nested too deep costs the tool that member, not its
		// place in the index.
		shallow, shallowErr := withoutDeepMembers(raw)
		if shallowErr != nil || json.Unmarshal(shallow, &t) != nil {
			return Doc{}, fmt.Errorf("decode tool: %w", err)
		}
	}
	if t.Name == "" {
		return Doc{}, errors.New("decode tool: missing name")
	}
	d := Doc{Connection: connection, Name: t.Name, Title: t.Title, Description: t.Description}
	if title, ok := t.Annotations["title"]; ok && d.Title == "" {
		// A non-string title is ignored rather than failing the tool.
		var s string
		if json.Unmarshal(title, &s) == nil {
			d.Title = s
		}
	}
	for _, k := range sortedKeys(t.Annotations) {
		var b bool
		if k != "title" && json.Unmarshal(t.Annotations[k], &b) == nil && b {
			d.Annotations = append(d.Annotations, k)
		}
	}
	if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
		var s rawSchema
		// A schema the index cannot read costs the tool its parameters, not
		// its place in the index.
		if json.Unmarshal(t.InputSchema, &s) == nil {
			d.Params = appendParams(d.Params, "", &s, 0)
		}
	}
	return d, nil
}

func appendParams(params []Param, prefix string, s *rawSchema, depth int) []Param {
	if s == nil || depth >= maxParamDepth {
		return params
	}
	for s.Items != nil && s.Properties == nil {
		s = s.Items
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		full := name
		if prefix != "" {
			full = prefix + "." + name
		}
		desc := p.Description
		if enum := enumText(p); enum != "" {
			desc = strings.TrimSpace(desc + " " + enum)
		}
		params = append(params, Param{Name: full, Description: desc})
		params = appendParams(params, full, p, depth+1)
	}
	return params
}

// enumText lists a property's string enum values (or its items' values).
func enumText(s *rawSchema) string {
	enum := s.Enum
	if len(enum) == 0 && s.Items != nil {
		enum = s.Items.Enum
	}
	var words []string
	for _, v := range enum {
		if str, ok := v.(string); ok {
			words = append(words, str)
		}
	}
	return strings.Join(words, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortStrings(s []string) { sort.Strings(s) }
