package connections

import (
	"encoding/json"
	"fmt"
	"sort"
	"unsafe"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"
)

// Bounds of one server's catalog, for each of its lists (tools, resources,
// resource templates, prompts), across all pages: --max-message bounds one
// page only, and a server publishing 100,000 tools over many pages would
// otherwise make dispatch hold, index and search them all.
const (
	// DefaultMaxCatalogItems is the default of Options.MaxCatalogItems
	// (--max-catalog-items): far more than any server an agent can use
	// well publishes.
	DefaultMaxCatalogItems = 10_000
	// DefaultMaxCatalogBytes is the default of Options.MaxCatalogBytes
	// (--max-catalog-size).
	DefaultMaxCatalogBytes = 64 << 20
)

// catalogBound keeps the first items of a list that fit both bounds.
type catalogBound struct {
	maxItems int
	maxBytes int64
	items    int
	bytes    int64
	// dropped says an item did not fit: the list was cut there.
	dropped bool
}

func (c *Conn) catalogBound() *catalogBound {
	return &catalogBound{maxItems: c.opts.MaxCatalogItems, maxBytes: c.opts.MaxCatalogBytes}
}

// fits counts item in if it fits both bounds. Once one does not, none
// after it does: a catalog keeps the server's first objects, not a
// selection of small ones.
func (b *catalogBound) fits(item string) bool {
	if b.dropped || b.items+1 > b.maxItems || b.bytes+int64(len(item)) > b.maxBytes {
		b.dropped = true
		return false
	}
	b.items++
	b.bytes += int64(len(item))
	return true
}

// page decodes one page of list method m: the objects that fit the bound
// (each copied out of raw, so that the page is not kept alive by them) and
// the next cursor. Objects past the bound are skipped without being
// decoded or copied: a page holding 100,000 tools costs a validation pass,
// not two full decodes.
func (b *catalogBound) page(raw []byte, m listMethod) ([]json.RawMessage, string, error) {
	if !gjson.ValidBytes(raw) {
		return nil, "", fmt.Errorf("invalid %s result: not valid JSON", m.method)
	}
	// A view of raw, not ParseBytes, which copies the whole page; every
	// object kept is copied out of it (json.RawMessage(item.Raw)).
	root := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !root.IsObject() {
		return nil, "", fmt.Errorf("invalid %s result: not a JSON object", m.method)
	}
	var nextCursor string
	switch cursor := root.Get("nextCursor"); cursor.Type {
	case gjson.String:
		nextCursor = cursor.String()
	case gjson.Null:
	default:
		return nil, "", fmt.Errorf("invalid %s result: nextCursor: not a string: %.40s", m.method, cursor.Raw)
	}
	field := root.Get(gjson.Escape(m.field))
	if field.Type == gjson.Null {
		return nil, nextCursor, nil
	}
	if !field.IsArray() {
		return nil, "", fmt.Errorf("invalid %s result: %q: not an array", m.method, m.field)
	}
	var items []json.RawMessage
	field.ForEach(func(_, item gjson.Result) bool {
		if !b.fits(item.Raw) {
			return false
		}
		items = append(items, json.RawMessage(item.Raw))
		return true
	})
	return items, nextCursor, nil
}

// warning says what was cut and which option raises the bound; empty when
// nothing was.
func (b *catalogBound) warning(noun string) string {
	if !b.dropped {
		return ""
	}
	if b.items >= b.maxItems {
		return fmt.Sprintf("the server publishes more than %d %s; only the first %d are used (raise --max-catalog-items to see more)",
			b.maxItems, noun, b.items)
	}
	return fmt.Sprintf("the server's %s add up to more than %s; only the first %d (%s) are used (raise --max-catalog-size to see more)",
		noun, humanize.IBytes(uint64(b.maxBytes)), b.items, humanize.IBytes(uint64(b.bytes)))
}

// noteCatalogCut records, for State and the log, whether the list of noun
// was cut the last time it was fetched.
func (c *Conn) noteCatalogCut(noun string, b *catalogBound) {
	warning := b.warning(noun)
	c.mu.Lock()
	defer c.mu.Unlock()
	if warning == "" {
		delete(c.cuts, noun)
		return
	}
	if c.cuts == nil {
		c.cuts = map[string]string{}
	}
	if c.cuts[noun] != warning {
		c.log.Warn("catalog cut", "list", noun, "why", warning)
	}
	c.cuts[noun] = warning
}

// catalogCutsLocked returns the warnings of the lists that were cut, in a
// stable order.
func (c *Conn) catalogCutsLocked() []string {
	if len(c.cuts) == 0 {
		return nil
	}
	nouns := make([]string, 0, len(c.cuts))
	for noun := range c.cuts {
		nouns = append(nouns, noun)
	}
	sort.Strings(nouns)
	out := make([]string, len(nouns))
	for i, noun := range nouns {
		out[i] = c.cuts[noun]
	}
	return out
}
