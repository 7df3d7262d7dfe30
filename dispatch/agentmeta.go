package dispatch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"dispatch/rawjson"
)

// mcp-go's server decodes a request's _meta into map[string]any, where
// 123456789012345678901234567890 is 1.2345678901234568e+29 and 1.0 is 1.
// What dispatch forwards of an agent's _meta to a server (an exposed
// tool's call, a transparent read or prompt) is taken from the message as
// the agent wrote it instead: the upstream loop puts its params._meta in
// the request's context before mcp-go reads it (WithAgentMeta).

type agentMetaKey struct{}

// WithAgentMeta returns ctx carrying the params._meta of msg, one
// JSON-RPC request from the agent, as written; ctx itself when it has
// none.
func WithAgentMeta(ctx context.Context, msg []byte) context.Context {
	meta, ok := requestMeta(msg)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, agentMetaKey{}, meta)
}

// requestMeta is msg's params._meta as written, a view of msg.
func requestMeta(msg []byte) ([]byte, bool) {
	params, ok := rawjson.TopLevelMember(msg, "params")
	if !ok {
		return nil, false
	}
	return rawjson.TopLevelMember(params, "_meta")
}

// forwardedMeta is the agent's request _meta to forward downstream: all
// but its progress token, which dispatch replaces with its own. Each
// member is as the agent wrote it when ctx carries the request's _meta
// (WithAgentMeta); otherwise it is what mcp-go decoded of it, encoded again.
func forwardedMeta(ctx context.Context, meta *mcp.Meta) (json.RawMessage, error) {
	if meta == nil || (len(meta.AdditionalFields) == 0 && meta.ProgressToken == nil) {
		return nil, nil
	}
	if raw, ok := ctx.Value(agentMetaKey{}).([]byte); ok {
		var members map[string]json.RawMessage
		// mcp-go decoded the same bytes into meta, so they are an object.
		if err := json.Unmarshal(raw, &members); err == nil {
			delete(members, "progressToken")
			if len(members) == 0 {
				return nil, nil
			}
			return marshalMeta(members)
		}
	}
	if len(meta.AdditionalFields) == 0 {
		return nil, nil
	}
	return marshalMeta(meta.AdditionalFields)
}

func marshalMeta[V any](members map[string]V) (json.RawMessage, error) {
	encoded, err := json.Marshal(members)
	if err != nil {
		return nil, fmt.Errorf("forward the request's _meta: %w", err)
	}
	return encoded, nil
}
