// Package connections owns dispatch's downstream MCP servers: their
// configuration (from --mcp specs, TOML files and the mcpServers JSON that
// agent hosts use), their aliases and IDs, the live clients over stdio, SSE
// and streamable HTTP, and the masking of every credential they carry.
//
// It never imports dispatch/: it knows nothing of the proxy-dispatch tool,
// only how to reach servers and keep them reachable. Tool catalogs and call
// results cross this boundary as raw JSON so nothing the servers published
// is lost on the way.
//
// A server's tool filter (ToolFilter) is applied here, in Conn.Tools and
// Conn.Call, so that no caller can forget it; and a Set takes a new config
// while in use (Set.Update), keeping what did not change.
//
// What servers ask of their client (sampling, elicitation, roots, logs)
// goes to an Upstream, the agent session the caller provides (through a
// call's context, or Set.SetUpstream); connections declares to servers
// exactly the capabilities that upstream declared.
package connections
