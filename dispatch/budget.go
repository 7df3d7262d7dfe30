package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"dispatch/connections"
	"dispatch/spill"
	"dispatch/toolsearch"
)

// Budget is what dispatch costs an agent's context, measured against the
// tool definitions it replaces.
type Budget struct {
	Servers, Tools  int
	CatalogBytes    int // every downstream tool definition, as published
	ToolDefBytes    int // dispatch's own proxy-dispatch definition
	ListBytes       int // a default list of ListServers servers
	ListServers     int
	SearchBytes     int // mean search answer over the sample queries
	SearchQueries   int
	InfoBytes       int // mean info answer over every tool
	ListWithPerTool int // list with includeTools of one server, mean
}

// known makes a catalog the file left out an empty one: listed, and none.
func known(items []json.RawMessage) []json.RawMessage {
	if items == nil {
		return []json.RawMessage{}
	}
	return items
}

// Tokens estimates tokens as everywhere in dispatch: bytes / 4.
func Tokens(bytes int) int64 { return spill.EstimateTokens(int64(bytes)) }

// MeasureBudget answers real list, search and info requests over the
// catalogs in catalogDir (as scripts/collect-catalogs.sh writes them). The
// servers are never started: their catalogs are put in a catalog cache, as
// a warm dispatch would have them. listServers servers are listed.
func MeasureBudget(ctx context.Context, catalogDir string, listServers int, queries []string) (Budget, error) {
	cats, _, err := toolsearch.LoadCatalogs(catalogDir)
	if err != nil {
		return Budget{}, err
	}
	cacheDir, err := os.MkdirTemp("", "dispatch-budget-")
	if err != nil {
		return Budget{}, fmt.Errorf("budget: %w", err)
	}
	defer os.RemoveAll(cacheDir)
	cache, err := connections.OpenCache(cacheDir)
	if err != nil {
		return Budget{}, err
	}
	var b Budget
	configs := make([]connections.ServerConfig, len(cats))
	for i, c := range cats {
		// A command that cannot run: the measurement must come from the
		// cache alone.
		configs[i] = connections.ServerConfig{Name: c.Server, Transport: connections.TransportStdio, Command: "/nonexistent/" + c.Server}
		// As a warm cache holds them: what the server declared, and its
		// resources and prompts beside its tools, so that a search of
		// every kind starts no server either.
		info := connections.ServerInfo{Name: c.Package, Capabilities: &connections.Capabilities{
			Resources: len(c.Resources)+len(c.ResourceTemplates) > 0, Prompts: len(c.Prompts) > 0}}
		entry := connections.CacheEntry{ID: configs[i].ID(), Server: info, Tools: c.Tools,
			Resources: known(c.Resources), ResourceTemplates: known(c.ResourceTemplates), Prompts: known(c.Prompts)}
		if err := cache.SaveEntry(entry); err != nil {
			return Budget{}, err
		}
		b.Servers++
		for _, t := range c.Tools {
			b.Tools++
			b.CatalogBytes += len(compactJSON(t))
		}
	}
	set, err := connections.NewSet(configs, connections.Options{Cache: cache})
	if err != nil {
		return Budget{}, err
	}
	defer set.Close()
	svc := New(set, Options{})

	def, err := json.Marshal(Tool())
	if err != nil {
		return Budget{}, err
	}
	b.ToolDefBytes = len(def)

	// A default list of the first listServers servers.
	small, err := connections.NewSet(configs[:min(listServers, len(configs))], connections.Options{Cache: cache})
	if err != nil {
		return Budget{}, err
	}
	defer small.Close()
	b.ListServers = len(small.Conns())
	list, err := New(small, Options{}).Do(ctx, Request{Action: "list"}, Hooks{})
	if err != nil {
		return Budget{}, err
	}
	b.ListBytes = answerBytes(list)

	total := 0
	for _, c := range set.Conns() {
		limit := MaxListLimit
		resp, err := svc.Do(ctx, Request{Action: "list", Connection: c.Alias, Limit: &limit}, Hooks{})
		if err != nil {
			return Budget{}, err
		}
		total += answerBytes(resp)
	}
	b.ListWithPerTool = total / max(1, len(set.Conns()))

	total = 0
	for _, q := range queries {
		resp, err := svc.Do(ctx, Request{Action: "search", Query: q}, Hooks{})
		if err != nil {
			return Budget{}, err
		}
		if sr, ok := resp.(*SearchResponse); ok && len(sr.Unreachable) > 0 {
			// Every server's command is /nonexistent: a warm cache must
			// answer a search of every kind without starting one.
			return Budget{}, fmt.Errorf("budget: search %q tried to start a server: %s", q, sr.Unreachable[0])
		}
		total += answerBytes(resp)
		b.SearchQueries++
	}
	b.SearchBytes = total / max(1, b.SearchQueries)

	total = 0
	for i, c := range cats {
		for _, t := range c.Tools {
			def, ok := parseToolDef(t)
			if !ok {
				continue
			}
			resp, err := svc.Do(ctx, Request{Action: "info", Tool: def.Name, Connection: set.Conns()[i].Alias}, Hooks{})
			if err != nil {
				return Budget{}, err
			}
			total += answerBytes(resp)
		}
	}
	b.InfoBytes = total / max(1, b.Tools)
	return b, nil
}

func compactJSON(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// answerBytes is the size of an answer as the agent receives it.
func answerBytes(resp any) int {
	data, err := marshalJSON(resp)
	if err != nil {
		return 0
	}
	return len(data)
}

// String renders the budget as a table with each figure's share of the
// catalogs dispatch replaces.
func (b Budget) String() string {
	var out strings.Builder
	tw := tabwriter.NewWriter(&out, 0, 4, 2, ' ', tabwriter.AlignRight)
	row := func(what string, n int) {
		fmt.Fprintf(tw, "%s\t%d B\t~%d tokens\t%.2f%%\t\n", what, n, Tokens(n), 100*float64(n)/float64(max(1, b.CatalogBytes)))
	}
	fmt.Fprintf(&out, "%d servers, %d tools\n", b.Servers, b.Tools)
	fmt.Fprintln(tw, "what\tbytes\ttokens\tof catalogs\t")
	row("all downstream tool definitions", b.CatalogBytes)
	row("dispatch's proxy-dispatch definition", b.ToolDefBytes)
	row(fmt.Sprintf("default list of %d servers", b.ListServers), b.ListBytes)
	row("list of one server's tools (mean)", b.ListWithPerTool)
	row(fmt.Sprintf("search answer (mean of %d queries)", b.SearchQueries), b.SearchBytes)
	row("info answer (mean over all tools)", b.InfoBytes)
	if err := tw.Flush(); err != nil {
		return err.Error()
	}
	return out.String()
}
