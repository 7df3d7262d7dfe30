package main

import (
	"context"
	"encoding/json"
	"os"

	"dispatch/dispatch"
	"dispatch/upstream"
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
	_ core = sessionCore{}
)

// openCore connects to the shell session when one is in effect, else
// starts the servers in this process.
func (g *Globals) openCore() (core, error) {
	if socket := g.sessionSocket(); socket != "" {
		return sessionCore{upstream.NewShellClient(socket)}, nil
	}
	return g.newApp(storeNone, userPaths)
}

// sessionCore is the shell session's client seen as a core.
type sessionCore struct{ client *upstream.ShellClient }

func (s sessionCore) do(ctx context.Context, req dispatch.Request) (any, error) {
	return s.client.Do(ctx, req)
}

func (s sessionCore) savePayload(ctx context.Context, call *dispatch.CallResponse, path string) (*dispatch.SavedPayload, error) {
	return s.client.SavePayload(ctx, call, path)
}

func (s sessionCore) saveMessages(ctx context.Context, prompt *dispatch.PromptResponse, path string) (*dispatch.SavedPayload, error) {
	return s.client.SaveMessages(ctx, prompt, path)
}

func (s sessionCore) close() { s.client.Close() }

// runInSession runs the steps of a run in the session and prints each step's
// result line as dispatch run does. Its result files stay in the session.
func runInSession(ctx context.Context, socket string, steps []json.RawMessage, timeout *float64) error {
	c := upstream.NewShellClient(socket)
	defer c.Close()
	return c.Run(ctx, steps, timeout, func(line json.RawMessage) error {
		_, err := os.Stdout.Write(append(line, '\n'))
		return err
	})
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
