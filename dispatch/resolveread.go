package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"dispatch/connections"
)

// ResourceNotFoundError means no connection serves the URI (or prompt);
// it names the servers that could not be asked.
type ResourceNotFoundError struct {
	What        string   // `resource "x://y"` or `prompt "p"`
	Unreachable []string // "c3: connect: ..."
	Hint        string
}

func (e *ResourceNotFoundError) Error() string {
	var b strings.Builder
	if len(e.Unreachable) > 0 {
		fmt.Fprintf(&b, "could not reach %s to look for %s there, so it may yet exist: %s; ",
			strings.Join(unreachableAliases(e.Unreachable), ", "), e.What, strings.Join(e.Unreachable, "; "))
	}
	fmt.Fprintf(&b, "no connection serves %s. %s", e.What, e.Hint)
	return b.String()
}

// resolveResource finds the connection to read uri from: the one named
// by connKey; else the one whose resource list has uri, else the one that
// returned it in a resource_link or embedded resource, else the one with a
// template that matches it. Several at the first tier that has any is an
// error listing them.
func (s *Service) resolveResource(ctx context.Context, connKey, uri string) (*connections.Conn, error) {
	if connKey != "" {
		conn, err := s.conns.Lookup(connKey)
		if err != nil {
			return nil, err
		}
		// Started now, so that what it declared is known.
		if err := conn.Connect(ctx); err != nil {
			return nil, err
		}
		if caps, known := conn.Capabilities(); known && !caps.Resources {
			return nil, usagef(`See which connections have resources with {"action":"list","type":"resource"}`,
				"connection %s offers no resources (it declared none in initialize)", describeConn(conn))
		}
		return conn, nil
	}
	var (
		listed, linked, templated []*connections.Conn
		unreachable               []string
	)
	for _, conn := range s.conns.Conns() {
		resources, err := conn.Resources(ctx, false)
		if err != nil {
			unreachable = append(unreachable, err.Error())
			continue
		}
		if hasMember(resources, "uri", uri) {
			listed = append(listed, conn)
			continue
		}
		if s.links.returned(conn.Alias, uri) {
			linked = append(linked, conn)
			continue
		}
		templates, err := conn.ResourceTemplates(ctx, false)
		if err != nil {
			unreachable = append(unreachable, err.Error())
			continue
		}
		for _, t := range templates {
			if templateMatches(gjson.GetBytes(t, "uriTemplate").String(), uri) {
				templated = append(templated, conn)
				break
			}
		}
	}
	for _, tier := range []struct {
		conns []*connections.Conn
		how   string
	}{{listed, "list it"}, {linked, "returned it in a resource link"}, {templated, "have a template matching it"}} {
		switch len(tier.conns) {
		case 0:
			continue
		case 1:
			return tier.conns[0], nil
		}
		return nil, ambiguousConns(fmt.Sprintf("resource %q", uri), tier.how, tier.conns,
			fmt.Sprintf(`{"action":"call","type":"resource","uri":%q,"connection":%q}`, uri, tier.conns[0].Alias))
	}
	return nil, &ResourceNotFoundError{What: fmt.Sprintf("resource %q", uri), Unreachable: unreachable,
		Hint: `See the resources and templates there are with {"action":"list","type":"resource"}; a URI a tool returned can be read from its connection: pass "connection".`}
}

// resolvePrompt finds the connection whose prompt list has name (or the
// one named by connKey), and the prompt's definition.
func (s *Service) resolvePrompt(ctx context.Context, connKey, name string) (*connections.Conn, json.RawMessage, error) {
	conns := s.conns.Conns()
	if connKey != "" {
		conn, err := s.conns.Lookup(connKey)
		if err != nil {
			return nil, nil, err
		}
		if err := conn.Connect(ctx); err != nil {
			return nil, nil, err
		}
		if caps, known := conn.Capabilities(); known && !caps.Prompts {
			return nil, nil, usagef(`See which connections have prompts with {"action":"list","type":"prompt"}`,
				"connection %s offers no prompts (it declared none in initialize)", describeConn(conn))
		}
		conns = []*connections.Conn{conn}
	}
	var (
		found       []*connections.Conn
		def         json.RawMessage
		unreachable []string
	)
	for _, conn := range conns {
		prompts, err := conn.Prompts(ctx, false)
		if err != nil {
			if connKey != "" {
				return nil, nil, err
			}
			unreachable = append(unreachable, err.Error())
			continue
		}
		for _, p := range prompts {
			if gjson.GetBytes(p, "name").String() == name {
				found = append(found, conn)
				def = p
				break
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], def, nil
	case 0:
		where := ""
		if connKey != "" {
			where = " on " + connKey
		}
		return nil, nil, &ResourceNotFoundError{What: fmt.Sprintf("prompt %q%s", name, where), Unreachable: unreachable,
			Hint: `See the prompts there are with {"action":"list","type":"prompt"}.`}
	}
	return nil, nil, ambiguousConns(fmt.Sprintf("prompt %q", name), "offer it", found,
		fmt.Sprintf(`{"action":"call","type":"prompt","prompt":%q,"connection":%q}`, name, found[0].Alias))
}

// ambiguousConns is the error for a name several connections answer to.
func ambiguousConns(what, how string, conns []*connections.Conn, example string) error {
	names := make([]string, len(conns))
	for i, c := range conns {
		names[i] = describeConn(c)
	}
	return usagef("Pass \"connection\" to pick one, e.g. "+example,
		"%s is ambiguous: connections %s all %s", what, strings.Join(names, ", "), how)
}

// hasMember reports whether one of the raw objects has key equal to want.
func hasMember(items []json.RawMessage, key, want string) bool {
	for _, item := range items {
		if gjson.GetBytes(item, key).String() == want {
			return true
		}
	}
	return false
}
