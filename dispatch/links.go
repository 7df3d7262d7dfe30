package dispatch

import (
	"encoding/json"
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

func (m *linkMemory) rememberItem(conn string, item json.RawMessage) {
	switch gjson.GetBytes(item, "type").String() {
	case "resource_link":
		m.remember(conn, gjson.GetBytes(item, "uri").String())
	case "resource":
		m.remember(conn, gjson.GetBytes(item, "resource.uri").String())
	}
}
