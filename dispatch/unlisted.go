package dispatch

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// UnlistedOwner finds the connection to read uri from when no resource or
// template the surface lists has it. MCP lets a server hand out links to
// resources it does not list (a resource_link target, a resource made for
// one session), so such a read goes to the server that can serve it:
//   - the one that returned uri in a link, if one did;
//   - else the only server with resources;
//   - else the only one whose listed URIs or templates share uri's scheme.
//
// Any other guess could send a read meant for one server to another, so
// several candidates are refused, naming them.
func (s *Service) UnlistedOwner(surface Surface, uri string) (alias string, err error) {
	var owners []string
	for _, r := range surface.Resources {
		if !slices.Contains(owners, r.Connection) {
			owners = append(owners, r.Connection)
		}
	}
	for _, c := range s.conns.Conns() {
		if s.links.returned(c.Alias, uri) {
			return c.Alias, nil
		}
	}
	switch len(owners) {
	case 0:
		return "", fmt.Errorf("no server lists resources, and none returned a link to %s", uri)
	case 1:
		return owners[0], nil
	}
	scheme := uriScheme(uri)
	var same []string
	for _, r := range surface.Resources {
		if scheme != "" && uriScheme(r.Original) == scheme && !slices.Contains(same, r.Connection) {
			same = append(same, r.Connection)
		}
	}
	if len(same) == 1 {
		return same[0], nil
	}
	return "", fmt.Errorf("no server lists %s or returned a link to it, and %s could each serve it; read it with proxy-dispatch naming the connection", uri, strings.Join(owners, ", "))
}

// uriScheme is the scheme of a URI or URI template ("" if none).
func uriScheme(uri string) string {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok {
		return ""
	}
	if u, err := url.Parse(scheme + ":"); err != nil || u.Scheme == "" {
		return ""
	}
	return strings.ToLower(scheme)
}
