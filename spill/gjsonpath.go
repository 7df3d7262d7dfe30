package spill

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// gjsonSyntaxURL is where an agent can read the path syntax.
const gjsonSyntaxURL = "https://github.com/tidwall/gjson/blob/master/SYNTAX.md"

// CheckPath reports a gjson path that cannot be what its author meant: an
// unclosed or unmatched bracket, an unterminated string inside a query, or
// an unknown @modifier. gjson itself never rejects a path — a broken one
// just matches nothing — so without this "items.#(size>" would read as an
// empty result instead of a typo. It also refuses a path whose work is
// unbounded before it starts: one longer than MaxPathBytes, with more
// than MaxMultipathElements multipath elements, or with a modifier or
// multipath inside a query's condition, which gjson would run on every
// element outside any budget.
func CheckPath(path string) error {
	if len(path) > MaxPathBytes {
		return badRequest("gjson path is %s long, more than the limit of %s (MaxPathBytes); select in steps instead", humanBytes(int64(len(path))), humanBytes(MaxPathBytes))
	}
	if err := checkSyntax(path); err != nil {
		return err
	}
	if n := countMultipathElements(path, MaxMultipathElements); n > MaxMultipathElements {
		return badRequest("gjson path %.80q has more than %d multipath elements ([a,b] or {a,b}, nested ones included; MaxMultipathElements); select fewer fields at once", path, MaxMultipathElements)
	}
	return nil
}

// checkSyntax is CheckPath's check of brackets, strings and modifiers.
func checkSyntax(path string) error {
	var open []int // positions of unclosed ( [ {
	queries := 0   // how many of them belong to queries: #( #[
	inString := false
	componentStart := true
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '\\' {
			i++ // the next byte is literal
			componentStart = false
			continue
		}
		if inString {
			if c == '"' {
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			// Quotes matter only inside queries and multipaths, where they
			// delimit string values; elsewhere they are part of a key.
			inString = len(open) > 0
		case '(', '[', '{':
			isQuery := i > 0 && path[i-1] == '#' && c != '{'
			if queries > 0 && !isQuery && componentStart && c != '(' {
				return fmt.Errorf("invalid gjson path %q: a multipath at position %d is inside a query #(...), where it would run once per element; select the elements first and apply it after the query", path, i+1)
			}
			open = append(open, i)
			if isQuery {
				queries++
			}
		case ')', ']', '}':
			if len(open) == 0 || path[open[len(open)-1]] != opening(c) {
				return fmt.Errorf("invalid gjson path %q: unexpected %q at position %d (see %s)", path, c, i+1, gjsonSyntaxURL)
			}
			at := open[len(open)-1]
			if at > 0 && path[at-1] == '#' && c != '}' {
				queries--
			}
			open = open[:len(open)-1]
		case '@':
			if queries > 0 && componentStart {
				return fmt.Errorf("invalid gjson path %q: a modifier at position %d is inside a query #(...), where it would run once per element; select the elements first and apply it after the query", path, i+1)
			}
			if componentStart && len(open) == 0 {
				name := path[i+1:]
				if end := strings.IndexAny(name, ":.|"); end >= 0 {
					name = name[:end]
				}
				if !gjson.ModifierExists(name, nil) {
					return fmt.Errorf("invalid gjson path %q: unknown modifier @%s (known: %s; escape a literal @ as \\@)", path, name, knownModifiers())
				}
			}
		}
		componentStart = c == '.' || c == '|' || (queries > 0 && (c == '(' || c == '['))
	}
	if inString {
		return fmt.Errorf("invalid gjson path %q: unterminated string (see %s)", path, gjsonSyntaxURL)
	}
	if len(open) > 0 {
		at := open[len(open)-1]
		return fmt.Errorf("invalid gjson path %q: %q at position %d is never closed (see %s)", path, path[at], at+1, gjsonSyntaxURL)
	}
	return nil
}

func opening(closing byte) byte {
	switch closing {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// knownModifiers lists gjson's stock modifiers for error messages.
func knownModifiers() string {
	names := []string{"pretty", "ugly", "reverse", "this", "flatten", "join", "valid", "keys", "values", "tostr", "fromstr", "group", "dig"}
	names = slices.DeleteFunc(names, func(n string) bool { return !gjson.ModifierExists(n, nil) })
	return "@" + strings.Join(names, ", @")
}
