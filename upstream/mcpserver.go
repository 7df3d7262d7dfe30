package upstream

import (
	"dispatch/dispatch"

	"github.com/mark3labs/mcp-go/server"
)

// NewMCPServer returns an MCP server exposing the one proxy-dispatch tool
// over svc; extra adds options (a Surface's capabilities).
func NewMCPServer(svc *dispatch.Service, version string, extra ...server.ServerOption) *server.MCPServer {
	return newMCPServer(version, svc.HandleTool, extra...)
}

// newMCPServer is the MCP server of dispatch with handle serving
// proxy-dispatch: the Service's own for one agent, or one finding each
// HTTP session's.
func newMCPServer(version string, handle server.ToolHandlerFunc, extra ...server.ServerOption) *server.MCPServer {
	opts := []server.ServerOption{
		// Hooks of its own, so that an HTTP server can add to them
		// (GetHooks); a Surface's own replace these (extra comes later).
		server.WithHooks(&server.Hooks{}),
		// listChanged: a new config file changes the tools behind
		// proxy-dispatch, and the agent is told so.
		server.WithToolCapabilities(true),
		// Servers' logs are relayed to the agent (see connections'
		// relay), so dispatch takes the agent's logging/setLevel.
		server.WithLogging(),
		server.WithInstructions("Use the proxy-dispatch tool to find and call tools of the connected MCP servers: search first, then call."),
		server.WithRecovery()}
	srv := server.NewMCPServer("dispatch", version, append(opts, extra...)...)
	srv.AddTool(dispatch.Tool(), handle)
	return srv
}
