package dispatch

import (
	"testing"

	"dispatch/connections"
)

// resourceOwners counts the connections that list a URI and names those
// that list it or have a template it matches: a link from any other
// connection does not take it (see resolveResource).
func TestResourceOwners_ListedAndTemplates(t *testing.T) {
	files, web, other := &connections.Conn{Alias: "c1"}, &connections.Conn{Alias: "c2"}, &connections.Conn{Alias: "c3"}
	cats := []sideCatalog{
		{conn: files, resources: []resourceDef{{URITemplate: "file:///{+path}"}}},
		{conn: web, resources: []resourceDef{{URI: "https://example.com/a"}}},
		{conn: other, resources: []resourceDef{{URI: "x://y"}, {URITemplate: "x://{id}"}}},
	}
	cases := []struct {
		uri    string
		listed int
		owners []string
	}{
		{"file:///home/u/.ssh/config", 0, []string{"c1"}},
		{"https://example.com/a", 1, []string{"c2"}},
		{"x://y", 1, []string{"c3"}},
		{"nowhere://z", 0, nil},
	}
	for _, c := range cases {
		listed, owners := resourceOwners(c.uri, cats)
		var names []string
		for _, o := range owners {
			names = append(names, o.Alias)
		}
		if listed != c.listed || len(names) != len(c.owners) || (len(names) > 0 && names[0] != c.owners[0]) {
			t.Errorf("resourceOwners(%q) = %d, %v; want %d, %v", c.uri, listed, names, c.listed, c.owners)
		}
	}
}
