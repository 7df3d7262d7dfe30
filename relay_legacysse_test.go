package main

import (
	"strings"
	"testing"
)

// TestRelay_LegacySSEServerRequestsReachTheAgent: a legacy HTTP+SSE
// server's sampling, elicitation and roots requests reach the agent and
// its answers reach the server, as over stdio. mcp-go's SSE client
// answered none of them: each call waited for the server's request to
// time out.
func TestRelay_LegacySSEServerRequestsReachTheAgent(t *testing.T) {
	agent := &testAgent{}
	url := startFixtureHTTP(t, "sse-requests", "--client-requests")
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--server-request-timeout", "20s", "--mcp", "sse+"+url)

	if r := callFixtureTool(tc, "request-sampling", map[string]any{"prompt": "hello"}); r.IsError || r.text() != "sampled: hello" {
		t.Errorf("request-sampling = %q (isError %v), want the agent's answer \"sampled: hello\"", r.text(), r.IsError)
	}
	r := callFixtureTool(tc, "request-elicitation", map[string]any{"message": "Your name?"})
	checkText(t, "request-elicitation", r.text(), []string{`"action":"accept"`, `"name":"Ada"`}, nil)
	r = callFixtureTool(tc, "request-roots", nil)
	checkText(t, "request-roots", r.text(), []string{`"uri":"file:///work/project"`, `"name":"project"`}, nil)

	got := strings.Join(agent.questions(), "\n")
	checkText(t, "what the agent was asked", got, []string{"sampling: hello", "elicitation: Your name?", "roots"}, nil)
}
