package main

import (
	"context"

	"dispatch/dispatch"
)

// core is where a one-shot command's requests run: a service in this
// process, or the one in the shell session DISPATCH_SESSION names. Both
// end in dispatch.Service, so a command prints the same either way.
type core interface {
	do(ctx context.Context, req dispatch.Request) (any, error)
	// savePayload and saveMessages write a result to a file the user
	// named (-o), in the format the service's --toon and the name pick.
	savePayload(ctx context.Context, call *dispatch.CallResponse, path string) (*dispatch.SavedPayload, error)
	saveMessages(ctx context.Context, prompt *dispatch.PromptResponse, path string) (*dispatch.SavedPayload, error)
	close()
}

var (
	_ core = (*app)(nil)
	_ core = (*sessionClient)(nil)
)

// openCore connects to the shell session when one is in effect, else
// starts the servers in this process.
func (g *Globals) openCore() (core, error) {
	if socket := g.sessionSocket(); socket != "" {
		return dialSession(socket)
	}
	return g.newApp(storeNone, userPaths)
}

func (a *app) do(ctx context.Context, req dispatch.Request) (any, error) {
	return a.svc.Do(ctx, req, dispatch.Hooks{})
}

func (a *app) savePayload(_ context.Context, call *dispatch.CallResponse, path string) (*dispatch.SavedPayload, error) {
	return a.svc.SavePayload(call, path)
}

func (a *app) saveMessages(_ context.Context, prompt *dispatch.PromptResponse, path string) (*dispatch.SavedPayload, error) {
	return a.svc.SaveMessages(prompt, path)
}
