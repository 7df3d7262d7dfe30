package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"
)

// argPair is one NAME=VALUE word of call, typed from the tool's input
// schema, or NAME:=JSON, taken as JSON whatever the schema says (httpie's
// and gh api -F's habits).
type argPair struct {
	name, value string
	raw         bool
}

func (p argPair) String() string {
	if p.raw {
		return p.name + ":=" + p.value
	}
	return p.name + "=" + p.value
}

// maxRefDepth bounds how many $refs are followed to find a property's type:
// a schema that refers to itself must not loop.
const maxRefDepth = 8

// splitCallArgs sorts call's words after the tool name: at most one JSON
// object (or - for one on stdin, at most limit bytes, as an argumentsFile
// is), and NAME=VALUE or NAME:=JSON pairs.
func splitCallArgs(words []string, stdin io.Reader, limit int64) (string, []argPair, error) {
	var object string
	var pairs []argPair
	seen := map[string]bool{}
	for _, w := range words {
		trimmed := strings.TrimSpace(w)
		switch {
		case trimmed == "":
			continue
		case trimmed == "-" || strings.HasPrefix(trimmed, "{"):
			if object != "" {
				return "", nil, &usageErr{fmt.Errorf("give the tool's arguments as one JSON object, not two (NAME=VALUE words may add to it)")}
			}
			object = trimmed
			if trimmed == "-" {
				data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
				if err != nil {
					return "", nil, fmt.Errorf("read arguments from stdin: %w", err)
				}
				if int64(len(data)) > limit {
					return "", nil, &usageErr{fmt.Errorf("the arguments on stdin are larger than %s (--max-args-file): they travel in one message, which the server must hold whole. Raise --max-args-file, or save them to a file and pass only the part you need with -f FILE --arguments-path PATH",
						humanize.IBytes(uint64(limit)))}
				}
				object = string(data)
			}
			continue
		}
		name, value, ok := strings.Cut(w, "=")
		pair := argPair{name: name, value: value}
		if strings.HasSuffix(name, ":") {
			pair = argPair{name: strings.TrimSuffix(name, ":"), value: value, raw: true}
		}
		if !ok || pair.name == "" {
			return "", nil, &usageErr{fmt.Errorf("argument %q is neither a JSON object nor NAME=VALUE: write NAME=VALUE (typed from the tool's schema), NAME:=JSON, or one JSON object such as '{\"a\": 1}'", w)}
		}
		if seen[pair.name] {
			return "", nil, &usageErr{fmt.Errorf("argument %q is given twice: give each NAME once (NAME:='[...]' for a list)", pair.name)}
		}
		seen[pair.name] = true
		pairs = append(pairs, pair)
	}
	return object, pairs, nil
}

// mergeCallArgs builds the tool's arguments from a JSON object (may be
// empty) and pairs, which override its keys; values of NAME=VALUE pairs are
// typed from schema, the tool's input schema.
func mergeCallArgs(tool, object string, schema json.RawMessage, pairs []argPair) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if strings.TrimSpace(object) != "" {
		if err := json.Unmarshal([]byte(object), &args); err != nil || args == nil {
			return nil, &usageErr{fmt.Errorf("the arguments must be one JSON object such as '{\"a\": 1}', or NAME=VALUE words: %s", describeJSONErr(err))}
		}
	}
	for _, p := range pairs {
		v, err := pairValue(tool, schema, p)
		if err != nil {
			return nil, err
		}
		args[p.name] = v
	}
	return marshalNoEscape(args)
}

// pairValue is a pair's value as JSON. NAME=VALUE is a string unless the
// schema gives the property only non-string types (number, integer,
// boolean, array, object, null): then VALUE must be JSON of one of them.
func pairValue(tool string, schema json.RawMessage, p argPair) (json.RawMessage, error) {
	if p.raw {
		if !json.Valid([]byte(p.value)) {
			return nil, &usageErr{fmt.Errorf("%s: the value after := must be JSON (for text use %s=VALUE, or quote it: %s:='\"text\"')", p, p.name, p.name)}
		}
		return json.RawMessage(p.value), nil
	}
	types := propertyTypes(schema, p.name)
	if len(types) == 0 || types["string"] {
		return marshalNoEscape(p.value)
	}
	if json.Valid([]byte(p.value)) {
		kind := jsonKind(gjson.Parse(p.value))
		if types[kind] || kind == "integer" && types["number"] {
			return json.RawMessage(p.value), nil
		}
	}
	return nil, &usageErr{fmt.Errorf("%s: %q is %s in the input schema of %s, and %q is not; give one, or %s:=JSON for any JSON value",
		p, p.name, typeList(types), tool, p.value, p.name)}
}

// jsonKind names a JSON value's type as JSON Schema does; a whole number
// is "integer" (which JSON Schema also counts as a "number").
func jsonKind(v gjson.Result) string {
	switch {
	case v.Type == gjson.True || v.Type == gjson.False:
		return "boolean"
	case v.Type == gjson.Null:
		return "null"
	case v.Type == gjson.Number:
		if v.Num == math.Trunc(v.Num) && !math.IsInf(v.Num, 0) {
			return "integer"
		}
		return "number"
	case v.IsArray():
		return "array"
	case v.IsObject():
		return "object"
	}
	return "string"
}

// propertyTypes returns the JSON Schema types a property may take, from its
// "type", following local $refs and anyOf/oneOf; none when the schema does
// not say.
func propertyTypes(schema json.RawMessage, name string) map[string]bool {
	root := gjson.ParseBytes(schema)
	prop := root.Get("properties." + gjson.Escape(name))
	types := map[string]bool{}
	collectTypes(root, prop, types, 0)
	return types
}

func collectTypes(root, s gjson.Result, types map[string]bool, depth int) {
	if !s.Exists() || depth > maxRefDepth {
		return
	}
	if ref := s.Get(`\$ref`).String(); strings.HasPrefix(ref, "#/") {
		collectTypes(root, root.Get(refPath(ref)), types, depth+1)
	}
	t := s.Get("type")
	if t.IsArray() {
		for _, e := range t.Array() {
			types[e.String()] = true
		}
	} else if t.Type == gjson.String {
		types[t.String()] = true
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		for _, alt := range s.Get(key).Array() {
			collectTypes(root, alt, types, depth+1)
		}
	}
	// An enum without a type is typed by its values.
	if !t.Exists() {
		for _, e := range s.Get("enum").Array() {
			types[jsonKind(e)] = true
		}
	}
}

// refPath turns a local JSON pointer ("#/$defs/operand") into a gjson path.
func refPath(ref string) string {
	parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		parts[i] = gjson.Escape(p)
	}
	return strings.Join(parts, ".")
}

func typeList(types map[string]bool) string {
	var names []string
	for _, t := range []string{"number", "integer", "boolean", "array", "object", "null"} {
		if types[t] {
			names = append(names, t)
		}
	}
	switch len(names) {
	case 0:
		return "typed"
	case 1:
		if strings.ContainsRune("aeiou", rune(names[0][0])) {
			return "an " + names[0]
		}
		return "a " + names[0]
	}
	return "one of " + strings.Join(names, ", ")
}

func describeJSONErr(err error) string {
	if err == nil {
		return "it is null"
	}
	return err.Error()
}

// marshalNoEscape is json.Marshal without HTML escaping: a shell user's
// "<b>" reaches the tool as typed.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
