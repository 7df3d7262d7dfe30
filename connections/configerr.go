package connections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// A config file that does not parse is reported by line, column and key
// name only. The parsers' own messages quote what they found, and that is
// often the first characters of a secret written without its quotes
// (TOKEN = abc...): the file is rejected before its secrets are learned,
// so nothing could mask them.

// configSyntaxHint is what usually breaks a config file by hand.
const configSyntaxHint = "check that every string value is in double quotes and every quote, bracket and brace is closed"

// tomlBackslashHint explains a bad escape, most often a Windows path in
// double quotes: C:\Tools is an invalid escape \T, C:\users one \u.
const tomlBackslashHint = `a backslash in a "double-quoted" string starts an escape (\n, \t, \u...): write a Windows path in 'single quotes' ('C:\Tools\server.exe'), double each backslash, or use forward slashes (C:/Tools/server.exe)`

// tomlProblem rewrites an error of toml.Decode without config text.
func tomlProblem(err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		var ptr *toml.ParseError
		if !errors.As(err, &ptr) {
			// Decoding errors name keys and Go types, never values.
			if typeErr, ok := tomlTypeProblem(err); ok {
				return typeErr
			}
			return err
		}
		pe = *ptr
	}
	where := fmt.Sprintf("line %d", pe.Position.Line)
	if pe.Position.Col > 0 {
		where += fmt.Sprintf(", column %d", pe.Position.Col)
	}
	if pe.LastKey != "" {
		where += fmt.Sprintf(" (after key %s)", pe.LastKey)
	}
	return fmt.Errorf("invalid TOML at %s: %s", where, tomlWhat(pe.Message))
}

// tomlTypeError is toml.Decode's error for a value of the wrong type: its
// key and the types, in Go's terms.
var tomlTypeError = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]+)"\): incompatible types: TOML value has type (\S+); destination has type (.+)$`)

// tomlTypeProblem says what a key of the wrong type wants, in TOML's
// terms and with an example, instead of "destination has type slice".
func tomlTypeProblem(err error) (error, bool) {
	m := tomlTypeError.FindStringSubmatch(err.Error())
	if m == nil {
		return nil, false
	}
	line, key, got, want := m[1], m[2], m[3], m[4]
	where := key
	if line != "" {
		where = "line " + line + ": " + key
	}
	return fmt.Errorf("%s must be %s, not %s", where, tomlWant(key, want), tomlKind(got)), true
}

// tomlWant describes what key (dotted, as toml names it) takes, from the
// destination's kind and, where the kind alone would mislead, the key.
func tomlWant(key, kind string) string {
	name := key[strings.LastIndexByte(key, '.')+1:]
	switch {
	case name == "timeout":
		return `a duration in quotes, such as timeout = "30s"`
	case name == "tools":
		return `a table, such as tools = { allow = ["read_*"], deny = ["delete_*"] }`
	case name == "oauth":
		return `a table, such as oauth = { clientId = "…" }`
	case kind == "slice":
		return fmt.Sprintf(`a list of strings, such as %s = ["--demo"]`, name)
	case kind == "map":
		return fmt.Sprintf(`a table of strings, such as %s = { NAME = "value" }`, name)
	case kind == "boolean":
		return "true or false, without quotes"
	}
	return "a string in double quotes"
}

// tomlKind names a TOML value by the Go type toml decoded it to.
func tomlKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a table"
	}
	return "a date or time"
}

// tomlWhat keeps the library's message only when it cannot hold config
// text: no quotes and no digits.
func tomlWhat(msg string) string {
	switch {
	case strings.Contains(msg, "already been defined") || strings.Contains(msg, "already created"):
		return "a key or table is defined twice"
	case strings.Contains(msg, "invalid escape") || strings.Contains(msg, "hexadecimal digits after"):
		return tomlBackslashHint
	case !strings.ContainsAny(msg, "\"'`0123456789"):
		return msg + "; " + configSyntaxHint
	}
	return configSyntaxHint
}

// jsonProblem rewrites an error of json.Unmarshal on data without config
// text: a syntax error by line and column, a type error by key name.
func jsonProblem(data []byte, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line, col := lineAndColumn(data, syntax.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, configSyntaxHint)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		got, _, _ := strings.Cut(typ.Value, " ") // "number 300": the kind only
		if typ.Field == "" {
			return fmt.Errorf("want an object, not a %s", got)
		}
		want := jsonKind(typ.Type.String())
		if typ.Field == "timeout" || strings.HasSuffix(typ.Field, ".timeout") {
			want = `a duration in quotes, such as "30s"`
		}
		return fmt.Errorf("key %q: want %s, not a %s", typ.Field, want, got)
	}
	return errors.New("invalid JSON: " + configSyntaxHint)
}

// jsonKind names a Go type of fileServer as JSON would.
func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "an array of strings"
	case strings.HasPrefix(goType, "map["):
		return "an object of strings"
	case strings.HasSuffix(goType, "fileToolFilter"):
		return `an object such as {"allow": ["read_*"], "deny": ["delete_*"]}`
	}
	return goType
}

// lineAndColumn turns a byte offset into a 1-based line and column.
func lineAndColumn(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}
