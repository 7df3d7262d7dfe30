package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dispatch/connections"
)

// linkHint ends a "no resource" error: a URI a tool handed out may be in
// no list.
const linkHint = `; a URI a tool returned (a resource_link) is read from the connection that returned it: pass "connection"`

// resolveResource finds the connection to read uri from: the one named
// by connKey (which reads any URI, listed or not); else the one whose
// resource list has uri; else the one that returned it in a resource_link
// or embedded resource (see linkMemory); else the one with a template
// that matches it. Several at the first rank that has any is an error
// listing them.
func (s *Service) resolveResource(ctx context.Context, connKey, uri string) (*connections.Conn, error) {
	conns, err := s.selectConns(connKey)
	if err != nil {
		return nil, err
	}
	if connKey != "" {
		conn := conns[0]
		// Started now, so that what it declared is known.
		if err := conn.Connect(ctx); err != nil {
			return nil, err
		}
		if caps, known := conn.Capabilities(); known && !caps.Resources {
			return nil, usagef(`{"action":"list","type":"resource"} lists what every connection offers`,
				"%s offers no resources", describeConn(conn))
		}
		return conn, nil
	}
	cats := resourceCatalogs(ctx, conns, false)
	match, findErr := findResource(uri, cats)
	if findErr == nil && match.def.URI == uri {
		return match.conn, nil
	}
	var linked []*connections.Conn
	for _, c := range conns {
		if s.links.returned(c.Alias, uri) {
			linked = append(linked, c)
		}
	}
	listed, owners := resourceOwners(uri, cats)
	switch {
	case listed > 1:
		// Listed by several: ambiguous at the first rank, whoever
		// handed the URI out since.
		return nil, findErr
	case len(linked) == 1:
		// A link names its connection only among those that do not
		// offer the URI themselves: a server's resource_link must not
		// take a URI that another server lists or serves by a template.
		for _, c := range owners {
			if c != linked[0] {
				return nil, ambiguousLink(uri, append(linked, c), "returned by", "offered by")
			}
		}
		return linked[0], nil
	case len(linked) > 1:
		return nil, ambiguousLink(uri, linked, "returned by", "returned by")
	case findErr == nil:
		return match.conn, nil
	}
	var usage *UsageError
	if errors.As(findErr, &usage) && strings.HasPrefix(usage.Msg, "no resource with uri") {
		return nil, &UsageError{Msg: usage.Msg + linkHint, Hint: usage.Hint, ShellHint: usage.ShellHint}
	}
	return nil, findErr
}

// ambiguousLink is the error for a URI several connections handed out,
// or one handed out (first) and another offers (how says which).
func ambiguousLink(uri string, conns []*connections.Conn, first, others string) error {
	if first == others {
		names := make([]string, len(conns))
		for i, c := range conns {
			names[i] = describeConn(c)
		}
		alias := conns[0].Alias
		return usageBoth(fmt.Sprintf(`Add "connection":%q (or another of them)`, alias),
			fmt.Sprintf("Add -C %s (or another of them)", shellQuote(alias)),
			"resource uri %q was %s %d connections: %s", uri, first, len(conns), strings.Join(names, ", "))
	}
	alias := conns[1].Alias
	return usageBoth(fmt.Sprintf(`Add "connection":%q to read it where it is offered, or "connection":%q to read it from the one that returned it`, alias, conns[0].Alias),
		fmt.Sprintf("Add -C %s to read it where it is offered, or -C %s", shellQuote(alias), shellQuote(conns[0].Alias)),
		"resource uri %q was %s %s, and is %s %s", uri, first, describeConn(conns[0]), others, describeConn(conns[1]))
}

// resourceOwners says how many connections list uri, and which list it or
// have a template it matches.
func resourceOwners(uri string, cats []sideCatalog) (listed int, owners []*connections.Conn) {
	for _, cat := range cats {
		owns := false
		for _, d := range cat.resources {
			if d.URI == uri {
				listed++
				owns = true
				break
			}
			if d.URITemplate != "" {
				if d.URITemplate == uri {
					owns = true
				} else if _, ok := matchTemplate(d.URITemplate, uri); ok {
					owns = true
				}
			}
		}
		if owns {
			owners = append(owners, cat.conn)
		}
	}
	return listed, owners
}

// resolvePrompt finds the connection whose prompt list has name (only
// among connKey's, when given), and the prompt's definition.
func (s *Service) resolvePrompt(ctx context.Context, connKey, name string) (*connections.Conn, json.RawMessage, error) {
	conns, err := s.selectConns(connKey)
	if err != nil {
		return nil, nil, err
	}
	cats := promptCatalogs(ctx, conns, false)
	var (
		matches []resourceMatch
		found   promptDef
	)
	for _, cat := range cats {
		for _, p := range cat.prompts {
			if p.Name == name {
				matches = append(matches, resourceMatch{conn: cat.conn, def: resourceDef{URI: p.Name}})
				found = p
			}
		}
	}
	switch len(matches) {
	case 1:
		return matches[0].conn, found.Raw, nil
	case 0:
		return nil, nil, notFound("prompt", "name", name, cats)
	}
	return nil, nil, ambiguous("prompt", "name", name, matches)
}
