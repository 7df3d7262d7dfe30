package spill

import (
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Bounds of one gjson path's work (query, argumentsPath). gjson builds a
// multipath's value whole, once per element, before anything could cut
// it: "[@this,@this,…]" over a 1 MiB file asks for gigabytes. So paths
// with multipaths or modifiers are evaluated here, one component at a
// time, with a running budget on what is built.
const (
	// MaxPathBytes is the longest gjson path accepted (4 KiB).
	MaxPathBytes = 4 << 10

	// MaxMultipathElements is the most elements all the multipaths
	// ("[a,b]", "{a,b}") of one path may have together, nested ones
	// included.
	MaxMultipathElements = 64

	// MaxQueryBuildBytes bounds what one query's multipaths, modifiers and
	// the arrays mapped around them build in all (64 MiB). Selecting a
	// plain part of the file builds nothing and is not counted.
	MaxQueryBuildBytes = 64 << 20
)

type compKind int

const (
	plainComp compKind = iota // a key, an index, "#", a query
	modifierComp
	literalComp
	multipathComp
)

// pathComp is one component of a gjson path.
type pathComp struct {
	sep  byte // '.', '|', or 0 for the first component
	text string
	kind compKind
}

// splitPath splits a gjson path at the dots and pipes that separate its
// components, the way gjson reads them: not inside brackets or a
// modifier's argument, not after a backslash.
func splitPath(path string) []pathComp {
	var comps []pathComp
	sep := byte(0)
	for start := 0; start <= len(path); {
		end := componentEnd(path, start, sep)
		text := path[start:end]
		comps = append(comps, pathComp{sep: sep, text: text, kind: classify(text, sep, start == 0)})
		if end >= len(path) {
			break
		}
		sep = path[end]
		start = end + 1
	}
	return comps
}

// classify tells what gjson makes of a component: a modifier is one
// anywhere, a literal ("!true") only first or after a pipe.
func classify(text string, sep byte, first bool) compKind {
	if text == "" {
		return plainComp
	}
	switch text[0] {
	case '@':
		if gjson.ModifierExists(modifierName(text), nil) {
			return modifierComp
		}
	case '!':
		if first || sep == '|' {
			return literalComp
		}
	case '[', '{':
		return multipathComp
	}
	return plainComp
}

// modifierName is the name of the modifier component text ("@pretty:{…}").
func modifierName(text string) string {
	name := text[1:]
	if i := strings.IndexAny(name, ":.|"); i >= 0 {
		name = name[:i]
	}
	return name
}

// componentEnd returns where the component starting at start ends: at a
// separator at bracket depth 0, or — for a modifier with an argument — where
// gjson ends the argument (a JSON value, or anything up to a pipe).
func componentEnd(path string, start int, sep byte) int {
	rest := path[start:]
	switch {
	case strings.HasPrefix(rest, "@"):
		name := modifierName(rest)
		if at := start + 1 + len(name); at < len(path) && path[at] == ':' && gjson.ModifierExists(name, nil) {
			return modifierArgEnd(path, at+1)
		}
	case strings.HasPrefix(rest, "!") && (start == 0 || sep == '|') && len(rest) > 1 && strings.IndexByte("+-0123456789", rest[1]) >= 0:
		i := start + 2
		for i < len(path) && strings.IndexByte("0123456789.eE+-", path[i]) >= 0 {
			i++
		}
		return i
	}
	return scanTo(path, start, ".|")
}

// modifierArgEnd returns where a modifier's argument starting at i ends.
func modifierArgEnd(path string, i int) int {
	if i < len(path) && strings.IndexByte(`{["`, path[i]) >= 0 {
		return skipValue(path, i)
	}
	return scanTo(path, i, "|")
}

// scanTo returns the index of the first byte of stops at bracket depth 0
// from i on (or len(path)), skipping escaped bytes and quoted strings
// inside brackets.
func scanTo(path string, i int, stops string) int {
	depth := 0
	for ; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '\\':
			i++
		case c == '"' && depth > 0:
			i = skipString(path, i) - 1
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth <= 0 && strings.IndexByte(stops, c) >= 0:
			return i
		}
	}
	return len(path)
}

// skipValue returns the index after the bracketed value or string at i.
func skipValue(path string, i int) int {
	if path[i] == '"' {
		return skipString(path, i)
	}
	depth := 0
	for ; i < len(path); i++ {
		switch path[i] {
		case '"':
			i = skipString(path, i) - 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(path)
}

// skipString returns the index after the string whose quote is at i.
func skipString(path string, i int) int {
	for i++; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(path)
}

// subSelector is one element of a multipath: its path and, in "{…}", the
// name given to it.
type subSelector struct{ name, path string }

// parseMultipath splits "[a,b]" or `{"x":a,b}` into its elements, as
// gjson's parseSubSelectors does.
func parseMultipath(text string) []subSelector {
	var sels []subSelector
	depth, colon, modifier, start := 1, 0, 0, 1
	push := func(i int) {
		sel := subSelector{path: text[start:i]}
		if colon > 0 {
			sel = subSelector{name: text[start:colon], path: text[colon+1 : i]}
		}
		sels = append(sels, sel)
		colon, modifier, start = 0, 0, i+1
	}
	for i := 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '@':
			if modifier == 0 && (text[i-1] == '.' || text[i-1] == '|') {
				modifier = i
			}
		case ':':
			if modifier == 0 && colon == 0 && depth == 1 {
				colon = i
			}
		case ',':
			if depth == 1 {
				push(i)
			}
		case '"':
			i = skipString(text, i) - 1
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				push(i)
				return sels
			}
		}
	}
	return sels
}

// countMultipathElements counts the elements of every multipath in path,
// nested ones included, stopping once past limit.
func countMultipathElements(path string, limit int) int {
	n := 0
	for _, c := range splitPath(path) {
		if c.kind != multipathComp {
			continue
		}
		for _, sel := range parseMultipath(c.text) {
			n++
			if n > limit {
				return n
			}
			n += countMultipathElements(sel.path, limit-n)
			if n > limit {
				return n
			}
		}
	}
	return n
}

// hasBuilders reports whether path has a component that builds a new
// value (a modifier, a literal or a multipath) rather than selecting a
// part of the input.
func hasBuilders(comps []pathComp) bool {
	for _, c := range comps {
		if c.kind != plainComp {
			return true
		}
	}
	return false
}

// evaluator runs one gjson path over JSON, charging what multipaths,
// modifiers and mapped arrays build to a budget before (or while) it is
// built.
type evaluator struct {
	path  string // the whole path, for errors
	limit int64
	what  string // what the limit bounds, for errors: "query", "argumentsPath"
	used  int64
}

// charge counts n more bytes built, or refuses them.
func (e *evaluator) charge(n int) error {
	if e.used+int64(n) > e.limit {
		return tooLarge("%q builds more than %s, the limit on what one %s may build (multipaths and modifiers copy what they select); select a smaller part first, e.g. one element or one field",
			e.path, humanBytes(e.limit), e.what)
	}
	e.used += int64(n)
	return nil
}

func (e *evaluator) left() int64 { return e.limit - e.used }

// getPath is gjson.Get for a checked path, bounded: a path without
// multipaths, modifiers or literals only selects, so gjson runs it whole;
// any other is evaluated component by component. data is not copied: the
// result may point into it.
func getPath(data []byte, path string, limit int64, what string) (gjson.Result, error) {
	json := unsafe.String(unsafe.SliceData(data), len(data))
	comps := splitPath(path)
	if !hasBuilders(comps) {
		return gjson.Get(json, path), nil
	}
	e := &evaluator{path: path, limit: limit, what: what}
	return e.eval(gjson.Result{Type: gjson.JSON, Raw: json}, comps)
}

// eval applies comps to cur in order. After "#." (or "#(…)#."), gjson
// applies the components up to the next pipe to each element, and the
// rest to the array of their results.
func (e *evaluator) eval(cur gjson.Result, comps []pathComp) (gjson.Result, error) {
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		var err error
		switch {
		case c.kind == modifierComp:
			cur, err = e.modifier(cur, c.text)
		case c.kind == literalComp:
			cur = gjson.Get(cur.Raw, c.text) // its value is in the path, which is bounded
		case c.kind == multipathComp:
			cur, err = e.multipath(cur, c.text)
		case isMapping(c.text) && cur.IsArray() && i+1 < len(comps) && comps[i+1].sep == '.':
			each, rest := splitAtPipe(comps[i+1:])
			if c.text != "#" {
				cur = gjson.Get(cur.Raw, c.text) // the matching elements
			}
			if cur, err = e.mapEach(cur, each); err != nil {
				return gjson.Result{}, err
			}
			return e.eval(cur, rest)
		default:
			cur = gjson.Get(cur.Raw, c.text)
		}
		if err != nil {
			return gjson.Result{}, err
		}
		if !cur.Exists() {
			return cur, nil
		}
	}
	return cur, nil
}

// isMapping reports a component after which gjson maps the path over
// array elements: "#" or a query for all matches, "#(…)#".
func isMapping(text string) bool {
	return text == "#" || (strings.HasPrefix(text, "#(") || strings.HasPrefix(text, "#[")) && strings.HasSuffix(text, "#")
}

// splitAtPipe splits comps before the first component that follows a pipe.
func splitAtPipe(comps []pathComp) (before, after []pathComp) {
	for i, c := range comps {
		if c.sep == '|' {
			return comps[:i], comps[i:]
		}
	}
	return comps, nil
}

// rawOf is the JSON text of a result, as gjson writes it into a multipath.
func rawOf(r gjson.Result) string {
	if r.Raw != "" {
		return r.Raw
	}
	return r.String()
}

// mapEach applies comps to each element of the array arr and returns the
// array of the results that exist.
func (e *evaluator) mapEach(arr gjson.Result, comps []pathComp) (gjson.Result, error) {
	b := []byte{'['}
	var err error
	arr.ForEach(func(_, elem gjson.Result) bool {
		var r gjson.Result
		if r, err = e.eval(elem, comps); err != nil || !r.Exists() {
			return err == nil
		}
		raw := rawOf(r)
		if err = e.charge(len(raw) + 1); err != nil {
			return false
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, raw...)
		return true
	})
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.Result{Type: gjson.JSON, Raw: string(append(b, ']'))}, nil
}

// multipath builds "[a,b]" or "{a,b}" from cur, charging each element as
// it is added.
func (e *evaluator) multipath(cur gjson.Result, text string) (gjson.Result, error) {
	kind := text[0]
	b := []byte{kind}
	n := 0
	for _, sel := range parseMultipath(text) {
		r, err := e.eval(cur, splitPath(sel.path))
		if err != nil {
			return gjson.Result{}, err
		}
		if !r.Exists() {
			continue
		}
		raw := rawOf(r)
		if raw == "" {
			raw = "null"
		}
		var name []byte
		if kind == '{' {
			name = append(multipathName(sel), ':')
		}
		if err := e.charge(len(raw) + len(name) + 1); err != nil {
			return gjson.Result{}, err
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(append(b, name...), raw...)
		n++
	}
	return gjson.Result{Type: gjson.JSON, Raw: string(append(b, kind+2))}, nil
}

// multipathName is the key gjson gives an element of "{…}": its name, or
// the last component of its path when that is a simple name, or "_".
func multipathName(sel subSelector) []byte {
	switch {
	case sel.name != "" && sel.name[0] == '"' && gjson.Valid(sel.name):
		return []byte(sel.name)
	case sel.name != "":
		return gjson.AppendJSONString(nil, sel.name)
	}
	last := sel.path
	for i := len(last) - 1; i >= 0; i-- {
		if (last[i] == '|' || last[i] == '.') && (i == 0 || last[i-1] != '\\') {
			last = last[i+1:]
			break
		}
	}
	if strings.ContainsAny(last, "[]{}()#|!") || strings.IndexFunc(last, func(r rune) bool { return r < ' ' }) >= 0 {
		last = "_"
	}
	return gjson.AppendJSONString(nil, last)
}

// modifier runs the modifier component text on cur. Its input must be
// no deeper than MaxQueryDepth (tidwall/pretty and gjson recurse, and a
// stack overflow cannot be recovered), what it may build must fit the
// budget, and its output is held to the same depth, so that @fromstr
// cannot smuggle deeper JSON to the next component.
func (e *evaluator) modifier(cur gjson.Result, text string) (gjson.Result, error) {
	name := modifierName(text)
	in := jsonNesting(cur.Raw)
	if in.depth > MaxQueryDepth {
		return gjson.Result{}, badRequest("%q: the input of @%s nests deeper than %d levels; select a shallower part first", e.path, name, MaxQueryDepth)
	}
	bound, ok := modifierBound(name, text, cur, in)
	if !ok {
		return gjson.Result{}, badRequest("%q: modifier @%s is not supported here", e.path, name)
	}
	if bound > e.left() {
		return gjson.Result{}, tooLarge("%q: @%s could build up to %s here, more than the %s left of the limit of %s on what one %s may build; apply it to a smaller part",
			e.path, name, humanBytes(bound), humanBytes(e.left()), humanBytes(e.limit), e.what)
	}
	out := gjson.Get(cur.Raw, text)
	if name != "this" && name != "valid" { // these return their input, building nothing
		if err := e.charge(len(out.Raw)); err != nil {
			return gjson.Result{}, err
		}
	}
	if got := jsonNesting(out.Raw); got.depth > MaxQueryDepth {
		return gjson.Result{}, badRequest("%q: @%s produced JSON nesting deeper than %d levels, which cannot be queried further; use grep or read instead",
			e.path, name, MaxQueryDepth)
	}
	return out, nil
}

// nesting is what jsonNesting finds.
type nesting struct {
	depth      int // deepest nesting
	structural int // brackets and commas: where @pretty may break a line
	colons     int
}

// jsonNesting scans JSON text without recursing, however deep it is.
func jsonNesting(raw string) nesting {
	var n nesting
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = skipString(raw, i) - 1
		case '[', '{':
			depth++
			n.depth = max(n.depth, depth)
			n.structural++
		case ']', '}':
			depth--
			n.structural++
		case ',':
			n.structural++
		case ':':
			n.colons++
		}
	}
	return n
}

// modifierBound is the most a stock modifier can build from in; ok is
// false for a modifier whose growth is not known.
func modifierBound(name, text string, in gjson.Result, nest nesting) (bound int64, ok bool) {
	size := int64(len(in.Raw))
	switch name {
	case "this", "valid":
		return 0, true // they return their input
	case "ugly", "reverse", "flatten", "join", "keys", "values", "fromstr":
		return size + 2, true
	case "tostr":
		return 6*size + 2, true // every byte may become \u00XX
	case "pretty":
		args := ""
		if i := strings.IndexByte(text, ':'); i >= 0 {
			args = text[i+1:]
		}
		indent, prefix := int64(2), int64(0)
		if r := gjson.Get(args, "indent"); r.Exists() {
			indent = int64(len(r.String()))
		}
		if r := gjson.Get(args, "prefix"); r.Exists() {
			prefix = int64(len(r.String()))
		}
		// A line may start at each bracket or comma, indented to its depth.
		perLine := prefix + indent*int64(nest.depth) + 2
		return size + int64(nest.structural+1)*perLine + int64(nest.colons), true
	case "group":
		return groupBound(in), true
	case "dig":
		return size * int64(nest.depth+1), true // nested matches repeat their insides
	}
	return 0, false
}

// groupBound bounds @group's output: each element of each array member
// is written with its key.
func groupBound(in gjson.Result) int64 {
	bound := int64(len(in.Raw)) + 2
	in.ForEach(func(key, value gjson.Result) bool {
		if value.IsArray() {
			n := int64(0)
			value.ForEach(func(_, _ gjson.Result) bool { n++; return true })
			bound += n * (int64(len(key.Raw)) + 4)
		}
		return true
	})
	return bound
}
