// Package upstream serves agents: stdio, streamable HTTP, unix socket; the
// mirror of connections/, which reaches servers. It holds the MCP server
// wiring around dispatch's one tool and, per agent, the session value:
// what the agent declared, its requests in flight, and the routing of
// servers' requests (sampling, elicitation, roots) back to it.
//
// It also holds the shell session (shell*.go): ServeShell, the endpoint a
// session's process serves on its unix socket; ShellClient, the side a
// one-shot command uses to reach it; the wire between them; and the
// session's private directory and peer check. The client lives here, not
// in the command line, because it is the mirror of the endpoint's wire:
// with both sides in one package each message is one unexported type
// that cannot drift between them, and a test runs both over a real socket.
// What the command line owns it passes in: the wording of errors for the
// shell and their exit codes (ShellOptions.Explain), the flags, spawning
// the process and printing.
//
// dispatch/ never imports upstream/: the tool, its schema and the Service
// stay there, and the serving here calls them. upstream/ never imports the
// command line.
package upstream
