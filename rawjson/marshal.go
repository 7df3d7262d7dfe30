package rawjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping: results are HTML pages
// and shell snippets as often as not, and "\u003cdiv" neither greps as
// "<div" nor reads well, while costing the agent more tokens.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
