package connections

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/dustin/go-humanize"
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

// take returns the items of page that fit, in order; once one does not,
// no later one is taken (a catalog keeps the server's first objects, not
// a selection of small ones).
func (b *catalogBound) take(page []json.RawMessage) []json.RawMessage {
	if b.dropped {
		return nil
	}
	for i, item := range page {
		if b.items+1 > b.maxItems || b.bytes+int64(len(item)) > b.maxBytes {
			b.dropped = true
			return page[:i:i]
		}
		b.items++
		b.bytes += int64(len(item))
	}
	return page
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
