package main

// End-to-end tests of an HTTP or SSE server's answer nested deeper than
// encoding/json reads (mcp-go's client decodes these transports with it):
// the call fails with dispatch's refusal, as a stdio server's does, and the
// server stays in use.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Before: the decoder's "exceeded max depth" counted as a lost connection
// (streamable HTTP: "server connection lost", a new session and backoff)
// or, over SSE, the answer was dropped and the call waited out its time
// limit.
func TestServe_HTTPServerAnswerNestedPastTheLimit(t *testing.T) {
	for _, c := range []struct {
		name, transport string
		meta            map[string]any // a progress token makes the answer an SSE stream
	}{
		{"streamable HTTP, JSON body", "http", nil},
		{"streamable HTTP, SSE stream", "http", map[string]any{"progressToken": "deep-1"}},
		{"legacy SSE", "sse", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			inits := filepath.Join(t.TempDir(), "initialize.log")
			spec := startFixtureHTTP(t, c.transport, "--deep-answers", "--log-protocol-version", inits)
			if c.transport == "sse" {
				spec = "sse+" + spec
			}
			tc := startDispatch(t, nil, "--no-cache", "--timeout", "20s", "--mcp", spec)
			// At the limit (the result's and the message's objects add two
			// levels), the answer is read.
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "deep_answer", "arguments": map[string]any{"depth": 9_998}}, c.meta)
			cancel()
			if err != nil || r.IsError {
				t.Fatalf("at the limit: %v %.300s", err, r.text())
			}
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "deep_answer", "arguments": map[string]any{"depth": 20_000}}, c.meta)
				cancel()
				if err != nil {
					t.Fatalf("no answer: %v\nstderr:\n%s", err, tc.Stderr())
				}
				t.Logf("answer: %.300s", r.text())
				if !r.IsError || !strings.Contains(r.text(), "10000 levels") {
					t.Fatalf("answer %.300q (isError %v), want the call failed naming the nesting limit", r.text(), r.IsError)
				}
				if strings.Contains(r.text(), "connection lost") || strings.Contains(r.text(), "backing off") {
					t.Errorf("dispatch's refusal reads as a lost server: %.300s", r.text())
				}
				if got := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "still here"}}).text(); got != "still here" {
					t.Fatalf("the next call answered %q", got)
				}
			}
			// The server did nothing a new session would mend: dispatch
			// initialized it once.
			seen, err := os.ReadFile(inits)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(seen), "\n"); n != 1 {
				t.Errorf("the server was initialized %d times; want once:\n%s", n, seen)
			}
			if strings.Contains(tc.Stderr(), "connection lost") {
				t.Errorf("dispatch logged a lost connection:\n%s", tc.Stderr())
			}
		})
	}
}
