package connections

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// agentStub is an Upstream whose value type is incomparable (a func
// field): == on two of them in interfaces would panic.
type agentStub struct{ name func() string }

func (agentStub) ClientCapabilities() mcp.ClientCapabilities { return mcp.ClientCapabilities{} }
func (agentStub) RequestClient(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}
func (agentStub) NotifyClient(string, any) bool { return false }

type agentPtr struct{ agentStub }

func TestCarriesUpstream(t *testing.T) {
	a, b := &agentPtr{}, &agentPtr{}
	marked := WithUpstream(context.Background(), a)
	incomparable := agentStub{name: func() string { return "x" }}
	cases := []struct {
		name string
		ctx  context.Context
		up   Upstream
		want bool
	}{
		{"the same session", marked, a, true},
		{"another session", marked, b, false},
		{"unmarked", context.Background(), a, false},
		{"nil", marked, nil, false},
		{"incomparable, marked", WithUpstream(context.Background(), incomparable), incomparable, false},
		{"incomparable against a pointer", marked, incomparable, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := CarriesUpstream(c.ctx, c.up); got != c.want {
				t.Errorf("CarriesUpstream = %v, want %v", got, c.want)
			}
		})
	}
}
