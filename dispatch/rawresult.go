package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// A server's result may be hundreds of megabytes. json.Unmarshal into a
// struct of json.RawMessage copies every member; these select the members
// with gjson as slices of the result itself, so that it is held once.

// jsonView is a read-only string view of raw for gjson, whose byte
// functions would copy every value they return.
func jsonView(raw []byte) string {
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

// viewBytes is the bytes a string view of them (jsonView, or a part of
// one) shows: the inverse of jsonView, for values gjson parsed from one.
func viewBytes(view string) json.RawMessage {
	return json.RawMessage(unsafe.Slice(unsafe.StringData(view), len(view)))
}

// rawSlice is v's text as a slice of raw, which v was parsed from.
func rawSlice(raw []byte, v gjson.Result) json.RawMessage {
	return json.RawMessage(raw[v.Index : v.Index+len(v.Raw)])
}

// rawMembers returns the members named in keys of the JSON object raw as
// slices of raw (later duplicates win, as with json.Unmarshal). ok is
// false when raw is not a valid object, or has a member that matches one
// of keys only case-insensitively (json.Unmarshal would take it): the
// caller then decodes with json.Unmarshal, which says what is wrong.
func rawMembers(raw []byte, keys ...string) (members map[string]gjson.Result, ok bool) {
	if !gjson.ValidBytes(raw) {
		return nil, false
	}
	root := gjson.Parse(jsonView(raw))
	if !root.IsObject() {
		return nil, false
	}
	members, ok = make(map[string]gjson.Result, len(keys)), true
	root.ForEach(func(key, value gjson.Result) bool {
		for _, k := range keys {
			switch {
			case key.Str == k:
				members[k] = value
			case strings.EqualFold(key.Str, k):
				ok = false
			}
		}
		return ok
	})
	return members, ok
}

// rawItems returns the elements of the array v (parsed from raw) as
// slices of raw; ok is false when v is neither an array nor null/absent.
func rawItems(raw []byte, v gjson.Result) (items []json.RawMessage, ok bool) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, true
	}
	if !v.IsArray() {
		return nil, false
	}
	items = []json.RawMessage{}
	v.ForEach(func(_, item gjson.Result) bool {
		items = append(items, rawSlice(raw, item))
		return true
	})
	return items, true
}

// rawMember is the member as json.Unmarshal would set a json.RawMessage
// field: nil when absent.
func rawMember(raw []byte, v gjson.Result) json.RawMessage {
	if !v.Exists() {
		return nil
	}
	return rawSlice(raw, v)
}

// decodeReadResult is json.Unmarshal(raw, &result) without copying the
// contents.
func decodeReadResult(raw []byte, result *readResult) error {
	if err := resultPresent(raw); err != nil {
		return err
	}
	m, ok := rawMembers(raw, "contents", "_meta")
	if ok {
		var contents []json.RawMessage
		if contents, ok = rawItems(raw, m["contents"]); ok {
			*result = readResult{Contents: contents, Meta: rawMember(raw, m["_meta"])}
			return nil
		}
	}
	return json.Unmarshal(raw, result)
}

// decodeCallResult is json.Unmarshal(raw, &result) without copying the
// content or structured content.
func decodeCallResult(raw []byte, result *callResult) error {
	if err := resultPresent(raw); err != nil {
		return err
	}
	m, ok := rawMembers(raw, "content", "structuredContent", "isError", "_meta")
	if ok {
		isError := m["isError"]
		var content []json.RawMessage
		content, ok = rawItems(raw, m["content"])
		switch isError.Type {
		case gjson.True, gjson.False, gjson.Null:
		default:
			ok = false
		}
		if ok {
			*result = callResult{Content: content, StructuredContent: rawMember(raw, m["structuredContent"]),
				IsError: isError.Type == gjson.True, Meta: rawMember(raw, m["_meta"])}
			return nil
		}
	}
	return json.Unmarshal(raw, result)
}

// decodePromptResult is json.Unmarshal(raw, &result) without copying the
// messages.
func decodePromptResult(raw []byte, result *promptResult) error {
	if err := resultPresent(raw); err != nil {
		return err
	}
	m, ok := rawMembers(raw, "description", "messages", "_meta")
	if ok {
		description := m["description"]
		var messages []json.RawMessage
		messages, ok = rawItems(raw, m["messages"])
		switch description.Type {
		case gjson.String, gjson.Null:
		default:
			ok = false
		}
		if ok {
			*result = promptResult{Description: strings.Clone(description.Str), Messages: messages, Meta: rawMember(raw, m["_meta"])}
			return nil
		}
	}
	return json.Unmarshal(raw, result)
}

// errNoResult says what is wrong with an answer that holds no result:
// encoding/json's "unexpected end of JSON input" said nothing a user can
// act on.
var errNoResult = errors.New(`the answer holds no result and no error (as "error": null with nothing else), which JSON-RPC does not allow: the server is at fault`)

// resultPresent refuses a result that is missing or null.
func resultPresent(raw []byte) error {
	if r := bytes.TrimSpace(raw); len(r) == 0 || string(r) == "null" {
		return errNoResult
	}
	return nil
}
