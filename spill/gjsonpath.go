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
// empty result instead of a typo.
func CheckPath(path string) error {
	var open []int // positions of unclosed ( [ {
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
			open = append(open, i)
		case ')', ']', '}':
			if len(open) == 0 || path[open[len(open)-1]] != opening(c) {
				return fmt.Errorf("invalid gjson path %q: unexpected %q at position %d (see %s)", path, c, i+1, gjsonSyntaxURL)
			}
			open = open[:len(open)-1]
		case '@':
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
		componentStart = c == '.' || c == '|'
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
