package connections

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// replacementEscape is how encoding/json writes a byte that is not part
// of valid UTF-8 inside a string: the escaped U+FFFD.
const replacementEscape = `\ufffd`

// validUTF8 returns data, JSON a server sent, with every byte that is not
// part of valid UTF-8 replaced by \ufffd, as encoding/json does when it
// encodes such a string. dispatch passes answers on as the server wrote
// them (raw JSON, never decoded on the hot path), so without this an
// answer holding such bytes reaches the agent as invalid JSON, which a
// strict client drops: its request then waits for ever.
//
// data has been parsed as JSON already (by the stdio reader or mcp-go's
// HTTP transports), and JSON allows bytes of 0x80 and above only inside
// strings, so every byte replaced is inside a string, and the answer
// stays valid JSON. A valid answer, the common case, costs one utf8.Valid
// and no allocation; only an invalid one is copied, grown by at most 5
// bytes per invalid byte.
func validUTF8(data []byte) []byte {
	if utf8.Valid(data) {
		return data
	}
	out := make([]byte, 0, len(data)+len(data)/8+len(replacementEscape))
	for i := 0; i < len(data); {
		start := i
		for i < len(data) {
			if data[i] < utf8.RuneSelf {
				i++
				continue
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		out = append(out, data[start:i]...)
		if i < len(data) {
			out = append(out, replacementEscape...)
			i++
		}
	}
	return out
}

// cleanAnswer is what every answer and request a server sends goes
// through before dispatch passes it on: invalid UTF-8 repaired
// (validUTF8), then the user's credentials masked (MaskAnswer).
func (c *Conn) cleanAnswer(data []byte) []byte {
	return c.opts.Redactor.MaskAnswer(validUTF8(data))
}

// namedItems keeps the catalog items (tools, prompts, ...) whose naming
// member key is valid UTF-8 as the server wrote it, each repaired
// (validUTF8), and returns the names of the others, Go-quoted ("t\xff").
// Such a name cannot be used: dispatch would show it repaired, with
// U+FFFD, and a call by that name would not be the name the server
// knows. Left in the catalog, it would be suggested and listed as
// callable, and fail with the server's "unknown tool"; left out and named,
// the agent learns why.
func namedItems(items []json.RawMessage, key string) (named []json.RawMessage, unnamable []string) {
	named = items[:0]
	for _, item := range items {
		if utf8.Valid(item) {
			named = append(named, item)
			continue
		}
		if name := gjson.GetBytes(item, key); name.Type == gjson.String && !utf8.ValidString(name.Str) {
			unnamable = append(unnamable, strconv.Quote(name.Str))
			continue
		}
		named = append(named, validUTF8(item))
	}
	return named, unnamable
}

// Unnamable returns the Go-quoted names of the items of a catalog (noun:
// "tools", "resources", "resource templates" or "prompts") that the
// server named with bytes that are not valid UTF-8, left out of the
// catalog as its last listing found them (see namedItems).
func (c *Conn) Unnamable(noun string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.unnamable[noun]...)
}
