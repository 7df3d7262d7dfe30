// Package uritemplates matches URIs against RFC 6570 URI templates: the
// reverse of expansion, shared by reading a resource (which template of
// which server does this URI belong to) and by search (a pasted URI finds
// the template it expands). Import rule: the standard library and
// github.com/yosida95/uritemplate/v3 only.
package uritemplates

import "github.com/yosida95/uritemplate/v3"

// Template is a parsed URI template, safe for concurrent use: parse once,
// match many URIs.
type Template struct{ t *uritemplate.Template }

// Parse parses an RFC 6570 template.
func Parse(template string) (*Template, error) {
	t, err := uritemplate.New(template)
	if err != nil {
		return nil, err
	}
	return &Template{t: t}, nil
}

// Match reports whether uri is an expansion of t, with the values of its
// variables. A template without variables matches nothing: it is a plain
// URI, compared as such by the caller.
func (t *Template) Match(uri string) (map[string]string, bool) {
	names := t.t.Varnames()
	if len(names) == 0 {
		return nil, false
	}
	values := t.t.Match(uri)
	if values == nil {
		return nil, false
	}
	out := map[string]string{}
	for _, name := range names {
		if v := values.Get(name); v.Valid() {
			out[name] = v.String()
		}
	}
	return out, true
}

// Match parses template and matches uri against it; a template that does
// not parse matches nothing.
func Match(template, uri string) (map[string]string, bool) {
	t, err := Parse(template)
	if err != nil {
		return nil, false
	}
	return t.Match(uri)
}
