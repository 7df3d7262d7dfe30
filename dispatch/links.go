package dispatch

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// MaxRememberedLinks bounds the resource URIs remembered per connection
// from resource_link and embedded resource items in its results. Past it
// the oldest is forgotten: a server may hand out any number of links.
const MaxRememberedLinks = 1024

// maxRememberedURIBytes skips URIs longer than this: no real link needs
// more, and a hostile server must not fill the memory with megabyte URIs.
const maxRememberedURIBytes = 4096

// linkMemory remembers which connection returned which resource URI, so
// that a URI a server handed out (server-everything's
// demo://resource/dynamic/text/2) is read from that server though no list
// shows it. It is safe for concurrent use.
type linkMemory struct {
	mu     sync.Mutex
	byConn map[string]*uriRing
}

// uriRing is a bounded set of URIs that forgets the oldest first.
type uriRing struct {
	order []string
	next  int
	set   map[string]bool
}

func (m *linkMemory) remember(conn string, uri string) {
	if uri == "" || len(uri) > maxRememberedURIBytes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byConn == nil {
		m.byConn = map[string]*uriRing{}
	}
	r := m.byConn[conn]
	if r == nil {
		r = &uriRing{set: map[string]bool{}}
		m.byConn[conn] = r
	}
	if r.set[uri] {
		return
	}
	uri = strings.Clone(uri) // it may be a view of the result it came in
	if len(r.order) < MaxRememberedLinks {
		r.order = append(r.order, uri)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = uri
		r.next = (r.next + 1) % MaxRememberedLinks
	}
	r.set[uri] = true
}

// returned reports whether conn returned uri in a recent result.
func (m *linkMemory) returned(conn, uri string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.byConn[conn]
	return r != nil && r.set[uri]
}

// rememberContent notes the URIs of the resource_link and embedded
// resource items among a result's content items.
func (m *linkMemory) rememberContent(conn string, items []json.RawMessage) {
	for _, item := range items {
		m.rememberItem(conn, item)
	}
}

// rememberItems is rememberContent of content, a content array gjson
// parsed from a view of the result (jsonView).
func (m *linkMemory) rememberItems(conn string, content gjson.Result) {
	content.ForEach(func(_, item gjson.Result) bool {
		m.rememberView(conn, item.Raw)
		return true
	})
}

// rememberItem notes the URI of a content item.
func (m *linkMemory) rememberItem(conn string, item json.RawMessage) {
	m.rememberView(conn, jsonView(item))
}

// rememberView is rememberItem of a view of the item (jsonView), which
// gjson reads without copying it.
func (m *linkMemory) rememberView(conn string, item string) {
	switch gjson.Get(item, "type").String() {
	case "resource_link":
		m.remember(conn, gjson.Get(item, "uri").String())
	case "resource":
		m.remember(conn, gjson.Get(item, "resource.uri").String())
	}
}
