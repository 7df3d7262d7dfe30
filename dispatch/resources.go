package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"dispatch/connections"
)

// SideListResponse answers list type=resource and type=prompt: one page
// of entries over every connection (or the one asked for).
type SideListResponse struct {
	Resources  []ResourceEntry `json:"resources,omitempty"`
	Prompts    []PromptEntry   `json:"prompts,omitempty"`
	Total      int64           `json:"total"`
	NextOffset int64           `json:"nextOffset,omitempty"`
	// Unreachable are the connections that could not be asked, with why.
	Unreachable []string `json:"unreachable,omitempty"`
	Hint        string   `json:"hint,omitempty"`
	// PastEnd: see ListResponse.
	PastEnd bool `json:"-"`
	// Kind names the entries ("resources", "prompts"), for the CLI's
	// own wording of the hint.
	Kind string `json:"-"`
}

// ResourceEntry is one resource (URI) or resource template (URITemplate).
type ResourceEntry struct {
	Connection  string `json:"connection"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"` // detail format
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	Description string `json:"description,omitempty"`
}

// ListResources answers list type=resource: resources, then templates, of
// each connection in turn.
func (s *Service) ListResources(ctx context.Context, req Request) (*SideListResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := resourceCatalogs(ctx, conns, req.Refresh)
	resp := &SideListResponse{Resources: []ResourceEntry{}, Unreachable: unreachable(cats)}
	limit := listLimit(req)
	for _, cat := range cats {
		for _, d := range cat.resources {
			if resp.Total >= req.Offset && len(resp.Resources) < limit {
				resp.Resources = append(resp.Resources, resourceEntry(cat.conn, d, req.Format == "detail"))
			}
			resp.Total++
		}
	}
	page(resp, req, int64(len(resp.Resources)), "resources", cats)
	return resp, nil
}

func resourceEntry(c *connections.Conn, d resourceDef, detail bool) ResourceEntry {
	e := ResourceEntry{Connection: c.Alias, URI: d.URI, URITemplate: d.URITemplate, Name: d.Name, MIMEType: d.MIMEType, Size: d.Size}
	if detail {
		e.Title, e.Description = d.Title, d.Description
	} else {
		e.Description = summarize(d.Description, maxSummaryLen)
	}
	return e
}

func listLimit(req Request) int {
	if req.Limit != nil {
		return *req.Limit
	}
	return DefaultListLimit
}

// page sets the paging fields and hints of a side list whose page holds
// shown entries; what names the entries ("resources", "prompts").
func page(resp *SideListResponse, req Request, shown int64, what string, cats []sideCatalog) {
	resp.Kind = what
	if next := req.Offset + shown; next < resp.Total {
		resp.NextOffset = next
		resp.Hint = fmt.Sprintf("More %s: repeat with \"offset\": %d", what, next)
	}
	if req.Offset > 0 && req.Offset >= resp.Total {
		resp.PastEnd = true
		resp.Hint = strings.Replace(pastEndHint(req.Offset, resp.Total), "tools", what, 1)
		return
	}
	if resp.Total == 0 && len(resp.Unreachable) == 0 {
		resp.Hint = noneOffered(what, req.Connection, cats)
	}
}

// noneOffered explains an empty list: no server offers any, or the one
// asked for does not.
func noneOffered(what, connKey string, cats []sideCatalog) string {
	if connKey != "" && len(cats) == 1 {
		return fmt.Sprintf("%s offers no %s", describeConn(cats[0].conn), what)
	}
	return fmt.Sprintf(`No connection offers %s. {"action":"list"} shows the connections and their tools`, what)
}

// ResourceInfoResponse answers info type=resource: the resource or
// template exactly as its server published it and, for a template, its
// variables with the values the server completes them to.
type ResourceInfoResponse struct {
	Connection string          `json:"connection"`
	Server     string          `json:"server,omitempty"`
	Resource   json.RawMessage `json:"resource,omitempty"`
	Template   json.RawMessage `json:"template,omitempty"`
	// Variables of the template, in order.
	Variables []TemplateVariable `json:"variables,omitempty"`
	// Matched holds the variables' values when the URI asked for is an
	// expansion of the template rather than the template itself.
	Matched map[string]string `json:"matched,omitempty"`
	// CompletionError says why the variables have no completions.
	CompletionError string `json:"completionError,omitempty"`
}

// TemplateVariable is one variable of a URI template.
type TemplateVariable struct {
	Name string `json:"name"`
	// Completions are values the server offers for it, when it offers
	// completion/complete; More says it has more than these.
	Completions []string `json:"completions,omitempty"`
	More        bool     `json:"more,omitempty"`
}

// InfoResource answers info type=resource for a resource URI, a template,
// or a URI one template matches.
func (s *Service) InfoResource(ctx context.Context, req Request) (*ResourceInfoResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	cats := resourceCatalogs(ctx, conns, req.Refresh)
	m, err := findResource(req.URI, cats)
	if err != nil {
		return nil, err
	}
	resp := &ResourceInfoResponse{Connection: m.conn.Alias, Server: m.conn.Config.Name}
	if m.def.URITemplate == "" {
		resp.Resource = m.def.Raw
		return resp, nil
	}
	resp.Template = m.def.Raw
	resp.Matched = m.values
	tmpl, err := parseTemplate(m.def.URITemplate)
	if err != nil {
		resp.CompletionError = err.Error()
		return resp, nil
	}
	for _, name := range tmpl.Varnames() {
		resp.Variables = append(resp.Variables, TemplateVariable{Name: name})
	}
	resp.CompletionError = completeVariables(ctx, m.conn, m.def.URITemplate, resp.Variables)
	return resp, nil
}

// resourceMatch is where a URI was found.
type resourceMatch struct {
	conn   *connections.Conn
	def    resourceDef
	values map[string]string // set when the URI expands the template
}

// findResource finds uri among cats: a resource with that URI, else a
// template written so, else a template that expands to it. A URI found on
// several connections at the same rank is ambiguous.
func findResource(uri string, cats []sideCatalog) (resourceMatch, error) {
	ranks := [3][]resourceMatch{}
	for _, cat := range cats {
		for _, d := range cat.resources {
			switch {
			case d.URI == uri:
				ranks[0] = append(ranks[0], resourceMatch{conn: cat.conn, def: d})
			case d.URITemplate == uri:
				ranks[1] = append(ranks[1], resourceMatch{conn: cat.conn, def: d})
			case d.URITemplate != "":
				if values, ok := matchTemplate(d.URITemplate, uri); ok {
					ranks[2] = append(ranks[2], resourceMatch{conn: cat.conn, def: d, values: values})
				}
			}
		}
	}
	for _, matches := range ranks {
		switch {
		case len(matches) == 1:
			return matches[0], nil
		case len(matches) > 1:
			return resourceMatch{}, ambiguous("resource", "uri", uri, matches)
		}
	}
	return resourceMatch{}, notFound("resource", "uri", uri, cats)
}

func ambiguous(what, param, name string, matches []resourceMatch) error {
	var where []string
	for _, m := range matches {
		where = append(where, describeConn(m.conn)+" as "+m.def.Key())
	}
	alias := matches[0].conn.Alias
	return usageBoth(fmt.Sprintf(`Add "connection":%q (or another of them)`, alias),
		fmt.Sprintf("Add -C %s (or another of them)", shellQuote(alias)),
		"%s %s %q is offered by %d connections: %s", what, param, name, len(matches), strings.Join(where, ", "))
}

// notFound explains a URI or prompt no connection offers: the closest
// names, the connections that could not be asked, and whether any offers
// such things at all.
func notFound(what, param, name string, cats []sideCatalog) error {
	var names []string
	offered := false
	for _, cat := range cats {
		for _, d := range cat.resources {
			names = append(names, d.Key())
		}
		for _, p := range cat.prompts {
			names = append(names, p.Name)
		}
		offered = offered || len(cat.resources)+len(cat.prompts) > 0
	}
	errs := unreachable(cats)
	if len(cats) == 1 && errs != nil {
		return cats[0].err
	}
	plural := what + "s"
	if !offered && len(errs) == 0 {
		if len(cats) == 1 {
			return usagef(`{"action":"list","type":"`+what+`"} lists what every connection offers`, "%s offers no %s", describeConn(cats[0].conn), plural)
		}
		return usagef(`{"action":"list"} shows the connections and their tools`, "no connection offers %s", plural)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no %s with %s %q", what, param, name)
	if close := closest(name, names, 5); len(close) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", strings.Join(quoted(close), ", "))
	} else {
		fmt.Fprintf(&b, `; {"action":"list","type":%q} lists them`, what)
	}
	if len(errs) > 0 {
		fmt.Fprintf(&b, "; could not ask %s: %s", strings.Join(unreachableAliases(errs), ", "), strings.Join(errs, "; "))
	}
	if cached := cachedAliases(cats); len(cached) > 0 {
		fmt.Fprintf(&b, ` (the %s of %s come from the catalog cache: if it is new, refresh them with {"action":"list","type":%q,"refresh":true})`, plural, strings.Join(cached, ", "), what)
	}
	return &UsageError{Msg: b.String()}
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
