package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Capabilities is what a server declared in initialize that decides which
// of its catalogs dispatch asks for. A server that did not declare
// resources (or prompts) is never sent resources/list (prompts/list): it
// has none, and some servers answer such a request with an error.
type Capabilities struct {
	Resources   bool `json:"resources,omitempty"`
	Prompts     bool `json:"prompts,omitempty"`
	Completions bool `json:"completions,omitempty"`
}

func capabilitiesOf(caps mcp.ServerCapabilities) *Capabilities {
	return &Capabilities{Resources: caps.Resources != nil, Prompts: caps.Prompts != nil, Completions: caps.Completions != nil}
}

// sideKind is one of the catalogs besides tools: resources, resource
// templates and prompts. They share one cursor loop, one cache entry and
// one refresh path with tools; only the method and the result field differ.
type sideKind int

const (
	sideResources sideKind = iota
	sideTemplates
	sidePrompts
	numSideKinds
)

// listMethod is a paginated list request and the result field it fills.
type listMethod struct {
	method string // e.g. "tools/list"
	field  string // e.g. "tools"
	noun   string // for messages: "list " + noun
	key    string // the member that names an item: "name", "uri", ...
}

var toolsList = listMethod{method: "tools/list", field: "tools", noun: "tools", key: "name"}

func (k sideKind) list() listMethod {
	switch k {
	case sideResources:
		return listMethod{method: "resources/list", field: "resources", noun: "resources", key: "uri"}
	case sideTemplates:
		return listMethod{method: "resources/templates/list", field: "resourceTemplates", noun: "resource templates", key: "uriTemplate"}
	default:
		return listMethod{method: "prompts/list", field: "prompts", noun: "prompts", key: "name"}
	}
}

// declared says whether caps let dispatch ask for this catalog.
func (k sideKind) declared(caps *Capabilities) bool {
	if k == sidePrompts {
		return caps.Prompts
	}
	return caps.Resources
}

// sideCatalog is one of a connection's non-tool catalogs.
type sideCatalog struct {
	items      []json.RawMessage // nil: never listed
	stale      bool              // the server announced a change, or items came from the cache and a live session started since
	fromCache  bool
	refreshing bool // a debounced refresh is scheduled
}

// Resources returns the server's raw Resource objects exactly as it
// published them (masked like tool text), every page of resources/list.
// A server that did not declare resources gives an empty list without
// being asked. Lazy start, restart, the catalog cache and refresh work as
// for Tools.
func (c *Conn) Resources(ctx context.Context, refresh bool) ([]json.RawMessage, error) {
	return c.side(ctx, sideResources, refresh)
}

// ResourceTemplates returns the server's raw ResourceTemplate objects, as
// Resources does resources.
func (c *Conn) ResourceTemplates(ctx context.Context, refresh bool) ([]json.RawMessage, error) {
	return c.side(ctx, sideTemplates, refresh)
}

// Prompts returns the server's raw Prompt objects, as Resources does
// resources; a server that did not declare prompts gives an empty list.
func (c *Conn) Prompts(ctx context.Context, refresh bool) ([]json.RawMessage, error) {
	return c.side(ctx, sidePrompts, refresh)
}

// Capabilities returns what the server declared, from its live session or
// the catalog cache; ok is false while it is unknown (never started, no
// cache entry).
func (c *Conn) Capabilities() (caps Capabilities, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info.Capabilities == nil {
		return Capabilities{}, false
	}
	return *c.info.Capabilities, true
}

// CatalogsAtHand reports whether Tools, Resources, ResourceTemplates and
// Prompts would each answer at once, from what is known, without a
// server: a caller that asks every connection for them runs those inline
// rather than on a goroutine each (a warm one-shot search started 48
// goroutines over 16 servers for answers already in memory).
func (c *Conn) CatalogsAtHand() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil || c.toolsStale {
		return false
	}
	for k := sideKind(0); k < numSideKinds; k++ {
		cat := &c.sides[k]
		known := cat.items != nil && !cat.stale
		undeclared := c.info.Capabilities != nil && !k.declared(c.info.Capabilities)
		if !known && !undeclared {
			return false
		}
	}
	return true
}

func (c *Conn) side(ctx context.Context, k sideKind, refresh bool) ([]json.RawMessage, error) {
	c.mu.Lock()
	cat := &c.sides[k]
	if cat.items != nil && !refresh && !cat.stale {
		items := cat.items
		c.mu.Unlock()
		return items, nil
	}
	if caps := c.info.Capabilities; caps != nil && !refresh && !k.declared(caps) {
		c.mu.Unlock()
		return []json.RawMessage{}, nil
	}
	c.mu.Unlock()
	sess, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	listCtx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	items, err := c.listSide(ctx, listCtx, sess, k)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.setSideLocked(k, items)
	toolsKnown := c.tools != nil && !c.toolsStale
	c.mu.Unlock()
	if !toolsKnown {
		// A cache entry is only usable with the tools in it: list them on
		// the session just started, which also saves the entry.
		if _, err := c.Tools(ctx, false); err != nil {
			c.log.Debug("list tools beside "+k.list().noun, "error", err.Error())
		}
	}
	// Saved even when Tools saved: a refresh of the tools running
	// meanwhile may have saved before this catalog was in.
	c.saveCatalog()
	return items, nil
}

func (c *Conn) setSideLocked(k sideKind, items []json.RawMessage) {
	c.sides[k] = sideCatalog{items: items, refreshing: c.sides[k].refreshing}
	c.nextGenerationLocked()
}

// listSide lists one side catalog of a live session, or gives an empty
// one when the server did not declare it.
func (c *Conn) listSide(ctx, listCtx context.Context, sess *session, k sideKind) ([]json.RawMessage, error) {
	c.mu.Lock()
	caps := c.info.Capabilities
	c.mu.Unlock()
	if caps != nil && !k.declared(caps) {
		return []json.RawMessage{}, nil
	}
	items, err := c.listPages(ctx, listCtx, sess, k.list())
	var rpc *RPCError
	if k == sideTemplates && errors.As(err, &rpc) && rpc.Code == mcp.METHOD_NOT_FOUND {
		// Servers with resources but no templates often lack the method.
		return []json.RawMessage{}, nil
	}
	return items, err
}

// fillSides lists, on a session whose tools were just listed, every
// declared side catalog not known yet or stale, so that one start leaves a
// complete cache entry: list type=prompt later starts nothing. The lists
// go concurrently, so a start waits one round trip more, not three. A
// failure leaves that catalog unknown; it is asked for again when needed.
func (c *Conn) fillSides(ctx, listCtx context.Context, sess *session) {
	var wg sync.WaitGroup
	for k := sideKind(0); k < numSideKinds; k++ {
		c.mu.Lock()
		current := c.sides[k].items != nil && !c.sides[k].stale
		c.mu.Unlock()
		if current {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			items, err := c.listSide(ctx, listCtx, sess, k)
			if err != nil {
				c.log.Debug("list "+k.list().noun, "error", err.Error())
				return
			}
			c.mu.Lock()
			c.setSideLocked(k, items)
			c.mu.Unlock()
		}()
	}
	wg.Wait()
}

// listPages fetches every page of a list method within listCtx; ctx is
// the caller's, to tell its giving up from the time limit. The items are
// masked before anything keeps them: list, search and info show them, and
// the cache stores them.
func (c *Conn) listPages(ctx, listCtx context.Context, sess *session, m listMethod) ([]json.RawMessage, error) {
	op := "list " + m.noun
	var (
		items  []json.RawMessage
		cursor string
		seen   = map[string]bool{}
		bound  = c.catalogBound()
	)
	for page := 0; ; page++ {
		if page >= MaxListPages {
			return nil, c.fail(op, fmt.Errorf("more than %d pages of %s; the server keeps returning cursors", MaxListPages, m.noun), false)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, next, _, err := c.send(listCtx, sess, 0, m.method, params)
		if err != nil {
			timedOut := fmt.Errorf("%w: no complete %s answer within %s (--connect-timeout)", ErrTimeout, m.method, c.opts.ConnectTimeout)
			return nil, c.wrapRequestErr(op, ctx, listCtx.Err() != nil, timedOut, err)
		}
		sess = next
		pageItems, nextCursor, err := bound.page(raw, m)
		if err != nil {
			return nil, c.fail(op, err, false)
		}
		items = append(items, pageItems...)
		if nextCursor == "" || bound.dropped {
			// Past the bound no further page is asked for: its objects
			// would not be kept.
			break
		}
		if seen[nextCursor] {
			return nil, c.fail(op, fmt.Errorf("server repeated cursor %s", quote(c.opts.Redactor, nextCursor)), false)
		}
		seen[nextCursor] = true
		cursor = nextCursor
	}
	items, unnamable := namedItems(items, m.key)
	c.mu.Lock()
	c.unnamable[m.noun] = unnamable
	c.mu.Unlock()
	if len(unnamable) > 0 {
		c.log.Warn("left out of the catalog: named with bytes that are not valid UTF-8, which dispatch cannot send back to the server",
			"kind", m.noun, "names", strings.Join(unnamable, ", "))
	}
	c.noteCatalogCut(m.noun, bound)
	masked, _, err := c.opts.Redactor.maskDefs(items)
	if err != nil {
		return nil, c.fail(op, fmt.Errorf("invalid %s result: %w", m.method, err), false)
	}
	if masked == nil {
		masked = []json.RawMessage{}
	}
	return masked, nil
}

// sideRefreshFor maps a list_changed notification to the catalogs it
// makes stale.
func sideRefreshFor(method string) []sideKind {
	switch method {
	case string(mcp.MethodNotificationResourcesListChanged):
		return []sideKind{sideResources, sideTemplates}
	case string(mcp.MethodNotificationPromptsListChanged):
		return []sideKind{sidePrompts}
	}
	return nil
}

// scheduleSideRefresh marks kinds stale and, after the same debounce as
// tools, lists again those already listed on a live server; the others
// are listed when next asked for.
func (c *Conn) scheduleSideRefresh(kinds []sideKind) {
	var due []sideKind
	c.mu.Lock()
	for _, k := range kinds {
		c.sides[k].stale = true
		if !c.sides[k].refreshing {
			c.sides[k].refreshing = true
			due = append(due, k)
		}
	}
	c.mu.Unlock()
	if len(due) == 0 {
		return
	}
	time.AfterFunc(toolsChangedDebounce, func() {
		c.mu.Lock()
		var listed []sideKind
		for _, k := range due {
			c.sides[k].refreshing = false
			if c.sides[k].items != nil {
				listed = append(listed, k)
			}
		}
		live := c.status == StatusReady
		if live {
			c.background.Add(1)
		}
		c.mu.Unlock()
		if !live {
			return
		}
		defer c.background.Done()
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.ConnectTimeout)
		defer cancel()
		changed := false
		for _, k := range listed {
			if _, err := c.side(ctx, k, true); err != nil {
				c.log.Debug("refresh "+k.list().noun, "why", "list_changed", "error", err.Error())
				continue
			}
			changed = true
		}
		if changed && c.opts.OnCatalogChanged != nil {
			c.opts.OnCatalogChanged(c)
		}
	})
}

// saveCatalog writes the connection's whole catalog to the cache. Writes
// are serialized and each takes its snapshot inside the lock, so an older
// snapshot never lands after a newer one.
func (c *Conn) saveCatalog() {
	if c.opts.Cache == nil {
		return
	}
	c.cacheMu.Lock()
	defer c.cacheMu.Unlock()
	c.mu.Lock()
	// Everything a connection holds was masked as it arrived.
	entry := CacheEntry{ID: c.cacheKey, Server: c.info, Tools: c.tools, MaskedBy: maskRules}
	entry.Resources = c.sides[sideResources].items
	entry.ResourceTemplates = c.sides[sideTemplates].items
	entry.Prompts = c.sides[sidePrompts].items
	c.mu.Unlock()
	if entry.Tools == nil {
		return // nothing a later start could skip
	}
	if err := c.opts.Cache.SaveEntry(entry); err != nil {
		c.log.Warn("save catalog", "error", err.Error())
	}
}

// KnownTools is the last tool list dispatch had of the server, live or
// from the catalog cache, even one the server has announced a change to
// since (stale): what can still be said of a server that is not answering
// now. ok is false when none was ever had.
func (c *Conn) KnownTools() (tools []json.RawMessage, stale, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		return nil, false, false
	}
	return c.visible, c.toolsStale, true
}
