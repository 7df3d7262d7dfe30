package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"sync"

	"dispatch/connections"
	"dispatch/toolsearch"
)

// rawToolCatalog is one connection's tools as published, unparsed: search
// parses only the tools it shows.
type rawToolCatalog struct {
	conn  *connections.Conn
	tools []json.RawMessage
	err   error
}

// rawToolCatalogs fetches the tools of conns concurrently; a server that
// cannot be reached contributes its error.
func rawToolCatalogs(ctx context.Context, conns []*connections.Conn, refresh bool) []rawToolCatalog {
	out := make([]rawToolCatalog, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		if tools, ok := c.ToolsAtHand(); ok && !refresh {
			// In memory already: no goroutine to wait for (see
			// Conn.CatalogsAtHand).
			out[i] = rawToolCatalog{conn: c, tools: tools}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].conn = c
			out[i].tools, out[i].err = c.Tools(ctx, refresh)
			if out[i].err != nil {
				// A server that stopped answering is searched in the last
				// list known of it, as list shows it and calls resolve in
				// it; its error still says it is unreachable.
				if known, _, ok := c.KnownTools(); ok {
					out[i].tools = known
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// searchEntry is what a search index doc stands for: a tool (as
// published), a resource or template, or a prompt of a connection.
type searchEntry struct {
	conn     *connections.Conn
	name     string // the tool's name, as indexed
	tool     json.RawMessage
	resource *resourceDef
	prompt   *promptDef
}

// searchIndex is a toolsearch index over some catalogs, reused while they
// are unchanged: building one over a thousand tools costs far more than a
// query.
type searchIndex struct {
	key     string
	index   *toolsearch.Index
	entries []searchEntry // per doc
	// tools, resources and prompts count the docs of each kind.
	tools, resources, prompts int
}

// indexCache holds the last index built or loaded.
type indexCache struct {
	mu   sync.Mutex
	last *searchIndex
}

// get returns the index over the catalogs: the one in memory if they have
// not changed since it was made, else the one saved in store for exactly
// these catalogs, else a new one, which it saves there (store may be nil).
func (c *indexCache) get(cats []rawToolCatalog, rcats, pcats []sideCatalog, store *connections.Cache, log *slog.Logger) *searchIndex {
	key := indexKey(cats, rcats, pcats)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && c.last.key == key {
		return c.last
	}
	src := indexSources{tools: cats, resources: rcats, prompts: pcats}
	var storeKey string
	if store != nil {
		storeKey = src.contentKey()
		if data, ok := store.LoadSearchIndex(storeKey); ok {
			loaded, err := src.load(data)
			if err == nil {
				loaded.key = key
				c.last = loaded
				return loaded
			}
			log.Debug("rebuild the search index", "reason", err.Error())
		}
	}
	built, refs := src.build()
	built.key = key
	c.last = built
	if store != nil {
		data, err := src.save(built.index, refs)
		if err == nil {
			err = store.SaveSearchIndex(storeKey, data)
		}
		if err != nil {
			// The index still answers this search; the next one builds it
			// again.
			log.Debug("save the search index", "error", err.Error())
		}
	}
	return built
}

// indexSources are the catalogs an index is made from.
type indexSources struct {
	tools     []rawToolCatalog
	resources []sideCatalog
	prompts   []sideCatalog
}

// Kinds of docRef.
const (
	refTool = iota
	refResource
	refPrompt
)

// docRef says where a doc of the index comes from: the item-th tool,
// resource or prompt of the cat-th catalog of that kind.
type docRef struct {
	kind, cat, item int
}

func (src indexSources) build() (*searchIndex, []docRef) {
	built := &searchIndex{}
	var (
		docs []toolsearch.Doc
		refs []docRef
	)
	add := func(doc toolsearch.Doc, err error, ref docRef) bool {
		if err != nil {
			// An object the index cannot read is left out of search only;
			// list still shows it.
			return false
		}
		docs = append(docs, doc)
		refs = append(refs, ref)
		built.entries = append(built.entries, src.entry(ref, doc.Name))
		return true
	}
	for ci, cat := range src.tools {
		for i, raw := range cat.tools {
			// A tool list leaves out is left out of search too.
			if _, ok := parseToolDef(raw); !ok {
				continue
			}
			doc, err := toolsearch.DocFromRaw(cat.conn.Alias, raw)
			if add(doc, err, docRef{refTool, ci, i}) {
				built.tools++
			}
		}
	}
	for ci, cat := range src.resources {
		for i := range cat.resources {
			r := &cat.resources[i]
			from := toolsearch.DocFromResource
			if r.URITemplate != "" {
				from = toolsearch.DocFromTemplate
			}
			doc, err := from(cat.conn.Alias, r.Raw)
			if add(doc, err, docRef{refResource, ci, i}) {
				built.resources++
			}
		}
	}
	for ci, cat := range src.prompts {
		for i := range cat.prompts {
			doc, err := toolsearch.DocFromPrompt(cat.conn.Alias, cat.prompts[i].Raw)
			if add(doc, err, docRef{refPrompt, ci, i}) {
				built.prompts++
			}
		}
	}
	built.index = toolsearch.New(docs)
	return built, refs
}

// entry is the object ref points to; ref must be valid (see check).
func (src indexSources) entry(ref docRef, name string) searchEntry {
	switch ref.kind {
	case refResource:
		cat := src.resources[ref.cat]
		return searchEntry{conn: cat.conn, resource: &cat.resources[ref.item]}
	case refPrompt:
		cat := src.prompts[ref.cat]
		return searchEntry{conn: cat.conn, prompt: &cat.prompts[ref.item]}
	}
	cat := src.tools[ref.cat]
	return searchEntry{conn: cat.conn, name: name, tool: cat.tools[ref.item]}
}

// check reports whether ref points to an object of these catalogs whose
// connection and kind are doc's.
func (src indexSources) check(ref docRef, doc toolsearch.Doc) error {
	var (
		conns int
		alias string
		items int
		kinds []string
	)
	switch ref.kind {
	case refTool:
		if conns = len(src.tools); ref.cat < conns {
			alias, items = src.tools[ref.cat].conn.Alias, len(src.tools[ref.cat].tools)
		}
		kinds = []string{toolsearch.KindTool}
	case refResource:
		if conns = len(src.resources); ref.cat < conns {
			alias, items = src.resources[ref.cat].conn.Alias, len(src.resources[ref.cat].resources)
		}
		kinds = []string{toolsearch.KindResource, toolsearch.KindTemplate}
	case refPrompt:
		if conns = len(src.prompts); ref.cat < conns {
			alias, items = src.prompts[ref.cat].conn.Alias, len(src.prompts[ref.cat].prompts)
		}
		kinds = []string{toolsearch.KindPrompt}
	default:
		return fmt.Errorf("unknown kind %d", ref.kind)
	}
	if ref.cat >= conns || ref.item >= items {
		return fmt.Errorf("refers to no %s", []string{"tool", "resource", "prompt"}[ref.kind])
	}
	if doc.Connection != alias || !contains(kinds, doc.Kind) {
		return fmt.Errorf("doc %s %q is not the %s it refers to", doc.Connection, doc.Name, []string{"tool", "resource", "prompt"}[ref.kind])
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// indexKey identifies the catalogs an index is made from, in memory: tools
// by their connection's catalog generation, resources and prompts (which
// have none) by a hash of what the servers published.
func indexKey(cats []rawToolCatalog, rcats, pcats []sideCatalog) string {
	var key strings.Builder
	for _, cat := range cats {
		fmt.Fprintf(&key, "t%s:%d:%d:%t;", cat.conn.Alias, cat.conn.CatalogGeneration(), len(cat.tools), cat.err != nil)
	}
	for _, cat := range rcats {
		h := fnv.New64a()
		for _, r := range cat.resources {
			h.Write(r.Raw)
			h.Write([]byte{0})
		}
		fmt.Fprintf(&key, "r%s:%d:%x:%t;", cat.conn.Alias, len(cat.resources), h.Sum64(), cat.err != nil)
	}
	for _, cat := range pcats {
		h := fnv.New64a()
		for _, p := range cat.prompts {
			h.Write(p.Raw)
			h.Write([]byte{0})
		}
		fmt.Fprintf(&key, "p%s:%d:%x:%t;", cat.conn.Alias, len(cat.prompts), h.Sum64(), cat.err != nil)
	}
	return key.String()
}
