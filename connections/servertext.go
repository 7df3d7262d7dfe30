package connections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// What a server writes about itself and its tools is shown to the agent
// (list, search, info) and kept in the catalog cache, so it is masked as
// it arrives: a server that prints an inherited MYAPI_TOKEN in its
// instructions or a tool's description must not show it, nor leave it in
// the cache in clear.

// maskInfo masks every field of a server's initialize answer.
func (r *Redactor) maskInfo(info ServerInfo) ServerInfo {
	info.Name = r.String(info.Name)
	info.Version = r.String(info.Version)
	info.Title = r.String(info.Title)
	info.ProtocolVersion = r.String(info.ProtocolVersion)
	info.Instructions = r.String(info.Instructions)
	return info
}

// maskDefs masks every definition a server published (tools, resources,
// resource templates, prompts; see maskJSON); changed says whether any was
// altered.
func (r *Redactor) maskDefs(defs []json.RawMessage) (masked []json.RawMessage, changed bool, err error) {
	return r.maskTools(defs)
}

// maskTools masks every tool definition (see maskJSON); changed says whether
// any was altered.
func (r *Redactor) maskTools(tools []json.RawMessage) (masked []json.RawMessage, changed bool, err error) {
	masked = make([]json.RawMessage, len(tools))
	for i, tool := range tools {
		m, err := r.maskJSON(tool)
		if err != nil {
			return nil, false, fmt.Errorf("tool %d: %w", i+1, err)
		}
		changed = changed || !bytes.Equal(m, tool)
		masked[i] = m
	}
	return masked, changed, nil
}

// maskJSON masks every string of a JSON value, object keys included, and
// returns raw itself when none needed masking. Strings are masked as
// decoded, so a secret the server escaped (\u0026 for "&", or any letter
// as \u00XX) is found too; the document keeps its key order, and numbers
// their text.
func (r *Redactor) maskJSON(raw []byte) ([]byte, error) {
	// Without escapes every decoded string is a piece of raw, so a raw
	// that needs no masking holds no string that does.
	if !bytes.ContainsRune(raw, '\\') && r.String(string(raw)) == string(raw) {
		return raw, nil
	}
	out, changed, err := r.maskJSONTokens(raw)
	if err != nil || !changed {
		return raw, err
	}
	return out, nil
}

// jsonLevel is one open object or array while re-encoding: n counts the
// tokens written in it, keys and values alike.
type jsonLevel struct {
	object bool
	n      int
}

// maskJSONTokens re-encodes raw token by token with its strings masked.
func (r *Redactor) maskJSONTokens(raw []byte) (out []byte, changed bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var (
		buf   bytes.Buffer
		stack []jsonLevel
		ended bool // the top-level value is complete
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && ended {
			break
		}
		if errors.Is(err, io.EOF) {
			return nil, false, errors.New("mask JSON: unexpected end of input")
		}
		if err != nil {
			return nil, false, fmt.Errorf("mask JSON: %w", err)
		}
		if ended {
			return nil, false, errors.New("mask JSON: more than one value")
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			buf.WriteByte(byte(d))
			ended = len(stack) == 0
			continue
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			switch {
			case top.object && top.n%2 == 1:
				buf.WriteByte(':')
			case top.n > 0:
				buf.WriteByte(',')
			}
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			buf.WriteByte(byte(v))
			stack = append(stack, jsonLevel{object: v == '{'})
		case string:
			masked := r.String(v)
			changed = changed || masked != v
			quoted, err := json.Marshal(masked)
			if err != nil {
				return nil, false, fmt.Errorf("mask JSON: %w", err)
			}
			buf.Write(quoted)
		case json.Number:
			buf.WriteString(string(v))
		case bool:
			fmt.Fprint(&buf, v)
		case nil:
			buf.WriteString("null")
		}
		ended = ended || len(stack) == 0
	}
	return buf.Bytes(), changed, nil
}
