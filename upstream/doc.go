// Package upstream serves agents: stdio, streamable HTTP, unix socket; the
// mirror of connections/, which reaches servers. It holds the MCP server
// wiring around dispatch's one tool and, per agent, the session value:
// what the agent declared, its requests in flight, and the routing of
// servers' requests (sampling, elicitation, roots) back to it.
//
// dispatch/ never imports upstream/: the tool, its schema and the Service
// stay there, and the serving here calls them.
package upstream
