package dispatch

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// isTemplate reports whether uri holds an RFC 6570 expression.
func isTemplate(uri string) bool { return strings.ContainsAny(uri, "{}") }

// expandResourceURI returns the URI to read: uri itself, or the template
// uri expanded with arguments (RFC 6570). Every variable of the template
// must be given, and nothing else.
func expandResourceURI(uri string, arguments json.RawMessage) (string, error) {
	if len(uri) > MaxNameBytes {
		return "", usagef("Give the resource's URI", "uri is %d bytes; at most %d are accepted (MaxNameBytes)", len(uri), MaxNameBytes)
	}
	args, err := templateArguments(arguments)
	if err != nil {
		return "", err
	}
	if !isTemplate(uri) {
		if len(args) > 0 {
			return "", usagef(exampleReadResource, "\"arguments\" fill a URI template's {variables}, and uri %q has none; leave them out, or give the template", uri)
		}
		return uri, nil
	}
	tmpl, err := uritemplate.New(uri)
	if err != nil {
		return "", usagef(exampleReadResource, "uri %q is not a valid URI template (RFC 6570): %v", uri, err)
	}
	names := tmpl.Varnames()
	var missing []string
	known := map[string]bool{}
	for _, name := range names {
		known[name] = true
		if _, ok := args[name]; !ok {
			missing = append(missing, name)
		}
	}
	var unknown []string
	for name := range args {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	example, shell := templateExample(uri, names)
	switch {
	case len(missing) > 0:
		return "", usageBoth(example, shell, "URI template %q needs %s in \"arguments\"; missing %s", uri, quoteAll(names), quoteAll(missing))
	case len(unknown) > 0:
		return "", usageBoth(example, shell, "URI template %q has no variable %s; its variables are %s", uri, quoteAll(unknown), quoteAll(names))
	}
	values := uritemplate.Values{}
	for name, v := range args {
		values.Set(name, uritemplate.String(v))
	}
	expanded, err := tmpl.Expand(values)
	if err != nil {
		return "", usageBoth(example, shell, "expand URI template %q: %v", uri, err)
	}
	return expanded, nil
}

// templateArguments decodes a template's arguments: strings, or numbers
// and booleans, which stand for their text.
func templateArguments(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, usagef(exampleReadResource, "\"arguments\" must be a JSON object of the template's variables")
	}
	args := make(map[string]string, len(fields))
	for name, v := range fields {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			args[name] = s
			continue
		}
		var n json.Number
		if err := json.Unmarshal(v, &n); err == nil {
			args[name] = n.String()
			continue
		}
		var b bool
		if err := json.Unmarshal(v, &b); err == nil {
			args[name] = strconv.FormatBool(b)
			continue
		}
		return nil, usagef(exampleReadResource, "template variable %q must be a string (or a number), not %s", name, summarize(string(v), 40))
	}
	return args, nil
}

// templateExample is a request reading template uri with every variable,
// for an agent and for a shell.
func templateExample(uri string, names []string) (string, string) {
	args := map[string]string{}
	shell := "Example: dispatch read " + shellQuote(uri)
	for _, n := range names {
		args[n] = "..."
		shell += " " + shellQuote(n+"=VALUE")
	}
	example, err := marshalJSON(map[string]any{"action": "call", "type": TypeResource, "uri": uri, "arguments": args})
	if err != nil {
		return exampleReadResource, shell
	}
	return "Example: " + string(example), shell
}
