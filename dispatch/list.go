package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"dispatch/connections"
)

// ListResponse answers action list.
type ListResponse struct {
	Connections []ConnectionEntry `json:"connections"`
	// Tools is set when tools are listed one per entry (includeTools, or a
	// connection filter): paginated with limit and offset.
	Tools      []ToolEntry `json:"tools,omitempty"`
	TotalTools int         `json:"totalTools"`
	NextOffset int64       `json:"nextOffset,omitempty"`
	Hint       string      `json:"hint,omitempty"`
	// PastEnd says the offset asked for was at or past the last tool, so
	// the CLI can say so in its own terms; the agent reads Hint.
	PastEnd bool `json:"-"`
}

// ConnectionEntry describes one server without any of its config: no
// command, URL or credential is ever shown.
type ConnectionEntry struct {
	Alias        string   `json:"alias"`
	Name         string   `json:"name,omitempty"`
	ID           string   `json:"id,omitempty"`        // detail format
	Transport    string   `json:"transport,omitempty"` // detail format
	Status       string   `json:"status"`
	Server       string   `json:"server,omitempty"`
	ToolCount    int      `json:"toolCount"`
	ToolNames    []string `json:"toolNames,omitempty"`
	Error        string   `json:"error,omitempty"`
	Instructions string   `json:"instructions,omitempty"`
	Restarts     int      `json:"restartsLastMinute,omitempty"`
	// RetryIn is how long a failed server backs off before the next
	// request that needs it may start it again.
	RetryIn string `json:"retryIn,omitempty"`
	// Catalog says where the tools came from: "cache" (the server has not
	// been started by this dispatch) or "live".
	Catalog string `json:"catalog,omitempty"`
	// Warnings say which of the server's lists were cut to the catalog
	// bounds (--max-catalog-items, --max-catalog-size), and which items
	// were left out for names that are not valid UTF-8.
	Warnings []string `json:"warnings,omitempty"`
}

// ToolEntry is one tool in list and search answers.
type ToolEntry struct {
	Connection  string          `json:"connection"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Params      string          `json:"params,omitempty"`
	Score       float64         `json:"score,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations map[string]any  `json:"annotations,omitempty"`
	// RunsAsTask says the server requires the tool to run as a task;
	// dispatch's call waits for it (within the call's time limit).
	RunsAsTask bool `json:"runsAsTask,omitempty"`
	// Warnings say which members asked for were left out, and why (see
	// toolEntry).
	Warnings []string `json:"warnings,omitempty"`
}

// namesInlineLimit is how many tools a default list names inline before it
// shows only counts: past it, names alone would crowd the agent's context.
const namesInlineLimit = 100

// catalog is one connection's tools, or why they could not be had. With
// err, tools may still hold the last list known of the server (known).
type catalog struct {
	conn  *connections.Conn
	tools []toolDef
	err   error
	known bool // err is set and tools are the last list known
}

// catalogs fetches the tools of conns concurrently. A server that cannot
// be reached contributes its error, not a failure of the whole request,
// beside the last list of its tools known, if any: a server that stops
// answering still shows what it had.
func (s *Service) catalogs(ctx context.Context, conns []*connections.Conn, refresh bool) []catalog {
	out := make([]catalog, len(conns))
	fetch := func(i int, c *connections.Conn) {
		out[i].conn = c
		raw, err := c.Tools(ctx, refresh)
		if err != nil {
			out[i].err = err
			if known, _, ok := c.KnownTools(); ok {
				out[i].tools, out[i].known = s.parsed.tools(c, known), true
			}
			return
		}
		out[i].tools = s.parsed.tools(c, raw)
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		if i == len(conns)-1 {
			// The last on this goroutine: a call naming its connection
			// (one) then waits for no other goroutine to be scheduled.
			fetch(i, c)
			break
		}
		wg.Go(func() { fetch(i, c) })
	}
	wg.Wait()
	s.parsed.prune(s.conns.Conns())
	return out
}

// probe checks the live HTTP and SSE servers concurrently, so that list
// shows one lost while idle as it is (see Conn.Probe).
func probe(ctx context.Context, conns []*connections.Conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Probe(ctx)
		}()
	}
	wg.Wait()
}

func (s *Service) selectConns(key string) ([]*connections.Conn, error) {
	if key == "" {
		return s.conns.Conns(), nil
	}
	c, err := s.conns.Lookup(key)
	if err != nil {
		return nil, &UsageError{Msg: err.Error(), Hint: `Run {"action":"list"} to see the connections`}
	}
	return []*connections.Conn{c}, nil
}

// List answers action list.
func (s *Service) List(ctx context.Context, req Request) (*ListResponse, error) {
	conns, err := s.selectConns(req.Connection)
	if err != nil {
		return nil, err
	}
	conns = filterServer(conns, req.FilterServer)
	probe(ctx, conns)
	cats := s.catalogs(ctx, conns, req.Refresh)
	resp := &ListResponse{Connections: make([]ConnectionEntry, 0, len(cats))}
	for _, cat := range cats {
		resp.TotalTools += len(cat.tools)
	}
	perTool := req.Connection != "" || req.FilterServer != nil || (req.IncludeTools != nil && *req.IncludeTools) || req.IncludeInputSchema || req.IncludeAnnotations || req.Format == "detail"
	namesInline := !perTool && resp.TotalTools <= namesInlineLimit && (req.IncludeTools == nil || *req.IncludeTools)
	for _, cat := range cats {
		entry := connectionEntry(cat, req.Format == "detail")
		if namesInline {
			for _, t := range cat.tools {
				entry.ToolNames = append(entry.ToolNames, t.Name)
			}
		}
		resp.Connections = append(resp.Connections, entry)
	}
	if !perTool {
		if !namesInline && resp.TotalTools > 0 && (req.IncludeTools == nil || *req.IncludeTools) {
			resp.Hint = `Too many tools to name here: use {"action":"search","query":"..."} or {"action":"list","connection":"c1"}`
		}
		return resp, nil
	}
	limit := DefaultListLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	if limit > MaxListLimit {
		limit = MaxListLimit
	}
	var index int64
	for _, cat := range cats {
		for _, t := range cat.tools {
			if index >= req.Offset && len(resp.Tools) < limit {
				resp.Tools = append(resp.Tools, s.toolEntry(cat.conn, t, req))
			}
			index++
		}
	}
	if next := req.Offset + int64(len(resp.Tools)); next < index {
		resp.NextOffset = next
		resp.Hint = "More tools: repeat with \"offset\": " + itoa(next)
	}
	if req.Offset > 0 && req.Offset >= index {
		resp.PastEnd = true
		resp.Hint = pastEndHint(req.Offset, index)
	}
	return resp, nil
}

// pastEndHint explains an empty page: without it an offset past the end
// looks like a server with no tools.
func pastEndHint(offset, total int64) string {
	if total == 0 {
		return fmt.Sprintf(`"offset" %d is past the end: there are no tools to list. Leave "offset" out`, offset)
	}
	return fmt.Sprintf(`"offset" %d is past the end: there are %d tools (offsets 0 to %d). Page from "offset": 0 (or leave it out), with "limit" up to %d, and repeat with each answer's "nextOffset"`,
		offset, total, total-1, MaxListLimit)
}

// connectionEntry describes a connection; detail adds its ID, transport
// and full instructions, which compact answers leave out to save tokens.
func connectionEntry(cat catalog, detail bool) ConnectionEntry {
	c := cat.conn
	st := c.State()
	entry := ConnectionEntry{
		Alias:        c.Alias,
		Name:         c.Config.Name,
		Status:       string(st.Status),
		ToolCount:    len(cat.tools),
		Error:        st.LastError,
		Instructions: summarizeInstructions(st.Info.Instructions),
		Restarts:     st.Restarts,
		Catalog:      st.Catalog,
		Warnings:     append(append([]string(nil), st.CatalogCuts...), unnamableWarnings(c)...),
	}
	if wait := time.Until(st.NextRetry); wait > 0 {
		entry.RetryIn = wait.Round(100 * time.Millisecond).String()
	}
	if detail {
		entry.ID = c.ID
		entry.Transport = string(c.Config.Transport)
		entry.Instructions = st.Info.Instructions
	}
	if st.Info.Name != "" {
		entry.Server = st.Info.Name
		if st.Info.Version != "" {
			entry.Server += " " + st.Info.Version
		}
	}
	if cat.err != nil {
		entry.Error = cat.err.Error()
		if cat.known {
			entry.Error += knownToolsNote
		}
	}
	return entry
}

// knownToolsNote follows the error of a server that could not list its
// tools now, when the tools shown are the last list known of it.
const knownToolsNote = "; the server is not answering, so the tools shown are the last list known of it"

// Compact list answers show at most the first sentence of a server's
// instructions, up to maxInstructionsSummary bytes, and mark a cut with
// instructionsCut so that the agent knows there is more and how to see it.
const (
	maxInstructionsSummary = 300
	instructionsCut        = "…(cut; list format=detail shows all)"
)

func summarizeInstructions(text string) string {
	short := summarize(text, maxInstructionsSummary)
	if short == strings.TrimSpace(text) {
		return short
	}
	return strings.TrimSuffix(short, "…") + " " + instructionsCut
}

// entryNesting is how deep a ToolEntry's members sit in list and search
// answers: the answer's object, its list, the entry's object.
const entryNesting = 3

// toolEntry is t's entry in a list or search answer; a schema asked for
// that would nest that answer past MaxIndentedNesting is left out with a
// warning, as info leaves it out (encodableTool).
func (s *Service) toolEntry(c *connections.Conn, t toolDef, req Request) ToolEntry {
	e := ToolEntry{Connection: c.Alias, Name: t.Name, Params: t.Signature(req.Format == "detail"), RunsAsTask: t.RunsAsTask}
	if req.Format == "detail" {
		e.Title = t.Title
		e.Description = t.Description
	} else {
		e.Description = t.Summary()
	}
	if req.IncludeInputSchema {
		// gjson, not json.Unmarshal, which stops at 10,000 levels: a
		// schema that deep was left out without a word.
		schema := gjson.Parse(jsonView(t.Raw)).Get("inputSchema")
		switch depth := JSONNesting([]byte(schema.Raw)); {
		case !schema.Exists():
		case depth+entryNesting > MaxIndentedNesting:
			e.Warnings = append(e.Warnings, leftOutWarning("inputSchema", depth))
		default:
			e.InputSchema = json.RawMessage(schema.Raw) // a copy, not a view of the catalog
		}
	}
	if req.IncludeAnnotations {
		e.Annotations = t.Annotations
	}
	return e
}

// unnamableShown is how many names an unnamable-items warning quotes; a
// server could name thousands so, and the count says the rest.
const unnamableShown = 5

// unnamableWarnings says, for each of c's lists, which items were left out
// because their server named them with bytes that are not valid UTF-8
// (connections.Conn.Unnamable): without it the server's count and list's
// would differ with no reason given.
func unnamableWarnings(c *connections.Conn) []string {
	var warnings []string
	for _, noun := range []string{"tools", "resources", "resource templates", "prompts"} {
		names := c.Unnamable(noun)
		if len(names) == 0 {
			continue
		}
		shown := strings.Join(names[:min(len(names), unnamableShown)], ", ")
		if len(names) > unnamableShown {
			shown += fmt.Sprintf(" and %d more", len(names)-unnamableShown)
		}
		what := strings.TrimSuffix(noun, "s")
		if len(names) > 1 {
			what = noun
		}
		warnings = append(warnings, fmt.Sprintf("left out %d %s the server named with bytes that are not valid UTF-8 (%s): dispatch cannot send such a name back as the server wrote it, so it cannot be called through dispatch; the server must fix the name",
			len(names), what, shown))
	}
	return warnings
}
