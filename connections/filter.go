package connections

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// MaxFilterPatterns bounds the patterns of one allow or deny list: each
// is matched against every tool name of every catalog.
const MaxFilterPatterns = 1000

// patternSyntax is what a malformed pattern's error teaches.
const patternSyntax = `patterns use Go's path.Match syntax: * any run of characters except /, ? one character, [a-z] or [^a-z] a class, \ escapes the next character`

// ToolFilter hides a server's tools by name: with Allow, only tools that
// match one of its patterns are visible; a tool that matches a Deny
// pattern never is (deny wins). A zero filter lets every tool through.
//
// It is not part of the connection's ID: the ID names the server, and a
// filter only decides which of its tools dispatch shows and calls. So the
// catalog cache keeps every tool the server published, and changing a
// filter takes effect at once, with no refresh and no restart.
type ToolFilter struct {
	Allow []string
	Deny  []string
	// Entry and File say where the filter was written, for messages:
	// "servers.fs.tools" in "servers.toml".
	Entry string
	File  string
}

// IsZero reports whether the filter lets every tool through.
func (f ToolFilter) IsZero() bool { return len(f.Allow) == 0 && len(f.Deny) == 0 }

// samePatterns reports whether f and o let the same names through.
func (f ToolFilter) samePatterns(o ToolFilter) bool {
	return slices.Equal(f.Allow, o.Allow) && slices.Equal(f.Deny, o.Deny)
}

// Validate reports the first pattern that is not valid, as a
// *PatternError.
func (f ToolFilter) Validate() error {
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"allow", f.Allow}, {"deny", f.Deny}} {
		if len(list.patterns) > MaxFilterPatterns {
			return fmt.Errorf("tools.%s has %d patterns; at most %d are allowed (MaxFilterPatterns)", list.key, len(list.patterns), MaxFilterPatterns)
		}
		for i, p := range list.patterns {
			if err := validPattern(p); err != nil {
				return &PatternError{Key: "tools." + list.key, Index: i, Pattern: p, err: err}
			}
		}
	}
	return nil
}

func validPattern(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("empty pattern: it would match no tool; remove it")
	}
	// path.Match checks the whole pattern, whatever the name.
	if _, err := path.Match(p, ""); err != nil {
		return err
	}
	return nil
}

// PatternError is a malformed allow or deny pattern. LoadFile fills in
// Line and Column, where it could find the pattern in the file.
type PatternError struct {
	Server  string // the server's name in the config, when known
	Key     string // "tools.allow" or "tools.deny"
	Index   int
	Pattern string
	Line    int
	Column  int
	err     error
}

func (e *PatternError) Error() string {
	where := ""
	if e.Line > 0 {
		where = fmt.Sprintf(" at line %d, column %d", e.Line, e.Column)
	}
	server := ""
	if e.Server != "" {
		server = fmt.Sprintf("server %q: ", e.Server)
	}
	return fmt.Sprintf("%s%s pattern %s%s: %v; %s", server, e.Key, strconv.Quote(e.Pattern), where, e.err, patternSyntax)
}

func (e *PatternError) Unwrap() error { return e.err }

// Check returns nil when the filter lets tool through, else why not.
func (f ToolFilter) Check(tool string) *ToolDeniedError {
	for _, p := range f.Deny {
		if matchPattern(p, tool) {
			return &ToolDeniedError{Tool: tool, Filter: f, Pattern: p, ByDeny: true}
		}
	}
	if len(f.Allow) == 0 {
		return nil
	}
	for _, p := range f.Allow {
		if matchPattern(p, tool) {
			return nil
		}
	}
	return &ToolDeniedError{Tool: tool, Filter: f}
}

// matchPattern matches a pattern Validate accepted.
func matchPattern(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// apply returns the tools of a raw catalog that f lets through: tools
// itself when the filter is zero, else a new slice.
func (f ToolFilter) apply(tools []json.RawMessage) []json.RawMessage {
	if f.IsZero() || tools == nil {
		return tools
	}
	visible := make([]json.RawMessage, 0, len(tools))
	for _, raw := range tools {
		if f.Check(toolName(raw)) == nil {
			visible = append(visible, raw)
		}
	}
	if len(visible) == len(tools) {
		// All of them: the catalog itself, which keeps its saved digest
		// (Conn.SavedToolsDigest).
		return tools
	}
	return visible
}

// toolName is the name of a raw tool definition, or "" when it has none
// (such an entry is shown to no one once a filter is set).
func toolName(raw json.RawMessage) string {
	var t struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return ""
	}
	return t.Name
}

// ToolDeniedError refuses a tool the server's filter hides. It names the
// config entry, so that the user knows where to change it; it is never
// reported as "not found", which would send an agent looking elsewhere.
type ToolDeniedError struct {
	Tool    string
	Alias   string
	Filter  ToolFilter
	Pattern string // the deny pattern that matched
	ByDeny  bool   // false: no allow pattern matched
}

func (e *ToolDeniedError) Error() string {
	entry := e.Filter.Entry
	if entry == "" {
		entry = "the tool filter"
	}
	var b strings.Builder
	if e.Alias != "" {
		b.WriteString(e.Alias + ": ")
	}
	if e.ByDeny {
		fmt.Fprintf(&b, "tool %q is denied by %s.deny (%s)", e.Tool, entry, strconv.Quote(e.Pattern))
	} else {
		quoted := make([]string, len(e.Filter.Allow))
		for i, p := range e.Filter.Allow {
			quoted[i] = strconv.Quote(p)
		}
		fmt.Fprintf(&b, "tool %q is not allowed by %s.allow ([%s])", e.Tool, entry, strings.Join(quoted, ", "))
	}
	if e.Filter.File != "" {
		b.WriteString(" in " + e.Filter.File)
	}
	b.WriteString("; dispatch does not list or call it")
	return b.String()
}

// tomlKey writes a server name as a TOML key: bare when it can be.
func tomlKey(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// locatePattern finds where a pattern is written in a config file, as a
// 1-based line and column, or 0, 0. Neither parser reports where a value
// was, so it looks for the pattern as a quoted string; the first such
// string is almost always the one, since tool patterns rarely repeat an
// argument's text.
func locatePattern(data []byte, pattern string) (line, col int) {
	quoted, err := json.Marshal(pattern)
	if err != nil {
		return 0, 0
	}
	for _, form := range []string{string(quoted), "'" + pattern + "'", pattern} {
		if i := strings.Index(string(data), form); i >= 0 {
			// lineAndColumn takes the offset just past a byte, as
			// json.SyntaxError gives it.
			return lineAndColumn(data, int64(i)+1)
		}
	}
	return 0, 0
}
