package connections

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// withProtocolMeta adds to params the _meta the 2026-07-28 protocol wants
// in every request, the initialize handshake being gone: protocol version,
// client info, the client capabilities dispatch declares (the agent's) and
// the log level the agent asked for. Params that are not an object go as
// they are.
func (c *Conn) withProtocolMeta(sess *session, params any) any {
	fields := map[string]json.RawMessage{}
	if params != nil {
		encoded, err := json.Marshal(params)
		if err != nil || json.Unmarshal(encoded, &fields) != nil {
			return params
		}
	}
	// The caller's members stay the bytes they came as: decoded into
	// map[string]any, their numbers would go out as float64s.
	var callers map[string]json.RawMessage
	if raw, ok := fields["_meta"]; ok {
		if err := json.Unmarshal(raw, &callers); err != nil {
			return params
		}
	}
	meta := make(map[string]any, len(callers)+4)
	for k, v := range callers {
		meta[k] = v
	}
	meta[mcp.MetaKeyProtocolVersion] = sess.protocol
	meta[mcp.MetaKeyClientCapabilities] = sess.declared
	meta[mcp.MetaKeyClientInfo] = sess.clientInfo
	if level := c.hub.level(); level != "" && level != LogLevelOff {
		meta[mcp.MetaKeyLogLevel] = level
	}
	encoded, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	fields["_meta"] = encoded
	return fields
}
