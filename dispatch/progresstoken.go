package dispatch

import (
	"encoding/json"
	"strings"

	"dispatch/rawjson"
)

// An agent's progress token, kept exactly. mcp-go's server decodes a
// request's _meta into map[string]any, so a number token became a
// float64: 9007199254740993 came back on the agent's progress as
// 9007199254740992, 1.0 as 1, 12345678901234567890123 as
// 1.2345678901234568e+22 (progress the agent could not match to its
// request), and a call with 1e400 failed to decode. Before mcp-go reads
// a request, ExactProgressToken puts such a token in a string of
// dispatch's, which mcp-go keeps; progressForwarder takes the token back
// out of it.

// progressTokenPrefix starts the string standing for an agent's progress
// token; the token as the agent wrote it follows.
const progressTokenPrefix = "dispatch-token:"

// ExactProgressToken returns msg, one JSON-RPC message from the agent,
// with its params._meta.progressToken, when mcp-go would not give it
// back as written, replaced by a string holding it. Any other message
// is returned as it is.
func ExactProgressToken(msg []byte) []byte {
	meta, ok := requestMeta(msg)
	if !ok {
		return msg
	}
	token, ok := rawjson.TopLevelMember(meta, "progressToken")
	if !ok || !progressTokenNeedsSurrogate(token) || !json.Valid(token) {
		return msg
	}
	// token is a view of msg (TopLevelMember's values are): where it
	// starts is told by how much of msg's array lies past it.
	start := cap(msg) - cap(token)
	surrogate := rawjson.AppendString(nil, progressTokenPrefix+string(token))
	out := make([]byte, 0, len(msg)-len(token)+len(surrogate))
	return append(append(append(out, msg[:start]...), surrogate...), msg[start+len(token):]...)
}

// progressTokenNeedsSurrogate reports whether mcp-go would not give
// token back as written: anything but null, an integer a float64 holds
// exactly written plainly, or a string without escapes that is not one
// of dispatch's.
func progressTokenNeedsSurrogate(token []byte) bool {
	switch {
	case string(token) == "null":
		return false
	case token[0] == '"':
		return strings.IndexByte(string(token), '\\') >= 0 || strings.HasPrefix(string(token[1:]), progressTokenPrefix)
	}
	digits := token
	if digits[0] == '-' {
		digits = digits[1:]
	}
	// -0 comes back as 0; past 15 digits a float64 may not hold it.
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(token) > 1) {
		return true
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return true
		}
	}
	return false
}

// exactProgressToken is the agent's progress token as it wrote it: the
// one a string of ExactProgressToken's holds, or token itself.
func exactProgressToken(token any) any {
	s, ok := token.(string)
	if !ok {
		return token
	}
	if raw, found := strings.CutPrefix(s, progressTokenPrefix); found && json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	return token
}
