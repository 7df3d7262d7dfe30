package toolsearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxDecodeNesting is the deepest nesting encoding/json decodes: past it
// json.Unmarshal refuses the whole input, even a member it would only
// have skipped.
const maxDecodeNesting = 10000

// withoutDeepMembers returns the JSON object raw without its members that
// nest too deep for encoding/json to decode the object (in practice a
// hostile or generated inputSchema), so that the rest of a tool (its name
// and description) can still be indexed. It walks tokens, without
// recursion, however deep raw is.
func withoutDeepMembers(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := []byte{'{'}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("member name %v is not a string", tok)
		}
		start := dec.InputOffset()
		deepest, err := skipValue(dec)
		if err != nil {
			return nil, err
		}
		// The object holding the member is one more level.
		if deepest+1 > maxDecodeNesting {
			continue
		}
		value := bytes.TrimLeft(raw[start:dec.InputOffset()], " \t\r\n:")
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, name...), ':'), value...)
	}
	return append(out, '}'), nil
}

// skipValue reads the next value from dec and returns how deep it nests.
func skipValue(dec *json.Decoder) (int, error) {
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return deepest, nil
		}
	}
}
