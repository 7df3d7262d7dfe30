package main

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// agentArrival holds back, over stdio, what would start servers until the
// agent's first request: a server declares the client capabilities of the
// agent (roots, sampling, elicitation), which only its initialize (or, on
// 2026-07-28, a request's _meta) says. Started earlier, a server declares
// none, offers the tools a client without them gets, and must be started
// again once the agent has spoken.
type agentArrival struct {
	once    sync.Once
	arrived chan struct{}
	mu      sync.Mutex
	first   []func() // run in order at arrival, before the request is answered
}

func newAgentArrival() *agentArrival {
	return &agentArrival{arrived: make(chan struct{})}
}

// watch has srv report the agent's arrival: at its initialize, or at its
// first other request (2026-07-28 has no initialize).
//
// At initialize the arrival runs before mcp-go handles it, with the
// capabilities recorded here: mcp-go marks the session initialized as it
// handles it, and what the arrival lists would then be announced with
// list_changed notifications written before the initialize answer.
func (a *agentArrival) watch(srv *server.MCPServer) {
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		if method != mcp.MethodInitialize {
			a.arrive()
		}
	})
	hooks.AddBeforeInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest) {
		if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			sess.SetClientCapabilities(req.Params.Capabilities)
		}
		a.arrive()
	})
}

// atArrival adds f to what runs when the agent arrives. Requests that come
// meanwhile wait for f: it is how the first answer already reflects what
// the servers offer this agent.
func (a *agentArrival) atArrival(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.first = append(a.first, f)
}

func (a *agentArrival) arrive() {
	a.once.Do(func() {
		a.mu.Lock()
		first := a.first
		a.mu.Unlock()
		for _, f := range first {
			f()
		}
		close(a.arrived)
	})
}

// wait returns true once the agent has arrived, false if ctx ended first.
// A nil agentArrival (serving HTTP, where each session declares its own)
// has nothing to wait for.
func (a *agentArrival) wait(ctx context.Context) bool {
	if a == nil {
		return true
	}
	select {
	case <-a.arrived:
		return true
	case <-ctx.Done():
		return false
	}
}
