package dispatch

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"dispatch/connections"
)

// resourceDef is one resource or resource template as dispatch needs it;
// Raw keeps it exactly as the server published it, for info.
type resourceDef struct {
	URI         string // a resource's; empty for a template
	URITemplate string // a template's; empty for a resource
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Raw         json.RawMessage
}

// Key is the URI, or the template.
func (d resourceDef) Key() string {
	if d.URITemplate != "" {
		return d.URITemplate
	}
	return d.URI
}

func parseResourceDef(raw json.RawMessage) (resourceDef, bool) {
	var r struct {
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		MIMEType    string `json:"mimeType"`
		Size        *int64 `json:"size"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || (r.URI == "") == (r.URITemplate == "") {
		return resourceDef{}, false
	}
	return resourceDef{URI: r.URI, URITemplate: r.URITemplate, Name: r.Name, Title: r.Title,
		Description: r.Description, MIMEType: r.MIMEType, Size: r.Size, Raw: raw}, true
}

// promptDef is one prompt; Raw keeps it as published.
type promptDef struct {
	Name        string
	Title       string
	Description string
	Args        []paramDef
	Raw         json.RawMessage
}

func parsePromptDef(raw json.RawMessage) (promptDef, bool) {
	var p struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Arguments   []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.Name == "" {
		return promptDef{}, false
	}
	def := promptDef{Name: p.Name, Title: p.Title, Description: p.Description, Raw: raw}
	for _, a := range p.Arguments {
		if a.Name != "" {
			def.Args = append(def.Args, paramDef{Name: a.Name, Required: a.Required})
		}
	}
	return def, true
}

// Signature renders the arguments as a tool's parameters are: required
// ones bare, optional ones with a question mark.
func (d promptDef) Signature() string {
	return toolDef{Params: d.Args}.Signature(false)
}

// sideCatalog is one connection's resources and templates, or prompts,
// or why they could not be had.
type sideCatalog struct {
	conn      *connections.Conn
	resources []resourceDef // resources, then templates
	prompts   []promptDef
	err       error
}

// resourceCatalogs fetches the resources and templates of conns
// concurrently; a server that cannot be reached contributes its error.
func resourceCatalogs(ctx context.Context, conns []*connections.Conn, refresh bool) []sideCatalog {
	return eachConn(conns, refresh, func(c *connections.Conn) sideCatalog {
		cat := sideCatalog{conn: c}
		resources, err := c.Resources(ctx, refresh)
		if err != nil {
			cat.err = err
			return cat
		}
		templates, err := c.ResourceTemplates(ctx, refresh)
		if err != nil {
			cat.err = err
			return cat
		}
		for _, raw := range append(append([]json.RawMessage{}, resources...), templates...) {
			if def, ok := parseResourceDef(raw); ok {
				cat.resources = append(cat.resources, def)
			}
		}
		return cat
	})
}

// promptCatalogs fetches the prompts of conns concurrently.
func promptCatalogs(ctx context.Context, conns []*connections.Conn, refresh bool) []sideCatalog {
	return eachConn(conns, refresh, func(c *connections.Conn) sideCatalog {
		cat := sideCatalog{conn: c}
		prompts, err := c.Prompts(ctx, refresh)
		if err != nil {
			cat.err = err
			return cat
		}
		for _, raw := range prompts {
			if def, ok := parsePromptDef(raw); ok {
				cat.prompts = append(cat.prompts, def)
			}
		}
		return cat
	})
}

// eachConn fetches a catalog of every conn, concurrently where a server
// must be asked: one whose catalogs are at hand answers inline.
func eachConn(conns []*connections.Conn, refresh bool, fetch func(*connections.Conn) sideCatalog) []sideCatalog {
	out := make([]sideCatalog, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		if !refresh && c.CatalogsAtHand() {
			out[i] = fetch(c)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fetch(c)
		}()
	}
	wg.Wait()
	return out
}

// unreachable lists the errors of the catalogs that could not be had.
func unreachable(cats []sideCatalog) []string {
	var errs []string
	for _, cat := range cats {
		if cat.err != nil {
			errs = append(errs, cat.err.Error())
		}
	}
	return errs
}

// cachedAliases are the connections answered from the catalog cache.
func cachedAliases(cats []sideCatalog) []string {
	var aliases []string
	for _, cat := range cats {
		if cat.err == nil && cat.conn.State().Catalog == connections.CatalogCache {
			aliases = append(aliases, cat.conn.Alias)
		}
	}
	return aliases
}

// maxComparedName is the longest name closest compares (see README).
const maxComparedName = 512

// closest returns up to n of names close to want, best first, scored as
// tool names are (see suggest). Only names of a sensible length are
// compared: edit distance costs the product of the lengths.
func closest(want string, names []string, n int) []string {
	if len(want) > maxComparedName {
		return nil
	}
	type scored struct {
		name  string
		score float64
	}
	var all []scored
	lw := strings.ToLower(want)
	for _, name := range names {
		if len(name) > maxComparedName {
			continue
		}
		ln := strings.ToLower(name)
		score := 1 - float64(editDistance(lw, ln))/float64(max(len(lw), len(ln), 1))
		if strings.Contains(ln, lw) || strings.Contains(lw, ln) {
			score += 0.5
		}
		score += 0.3 * tokenOverlap(lw, ln)
		if score >= 0.5 {
			all = append(all, scored{name, score})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var out []string
	for i := 0; i < len(all) && len(out) < n; i++ {
		if i > 0 && all[i].name == all[i-1].name {
			continue
		}
		out = append(out, all[i].name)
	}
	return out
}
