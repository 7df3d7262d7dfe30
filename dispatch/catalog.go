package dispatch

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"dispatch/connections"
)

// toolDef is what dispatch needs to know of one downstream tool; Raw keeps
// the definition exactly as the server published it, for info.
type toolDef struct {
	Name        string
	Title       string
	Description string
	Params      []paramDef
	Annotations map[string]any
	// RunsAsTask: the server requires the tool to be called as a task
	// (execution.taskSupport "required"), and dispatch does so.
	RunsAsTask bool
	Raw        json.RawMessage
}

type paramDef struct {
	Name     string
	Type     string
	Required bool
}

func parseToolDef(raw json.RawMessage) (toolDef, bool) {
	var t struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Annotations map[string]any  `json:"annotations"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Execution   struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
		return toolDef{}, false
	}
	// A schema dispatch cannot read costs the tool its parameters, not its
	// place in the catalog (toolsearch.DocFromRaw does the same).
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		// Keep the properties if only "required" was malformed.
		var props struct {
			Properties json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(t.InputSchema, &props); err != nil {
			props.Properties = nil
		}
		schema.Properties, schema.Required = props.Properties, nil
	}
	def := toolDef{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations,
		RunsAsTask: t.Execution.TaskSupport == "required", Raw: raw}
	if def.Title == "" {
		if title, ok := t.Annotations["title"].(string); ok {
			def.Title = title
		}
	}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	var props map[string]struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema.Properties, &props); err != nil {
		props = nil // a schema without usable properties still names the tool
	}
	for _, name := range propertyNamesInOrder(schema.Properties) {
		def.Params = append(def.Params, paramDef{Name: name, Type: typeName(props[name].Type), Required: required[name]})
	}
	return def, true
}

// propertyNamesInOrder keeps the schema's own order of parameters: authors
// put the important ones first.
func propertyNamesInOrder(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		name, ok := tok.(string)
		if !ok {
			return names
		}
		names = append(names, name)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return names
		}
	}
	return names
}

func typeName(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, p := range v {
			if s, ok := p.(string); ok && s != "null" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}

// Signature renders the parameters compactly: "path, content?, mode?" —
// required ones bare, optional ones with a question mark — so that a search
// hit usually tells the agent enough to call the tool without info.
func (d toolDef) Signature(withTypes bool) string {
	parts := make([]string, 0, len(d.Params))
	for _, p := range d.Params {
		s := p.Name
		if !p.Required {
			s += "?"
		}
		if withTypes && p.Type != "" {
			s += ": " + p.Type
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// maxSummaryLen bounds a one-line description.
const maxSummaryLen = 160

// Summary is the description's first sentence or line, at most
// maxSummaryLen bytes, cut on a word boundary with an ellipsis.
func (d toolDef) Summary() string {
	return summarize(d.Description, maxSummaryLen)
}

func summarize(text string, max int) string {
	s := strings.TrimSpace(text)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if i := sentenceEnd(s); i >= 0 {
		s = s[:i+1]
	}
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], ' ')
	if cut < max/2 {
		cut = max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sentenceEnd returns the index of the period that ends the first sentence
// of s, or -1. "e.g. ", "i.e. ", "etc. ", initials ("U.S. ") and a period
// followed by a lowercase word do not end one: cutting there leaves a
// summary like "Open a PR, e.g."
func sentenceEnd(s string) int {
	for from := 0; ; {
		j := strings.Index(s[from:], ". ")
		if j < 0 {
			return -1
		}
		i := from + j
		from = i + 2
		word := s[strings.LastIndexAny(s[:i], " (\"'")+1 : i]
		if abbreviations[strings.ToLower(word)] || len(word) == 1 || strings.Contains(word, ".") {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(strings.TrimLeft(s[from:], " ")); unicode.IsLower(next) {
			continue
		}
		return i
	}
}

// abbreviations end in a period without ending a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "incl": true,
	"esp": true, "ex": true, "no": true, "max": true, "min": true, "dr": true, "mr": true, "mrs": true, "ms": true,
}

// toolDefCache holds the parsed form of each connection's raw catalog. A
// catalog is replaced, never modified, when it changes (connections.Conn
// swaps in a new slice), so the identity of the raw slice says whether a
// parsed entry is still current.
type toolDefCache struct {
	mu      sync.Mutex
	entries map[*connections.Conn]parsedCatalog
}

type parsedCatalog struct {
	first *json.RawMessage // &raw[0] of the slice parsed; nil when empty
	n     int
	tools []toolDef
}

// tools returns raw parsed, from the cache when raw is the slice parsed
// last time for conn. The result is shared: callers must not modify it.
func (c *toolDefCache) tools(conn *connections.Conn, raw []json.RawMessage) []toolDef {
	var first *json.RawMessage
	if len(raw) > 0 {
		first = &raw[0]
	}
	c.mu.Lock()
	e, ok := c.entries[conn]
	c.mu.Unlock()
	if ok && e.first == first && e.n == len(raw) {
		return e.tools
	}
	var tools []toolDef
	for _, r := range raw {
		if def, ok := parseToolDef(r); ok {
			tools = append(tools, def)
		}
	}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[*connections.Conn]parsedCatalog{}
	}
	c.entries[conn] = parsedCatalog{first: first, n: len(raw), tools: tools}
	c.mu.Unlock()
	return tools
}

// prune forgets the connections not in live: a new config file replaces
// connections, and their parsed catalogs must not be kept for the life of
// the process.
func (c *toolDefCache) prune(live []*connections.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) <= len(live) {
		return
	}
	keep := make(map[*connections.Conn]bool, len(live))
	for _, conn := range live {
		keep[conn] = true
	}
	for conn := range c.entries {
		if !keep[conn] {
			delete(c.entries, conn)
		}
	}
}
