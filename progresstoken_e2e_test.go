package main

// End-to-end tests of the agent's progress tokens: progress reaches the
// agent under its token exactly as it wrote it, whatever mcp-go's
// decoding of _meta (into a float64) would make of it.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hardTokens are progress tokens mcp-go did not give back as sent: past
// 2^53, whole but not written as an integer, past int64, negative zero,
// out of float64's range, and a string like dispatch's surrogates.
var hardTokens = []string{
	`9007199254740993`, `1.0`, `12345678901234567890123`, `-0`, `1e400`, `"dispatch-token:7"`,
}

// slowWithToken is a tools/call of the fixture's slow tool, one step, so
// one progress notification, under token.
func slowWithToken(id int, token string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"slow","arguments":{"seconds":0.01,"steps":1}},"_meta":{"progressToken":%s}}}`, id, token)
}

// progressTokensIn returns the progress tokens, as written, of the
// notifications/progress among messages.
func progressTokensIn(messages ...string) []string {
	var tokens []string
	for _, m := range messages {
		var n struct {
			Method string `json:"method"`
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(m), &n) == nil && n.Method == "notifications/progress" {
			tokens = append(tokens, string(n.Params.ProgressToken))
		}
	}
	return tokens
}

// Over stdio, from a stdio server. Before: 9007199254740993 came back as
// 9007199254740992, 1.0 as 1, -0 as 0, 12345678901234567890123 as
// 1.2345678901234568e+22, and a call with 1e400 failed (mcp-go could not
// decode its _meta).
func TestServe_ProgressUnderTheAgentsExactToken(t *testing.T) {
	a := startIDLines(t, "--no-cache", "--mcp", fixture())
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, token := range hardTokens {
		id := i + 1
		a.send(slowWithToken(id, token))
		var seen []string
		answered := false
		timeout := time.After(30 * time.Second)
		for !answered || len(seen) == 0 {
			select {
			case line, ok := <-a.lines:
				if !ok {
					t.Fatalf("dispatch closed stdout\nstderr:\n%s", a.stderr)
				}
				seen = append(seen, progressTokensIn(string(line))...)
				var m struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if json.Unmarshal(line, &m) == nil && string(m.ID) == fmt.Sprint(id) {
					answered = true
					if m.Error != nil || strings.Contains(string(m.Result), `"isError":true`) {
						t.Errorf("token %s: the call failed: %.300s", token, line)
					}
				}
			case <-timeout:
				if !answered {
					t.Fatalf("token %s: no answer within 30 s\nstderr:\n%s", token, a.stderr)
				}
				seen = append(seen, "(none)")
			}
		}
		if len(seen) != 1 || seen[0] != token {
			t.Errorf("token %s: progress came under %q", token, seen)
		}
	}
}

// Over dispatch serve's HTTP, from a streamable HTTP server. Before: as
// over stdio.
func TestServeHTTP_ProgressUnderTheAgentsExactToken(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, startFixtureHTTP(t, "http"))
	headers := initializedSession(t, d.url)
	for i, token := range hardTokens {
		_, body := rawPost(t, d.url, headers, slowWithToken(i+2, token))
		if got := answerID(body); got != fmt.Sprint(i+2) {
			t.Fatalf("token %s: no answer: %.300s", token, body)
		}
		if strings.Contains(body, `"isError":true`) {
			t.Errorf("token %s: the call failed: %.300s", token, body)
		}
		var events []string
		for _, line := range strings.Split(body, "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				events = append(events, data)
			}
		}
		if seen := progressTokensIn(events...); len(seen) != 1 || seen[0] != token {
			t.Errorf("token %s: progress came under %q", token, seen)
		}
	}
}
