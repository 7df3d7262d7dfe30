package rawjson

import (
	"bytes"
	"encoding/json"
)

// TopLevelMember returns the raw value of the member name of the object
// data holds, the last one if the name repeats (as encoding/json and gjson
// take it), found in one pass that only skips strings and counts brackets:
// safe on input nested however deep, whatever the order of its members,
// as NestingWithin is. ok is false when data is not an object or the
// member's value does not end before data does (a message cut short), or
// there is no such member. The value is a view of data, not checked
// beyond its extent: decode it to use it.
func TopLevelMember(data []byte, name string) (value []byte, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	depth := 1
	expectKey := true // the next string at depth 1 is a member's name
	valueStart := -1  // where the value of a member called name begins
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			end := stringEnd(data, i+1)
			if end < 0 {
				return value, ok
			}
			if depth == 1 && expectKey {
				expectKey = false
				colon := skipSpace(data, end+1)
				if colon >= len(data) || data[colon] != ':' {
					return value, ok // not an object: what came before stands
				}
				if keyIs(data[i:end+1], name) {
					valueStart = colon + 1
				}
				end = colon
			}
			i = end
		case '[', '{':
			depth++
		case ',':
			if depth == 1 {
				value, ok, valueStart = endValue(data, valueStart, i, value, ok)
				expectKey = true
			}
		case ']', '}':
			if depth--; depth == 0 {
				value, ok, _ = endValue(data, valueStart, i, value, ok)
				return value, ok
			}
		}
	}
	return value, ok
}

// endValue is TopLevelMember's step at the end of a member: the value
// found so far becomes the one from start (if that is not -1) to end.
func endValue(data []byte, start, end int, value []byte, ok bool) ([]byte, bool, int) {
	if start < 0 {
		return value, ok, -1
	}
	v := bytes.TrimSpace(data[start:end])
	if len(v) == 0 {
		return value, ok, -1
	}
	return v, true, -1
}

// keyIs reports whether the JSON string token key names name, escapes
// decoded.
func keyIs(key []byte, name string) bool {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	var decoded string
	return json.Unmarshal(key, &decoded) == nil && decoded == name
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
