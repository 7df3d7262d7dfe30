package main

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// sessionCommands are the one-shot commands that run inside a session
// when one is in effect. readresult reads a file and starts no server, so
// it runs here either way; toon starts none either.
var sessionCommands = map[string]bool{
	"list": true, "search": true, "info": true, "call": true, "read": true, "prompt": true, "run": true,
}

// commandFlags are the global flags that shape only how this command
// prints or finds its session; every other one is the session's own,
// fixed at session start.
var commandFlags = map[string]bool{
	"json": true, "session": true, "no-session": true, "help": true,
}

// logFlags are the session's too: the session runs the command and logs
// its call, so in the command's own process they would change nothing.
var logFlags = map[string]bool{"log-level": true, "log-format": true}

// checkSessionFlags refuses a global flag a one-shot command cannot apply
// inside a session (the session's servers, limits and threshold were set
// when it started): silently ignoring --mcp would run the command against
// other servers than the user named.
func (g *Globals) checkSessionFlags(k *kong.Context) error {
	if g.sessionSocket() == "" {
		return nil
	}
	command := k.Command()
	if name, _, _ := strings.Cut(command, " "); sessionCommands[name] {
		command = name
	} else if command != "session status" && command != "session stop" {
		return nil
	}
	for _, p := range k.Path {
		f := p.Flag
		if f == nil || f.Group == nil || f.Group.Key != "global" || commandFlags[f.Name] {
			continue
		}
		if logFlags[f.Name] && !strings.HasPrefix(command, "session ") {
			return &usageErr{fmt.Errorf("--%s cannot be given to %s inside a shell session (DISPATCH_SESSION=%s): the session runs the command and logs it to %s in its directory, as dispatch session start --%s set; add --no-session to run this command on its own with its log on stderr, or start the session with --%s", f.Name, command, g.Session, sessionLogName, f.Name, f.Name)}
		}
		if strings.HasPrefix(command, "session ") {
			return &usageErr{fmt.Errorf("--%s means nothing to %s: a session's global flags are set by dispatch session start", f.Name, command)}
		}
		return &usageErr{fmt.Errorf("--%s cannot be given to %s inside a shell session (DISPATCH_SESSION=%s): the session's global flags were set by dispatch session start; add --no-session to run this command on its own, or stop the session and start one with --%s", f.Name, command, g.Session, f.Name)}
	}
	return nil
}
