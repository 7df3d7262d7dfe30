package dispatch

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"

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

// parseToolDef reads what list and search show of a tool. It reads the
// definition as encoding/json would into the fields it names (member
// names matched case-insensitively, the last of a repeated one winning, a
// member of the wrong type failing the tool), but with gjson, skimming
// the input schema for its parameters instead of decoding it: list parses
// every tool of every server on each run.
func parseToolDef(raw json.RawMessage) (toolDef, bool) {
	if !gjson.ValidBytes(raw) {
		return toolDef{}, false
	}
	top := gjson.ParseBytes(raw)
	if !top.IsObject() {
		return toolDef{}, false
	}
	def := toolDef{Raw: raw}
	var schema gjson.Result
	ok := true
	top.ForEach(func(key, value gjson.Result) bool {
		switch {
		case strings.EqualFold(decodedString(key), "name"):
			def.Name, ok = gjsonString(value, def.Name)
		case strings.EqualFold(decodedString(key), "title"):
			def.Title, ok = gjsonString(value, def.Title)
		case strings.EqualFold(decodedString(key), "description"):
			def.Description, ok = gjsonString(value, def.Description)
		case strings.EqualFold(decodedString(key), "annotations"):
			if value.Type == gjson.Null {
				break
			}
			ok = value.IsObject() && json.Unmarshal([]byte(value.Raw), &def.Annotations) == nil
		case strings.EqualFold(decodedString(key), "inputSchema"):
			schema = value
		case strings.EqualFold(decodedString(key), "execution"):
			ok = readExecution(value, &def.RunsAsTask)
		}
		return ok
	})
	if !ok || def.Name == "" {
		return toolDef{}, false
	}
	if def.Title == "" {
		if title, ok := def.Annotations["title"].(string); ok {
			def.Title = title
		}
	}
	def.Params = schemaParams(schema)
	return def, true
}

// gjsonString is value as a Go string field reads it: a string, or null
// leaving old as it was; anything else fails.
func gjsonString(value gjson.Result, old string) (string, bool) {
	switch value.Type {
	case gjson.String:
		return decodedString(value), true
	case gjson.Null:
		return old, true
	}
	return old, false
}

// decodedString is a JSON string (a value or a member name) as
// encoding/json decodes it: gjson's own reading is taken when the string
// has no escape and is valid UTF-8, where the two cannot differ.
func decodedString(r gjson.Result) string {
	if !strings.ContainsRune(r.Raw, '\\') && utf8.ValidString(r.Str) {
		return r.Str
	}
	var s string
	if json.Unmarshal([]byte(r.Raw), &s) != nil {
		return r.Str
	}
	return s
}

// readExecution reads execution.taskSupport: "required" means the tool
// runs as a task. execution must be an object (or null) and taskSupport a
// string (or null).
func readExecution(value gjson.Result, runsAsTask *bool) bool {
	if value.Type == gjson.Null {
		return true
	}
	if !value.IsObject() {
		return false
	}
	ok := true
	value.ForEach(func(key, v gjson.Result) bool {
		if strings.EqualFold(decodedString(key), "taskSupport") {
			var support string
			if support, ok = gjsonString(v, ""); ok && v.Type != gjson.Null {
				*runsAsTask = support == "required"
			}
		}
		return ok
	})
	return ok
}

// schemaParams lists the parameters of an input schema in its own order:
// authors put the important ones first. A schema dispatch cannot read
// costs the tool its parameters, not its place in the catalog
// (toolsearch.DocFromRaw does the same); a malformed "required" costs only
// the required marks, and a property that is not an object every type.
func schemaParams(schema gjson.Result) []paramDef {
	if !schema.IsObject() {
		return nil
	}
	var properties gjson.Result
	required := map[string]bool{}
	requiredOK := true
	schema.ForEach(func(key, value gjson.Result) bool {
		switch {
		case strings.EqualFold(decodedString(key), "properties"):
			properties = value
		case strings.EqualFold(decodedString(key), "required"):
			clear(required)
			requiredOK = value.Type == gjson.Null || value.IsArray()
			value.ForEach(func(_, name gjson.Result) bool {
				requiredOK = requiredOK && (name.Type == gjson.String || name.Type == gjson.Null)
				required[decodedString(name)] = true
				return true
			})
		}
		return true
	})
	if !requiredOK {
		required = nil
	}
	if !properties.IsObject() {
		return nil
	}
	var params []paramDef
	types := map[string]string{}
	typesOK := true
	properties.ForEach(func(key, value gjson.Result) bool {
		name := decodedString(key)
		params = append(params, paramDef{Name: name, Required: required[name]})
		switch {
		case value.IsObject():
			types[name] = ""
			value.ForEach(func(k, v gjson.Result) bool {
				if strings.EqualFold(decodedString(k), "type") {
					types[name] = gjsonTypeName(v)
				}
				return true
			})
		case value.Type == gjson.Null:
			types[name] = ""
		default:
			typesOK = false
		}
		return true
	})
	if typesOK {
		for i := range params {
			params[i].Type = types[params[i].Name]
		}
	}
	return params
}

// gjsonTypeName is typeName of a schema's "type" as gjson reads it.
func gjsonTypeName(t gjson.Result) string {
	switch {
	case t.Type == gjson.String:
		return decodedString(t)
	case t.IsArray():
		var parts []string
		t.ForEach(func(_, p gjson.Result) bool {
			if p.Type == gjson.String && decodedString(p) != "null" {
				parts = append(parts, decodedString(p))
			}
			return true
		})
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
