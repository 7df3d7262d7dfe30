package main

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"dispatch/dispatch"
	"dispatch/upstream"
)

// exposeOptions are the --expose and --transparent flags.
func (g *Globals) exposeOptions() dispatch.ExposeOptions {
	return dispatch.ExposeOptions{Tools: g.Expose, Transparent: g.Transparent}
}

// surfaceRun keeps what the agent sees beside proxy-dispatch (--expose,
// --transparent and the servers' expose lists) in step with the servers.
type surfaceRun struct {
	surface *upstream.Surface
	resync  chan struct{} // one pending request at most
	done    chan struct{}
}

// startSurface lists the exposed tools on srv before the agent can ask,
// and follows changes until ctx ends; call wait after. A fatal problem
// (a tool the filters deny, a name on several servers) is an error: the
// configuration is wrong. The others (unknown tool, server unreachable)
// are warnings, tried again at every change.
func (a *app) startSurface(ctx context.Context, surface *upstream.Surface, srv *server.MCPServer, runner upstream.SessionRunner, arrival *agentArrival) (*surfaceRun, error) {
	surface.Attach(srv, runner)
	updated := surface.ResourceUpdated
	a.resourceUpdated.Store(&updated)
	run := &surfaceRun{surface: surface, resync: make(chan struct{}, 1), done: make(chan struct{})}
	var reported string
	if arrival != nil && surface.Transparent() {
		// --transparent lists every server's tools, resources and prompts,
		// which may depend on the capabilities the agent declares: listed
		// now, they would be a capability-less client's. They are listed
		// when the agent arrives instead, before its first answer. (With
		// --expose only, the chosen tools are checked at start: a wrong
		// --expose is an error before serving.)
		arrival.atArrival(func() { reported = a.logExposeProblems(surface.Sync(ctx), "") })
	} else {
		got := surface.Sync(ctx)
		if err := got.FatalExposeProblems(); err != nil {
			close(run.done)
			return nil, &usageErr{errors.New("expose: " + err.Error() + "; fix the --expose flag or the server's expose list: expose a tool its tools.allow/deny let through, and write a name found on several servers as c1/TOOL or NAME/TOOL")}
		}
		reported = a.logExposeProblems(got, "")
	}
	go func() {
		defer close(run.done)
		if !arrival.wait(ctx) {
			return
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-a.catalogChanged:
			case <-run.resync:
			}
			reported = a.logExposeProblems(surface.Sync(ctx), reported)
		}
	}()
	return run, nil
}

// changed asks for the surface to be computed again (a new config).
func (r *surfaceRun) changed() {
	select {
	case r.resync <- struct{}{}:
	default:
	}
}

func (r *surfaceRun) wait() { <-r.done }

// logExposeProblems warns of the surface's problems unless they are the
// ones reported last (a server's list_changed recomputes the surface: the
// same warning each time would be noise). It returns what it reported.
func (a *app) logExposeProblems(s dispatch.Surface, reported string) string {
	var all strings.Builder
	for _, p := range s.Problems {
		all.WriteString(p.Error() + "\n")
	}
	if all.String() == reported {
		return reported
	}
	for _, p := range s.Problems {
		a.log.Warn("expose: not listing a tool to the agent", "entry", p.Entry, "error", p.Err.Error())
	}
	return all.String()
}
