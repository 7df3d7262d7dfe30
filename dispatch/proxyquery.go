package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"dispatch/connections"
)

// ProxyQueryResponse answers list and info in the Proxy Extension's shape
// (see Request.ProxyShaped): the MCP objects as their servers published
// them, which the MCP server wraps in one embedded JSON resource.
type ProxyQueryResponse struct {
	Action string
	Type   string
	// Path is what info named; empty for list.
	Path string
	// Items is list's page of objects; Item is info's one object.
	Items []json.RawMessage
	Item  json.RawMessage
	// PythonType is the spec's name of the objects' type, which Magg's
	// client checks before it decodes them.
	PythonType string
	// Total, Offset and Limit page a list, as Magg's own list does.
	Total      int
	Offset     int64
	Limit      int
	NextOffset int64
	// Errors names the connections whose catalog could not be had, and
	// why: a list leaves their objects out rather than fail.
	Errors map[string]string
}

// payloadJSON is the JSON the answer carries: info's object, or list's
// array of them. The objects are valid JSON as their servers published
// them (the catalogs checked them), so they are joined as they are:
// encoding/json would check each again and refuse one nested past 10,000
// levels, failing the whole list for one deep tool schema.
func (pq *ProxyQueryResponse) payloadJSON() []byte {
	if pq.Action == "info" {
		return pq.Item
	}
	size := 2
	for _, item := range pq.Items {
		size += len(item) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, item := range pq.Items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, item...)
	}
	return append(out, ']')
}

// pythonTypes are the names Magg's client compares with: pydantic's class
// names, and for a list of resources the union's own string.
var pythonTypes = map[string]string{
	TypeTool:     "Tool",
	TypeResource: "mcp.types.Resource | mcp.types.ResourceTemplate",
	TypePrompt:   "Prompt",
}

// rawCatalog is one connection's published objects of one type.
type rawCatalog struct {
	conn  *connections.Conn
	items []json.RawMessage
	err   error
}

// publishedObjects returns conn's objects of typ, as its server published
// them (tools, resources followed by resource templates, or prompts).
func publishedObjects(ctx context.Context, conn *connections.Conn, typ string, refresh bool) ([]json.RawMessage, error) {
	switch typ {
	case TypeResource:
		resources, err := conn.Resources(ctx, refresh)
		if err != nil {
			return nil, err
		}
		templates, err := conn.ResourceTemplates(ctx, refresh)
		if err != nil {
			return nil, err
		}
		return append(resources[:len(resources):len(resources)], templates...), nil
	case TypePrompt:
		return conn.Prompts(ctx, refresh)
	}
	return conn.Tools(ctx, refresh)
}

// rawCatalogs fetches the objects of typ from conns concurrently; a server
// that cannot be reached contributes its error.
func rawCatalogs(ctx context.Context, conns []*connections.Conn, typ string, refresh bool) []rawCatalog {
	out := make([]rawCatalog, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].conn = c
			out[i].items, out[i].err = publishedObjects(ctx, c, typ, refresh)
		}()
	}
	wg.Wait()
	return out
}

// ProxyQuery answers list or info in the Proxy Extension's shape.
func (s *Service) ProxyQuery(ctx context.Context, req Request) (*ProxyQueryResponse, error) {
	typ := req.ProxyType()
	if req.Action == "info" {
		return s.proxyInfo(ctx, req, typ)
	}
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	conns = filterServer(conns, req.FilterServer)
	limit := DefaultListLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	resp := &ProxyQueryResponse{Action: "list", Type: typ, PythonType: pythonTypes[typ], Offset: req.Offset, Limit: limit, Items: []json.RawMessage{}}
	for _, cat := range rawCatalogs(ctx, conns, typ, req.Refresh) {
		if cat.err != nil {
			if resp.Errors == nil {
				resp.Errors = map[string]string{}
			}
			resp.Errors[cat.conn.Alias] = cat.err.Error()
			continue
		}
		for _, item := range cat.items {
			if int64(resp.Total) >= req.Offset && len(resp.Items) < limit {
				resp.Items = append(resp.Items, item)
			}
			resp.Total++
		}
	}
	if next := req.Offset + int64(len(resp.Items)); next < int64(resp.Total) {
		resp.NextOffset = next
	}
	return resp, nil
}

func (s *Service) proxyInfo(ctx context.Context, req Request, typ string) (*ProxyQueryResponse, error) {
	target, _ := req.nameField()
	resp := &ProxyQueryResponse{Action: "info", Type: typ, Path: *target, PythonType: pythonTypes[typ]}
	if typ == TypeTool {
		q := s.qualifyTool(ctx, req)
		_, def, err := s.resolveTool(ctx, q.Connection, q.Tool)
		if err != nil {
			return nil, err
		}
		resp.Item = def.Raw
		return resp, nil
	}
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	item, err := findPublished(rawCatalogs(ctx, conns, typ, false), typ, *target)
	if err != nil {
		return nil, err
	}
	resp.Item = item
	if typ == TypeResource {
		resp.PythonType = "Resource"
		var probe struct {
			URITemplate *string `json:"uriTemplate"`
		}
		if json.Unmarshal(item, &probe) == nil && probe.URITemplate != nil {
			resp.PythonType = "ResourceTemplate"
		}
	}
	return resp, nil
}

// findPublished finds the one object named name: a prompt by its name, a
// resource by its uri, uriTemplate or name, else a template that expands to
// name (as info with "uri" finds it). A name found on several connections
// at the same rank is ambiguous; none found names the closest.
func findPublished(cats []rawCatalog, typ, name string) (json.RawMessage, error) {
	type found struct {
		item  json.RawMessage
		alias string
	}
	var ranks [2][]found
	var keys []string
	var failed []string
	for _, cat := range cats {
		if cat.err != nil {
			failed = append(failed, cat.conn.Alias+": "+cat.err.Error())
			continue
		}
		exact, expands := false, false
		for _, item := range cat.items {
			var key struct {
				Name        string `json:"name"`
				URI         string `json:"uri"`
				URITemplate string `json:"uriTemplate"`
			}
			if json.Unmarshal(item, &key) != nil {
				continue
			}
			if k := key.URI + key.URITemplate; typ != TypePrompt && k != "" {
				keys = append(keys, k)
			} else if typ == TypePrompt && key.Name != "" {
				keys = append(keys, key.Name)
			}
			switch {
			case typ == TypePrompt:
				if key.Name == name && !exact {
					exact = true
					ranks[0] = append(ranks[0], found{item, cat.conn.Alias})
				}
			default:
				if (key.URI == name || key.URITemplate == name || key.Name == name) && !exact {
					exact = true
					ranks[0] = append(ranks[0], found{item, cat.conn.Alias})
				} else if key.URITemplate != "" && !expands {
					if _, ok := matchTemplate(key.URITemplate, name); ok {
						expands = true
						ranks[1] = append(ranks[1], found{item, cat.conn.Alias})
					}
				}
			}
		}
	}
	for _, matches := range ranks {
		switch len(matches) {
		case 0:
			continue
		case 1:
			return matches[0].item, nil
		}
		where := make([]string, len(matches))
		for i, m := range matches {
			where[i] = m.alias
		}
		return nil, usagef(fmt.Sprintf(`Add "connection": one of %s`, quoteAll(where)), "%s %q is offered by %d connections", typ, name, len(where))
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s %q not found; some servers could not be asked: %v", typ, name, failed)
	}
	hint := fmt.Sprintf(`Run {"action":"list","type":%q} to see them`, typ)
	if close := closest(name, keys, 5); len(close) > 0 {
		hint = fmt.Sprintf(`Did you mean %s? {"action":"list","type":%q} lists them all`, strings.Join(quoted(close), ", "), typ)
	}
	return nil, usagef(hint, "no %s %q on any connection", typ, name)
}
