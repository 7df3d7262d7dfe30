package dispatch

import (
	"slices"
	"strings"

	"bytes"
	"dispatch/connections"
	"encoding/json"
	"fmt"
)

// pathIsToolInput reports whether a call names its tool in "tool" and also
// has a "path" that is not that name: the agent's own input for the tool,
// put at the top level.
func pathIsToolInput(fields map[string]json.RawMessage) bool {
	if fields["path"] == nil || fields["tool"] == nil {
		return false
	}
	var typ, tool, path string
	if t, ok := fields["type"]; ok && (json.Unmarshal(t, &typ) != nil || (typ != "" && typ != TypeTool)) {
		return false
	}
	if json.Unmarshal(fields["tool"], &tool) != nil || tool == "" {
		return false
	}
	return json.Unmarshal(fields["path"], &path) != nil || path != tool
}

// given reports whether a raw JSON value was given: absent and null are
// the same to every parameter.
func given(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && string(trimmed) != "null"
}

// normalizeSpelling accepts the Proxy Extension's names for dispatch's own
// ("args" for "arguments", "path" for the tool name, resource URI or
// prompt name). It runs in Check, and running it again changes nothing;
// whether the names fit the type is checked after it.
func (r *Request) normalizeSpelling() error {
	switch r.Type {
	case "", TypeTool, TypeResource, TypePrompt:
	default:
		return usagef(`Use "type": "tool" (the default), "resource" or "prompt"`, "unknown type %q", r.Type)
	}
	if given(r.Args) {
		if given(r.Arguments) {
			return usagef(`Give the inputs once, in "arguments" ("args" is the same parameter under the Proxy Extension's name)`,
				"both \"arguments\" and \"args\" given")
		}
		if _, err := argumentsObject(r.Args); err != nil {
			return usagef(`Example: {"action":"call","type":"tool","path":"add","args":{"a":1,"b":2}}`,
				"\"args\" (the Proxy Extension's name for \"arguments\") must be a JSON object of the inputs, or a string holding one")
		}
		r.Arguments = r.Args
	}
	r.Args = nil
	if r.Action != "info" && r.Action != "call" {
		return nil
	}
	if r.Type == "" && r.Tool == "" {
		// "uri" names a resource and "prompt" a prompt, so either one
		// alone says the type, as the README promises: an agent that
		// writes {"action":"call","uri":…} means to read it.
		switch {
		case r.URI != "" && r.Prompt == "":
			r.Type = TypeResource
		case r.Prompt != "" && r.URI == "":
			r.Type = TypePrompt
		}
	}
	if r.Path == "" {
		return nil
	}
	target, name := r.nameField()
	if *target != "" && *target != r.Path {
		return usagef(fmt.Sprintf(`Give the %s once: "path" is the Proxy Extension's name for %q`, r.typeName(), name),
			"\"path\" %q and %q %q differ", r.Path, name, *target)
	}
	*target, r.Path = r.Path, ""
	return nil
}

// nameField returns the field that names what info or call works on, by
// type, and that field's parameter name.
func (r *Request) nameField() (*string, string) {
	switch r.Type {
	case TypeResource:
		return &r.URI, "uri"
	case TypePrompt:
		return &r.Prompt, "prompt"
	}
	return &r.Tool, "tool"
}

// ProxyType is Type with its default spelled out: what answers report as
// proxyType. Search without a type ranks every kind, so it has none.
func (r *Request) ProxyType() string {
	if r.Type == "" && r.Action != "search" {
		return TypeTool
	}
	return r.Type
}

func (r *Request) typeName() string {
	switch r.Type {
	case TypeResource:
		return "resource's URI"
	case TypePrompt:
		return "prompt's name"
	}
	return "tool's name"
}

// ProxyShaped reports whether req's answer takes the Proxy Extension's
// shape (one embedded JSON resource) rather than dispatch's compact one.
func (r *Request) ProxyShaped() bool {
	return r.ProxyShape && (r.Action == "list" || r.Action == "info")
}

// proxySpelled reports whether an agent's request is written in the Proxy
// Extension's spelling: it uses "path" (on info or call), "args" or
// "filter_server", or it is a list with "type" and none of dispatch's own
// list parameters. "format" always asks for dispatch's own form. Requests
// built in code (the CLI's) never are.
func proxySpelled(action string, fields map[string]json.RawMessage) bool {
	if given(fields["format"]) {
		return false
	}
	if (action == "info" || action == "call") && given(fields["path"]) {
		return true
	}
	if given(fields["args"]) || given(fields["filter_server"]) {
		return true
	}
	if action != "list" || !given(fields["type"]) {
		return false
	}
	for _, own := range []string{"connection", "refresh", "includeTools", "includeInputSchema", "includeAnnotations"} {
		if given(fields[own]) {
			return false
		}
	}
	return true
}

// filterServer keeps the connections whose alias, configured name or
// server name (from its initialize answer) starts with prefix: the Proxy
// Extension's filter_server. "c1" keeps c1 and c10 to c19, as a prefix
// does; nil or "" keeps all.
func filterServer(conns []*connections.Conn, prefix *string) []*connections.Conn {
	if prefix == nil || *prefix == "" {
		return conns
	}
	kept := []*connections.Conn{}
	for _, c := range conns {
		names := []string{c.Alias, c.Config.Name, c.State().Info.Name}
		if slices.ContainsFunc(names, func(n string) bool { return n != "" && strings.HasPrefix(n, *prefix) }) {
			kept = append(kept, c)
		}
	}
	return kept
}
