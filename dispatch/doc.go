// Package dispatch is the proxy-dispatch tool: one MCP tool whose actions
// (list, search, info, call, readresult, and run, which does several of
// them in one request) give an agent every downstream
// server's tools on demand. It validates requests, runs them against a
// connections.Set, spills large results through spill/, and builds the
// responses that both the MCP server and the CLI show.
//
// The core never prints: it returns values, and its callers decide how they
// look on a terminal, in JSON or in an MCP tool result.
package dispatch
