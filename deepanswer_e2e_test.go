//go:build unix

package main

// End-to-end tests of small results nested deeper than a JSON answer can
// hold: encoding/json, on either side, refuses more than 10,000 levels.
// Every path must answer the agent the same way, with the result saved
// whole to a file.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"dispatch/dispatch"

	"github.com/mark3labs/mcp-go/mcp"
)

// deepAnswerDepths are the fixture's deep tool's depths on either side of
// the limit: its result nests one level more than its structuredContent,
// and the agent's JSON-RPC message one more again.
var deepAnswerDepths = []struct {
	depth  int
	toFile bool
}{
	{dispatchMaxInlineNesting, false},
	{dispatchMaxInlineNesting + 1, true},
	{20000, true}, // 40 KB: under the 50 KiB threshold
}

// dispatchMaxInlineNesting is dispatch.MaxInlineNesting, the deepest
// result answered inline, as the fixture's depth parameter counts: one
// level less, the result's own object.
const dispatchMaxInlineNesting = dispatch.MaxInlineNesting - 1

// checkDeepAnswer checks the agent's answer to a call of deep: the result
// inline, or saved whole on one line.
func checkDeepAnswer(t *testing.T, what string, depth int, toFile bool, r toolResult) {
	t.Helper()
	if r.IsError {
		t.Errorf("%s, %d levels: isError: %.300s", what, depth, r.text())
		return
	}
	if !toFile {
		if string(r.StructuredContent) != brackets(depth) {
			t.Errorf("%s, %d levels: not answered inline: %.300s", what, depth, r.text())
		}
		return
	}
	var a spillAnswer
	if err := json.Unmarshal([]byte(r.text()), &a); err != nil || a.Spill == nil {
		t.Errorf("%s, %d levels: want the result saved to a file, got %.300s (%v)", what, depth, r.text(), err)
		return
	}
	data, err := os.ReadFile(a.Spill.ResultFile)
	if err != nil {
		t.Fatal(err)
	}
	if depth <= dispatch.MaxIndentedNesting {
		// Indented, one value a line, as any result file this deep.
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil || compact.String() != brackets(depth) || a.Spill.Lines < int64(depth) {
			t.Errorf("%s, %d levels: the file of %d lines does not hold the result indented (%v)", what, depth, a.Spill.Lines, err)
		}
		return
	}
	if want := brackets(depth) + "\n"; string(data) != want || a.Spill.Lines != 1 {
		t.Errorf("%s, %d levels: file of %d bytes, %d lines; want the %d-byte result on one line", what, depth, len(data), a.Spill.Lines, len(want))
	}
}

// callDeepWithin calls deep through tc with meta, failing (not hanging)
// when no answer the client can read comes in time.
func callDeepWithin(t *testing.T, tc *testClient, depth int, meta map[string]any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := tc.call(ctx, callDeep(depth, nil), meta)
	if err != nil {
		t.Fatalf("%d levels: no answer the agent can read: %v\nstderr:\n%s", depth, err, tc.Stderr())
	}
	return r
}

// Before: past 10,000 levels the hot path passed the result through as an
// answer no JSON client can read, the general path (a call with _meta)
// never answered ("exceeded max depth" in the log), and --toon answered
// with an error in place of the result.
func TestServe_DeepSmallResultIsSaved(t *testing.T) {
	for _, mode := range []struct {
		name  string
		flags []string
		meta  map[string]any
	}{
		{"hot path", nil, nil},
		{"general path", nil, map[string]any{"progressToken": "p1"}},
		{"--toon", []string{"--toon"}, nil},
	} {
		t.Run(mode.name, func(t *testing.T) {
			tc := startDispatch(t, nil, append(mode.flags, "--no-cache", "--mcp", fixture("--serial"))...)
			for _, d := range deepAnswerDepths {
				checkDeepAnswer(t, mode.name, d.depth, d.toFile, callDeepWithin(t, tc, d.depth, mode.meta))
			}
		})
	}
}

// Before: serve answered 200 with an empty body.
func TestServeHTTP_DeepSmallResultIsSaved(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--serial"))
	c := d.session(t)
	for _, dd := range deepAnswerDepths {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		var req mcp.CallToolRequest
		req.Params.Name = "proxy-dispatch"
		req.Params.Arguments = callDeep(dd.depth, nil)
		res, err := c.CallTool(ctx, req)
		cancel()
		if err != nil {
			t.Fatalf("%d levels: %v", dd.depth, err)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var r toolResult
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		checkDeepAnswer(t, "serve", dd.depth, dd.toFile, r)
	}
}

// brackets is depth nested empty arrays.
func brackets(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}
