//go:build unix

package main

// End-to-end tests of a result whose _meta nests deeper than a JSON
// answer can hold: the answer that names its file carries the _meta the
// server sent, which encoding/json refuses past 10,000 levels, so the
// file holds the whole result instead.

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"dispatch/dispatch"

	"github.com/mark3labs/mcp-go/mcp"
)

// deepMetaCall is a call of the fixture's deep tool whose result is one
// text item and a _meta nested metaDepth levels (in a member of its own).
func deepMetaCall(metaDepth int, toFile bool) map[string]any {
	req := map[string]any{"action": "call", "tool": "deep", "arguments": map[string]any{"metaDepth": metaDepth}}
	if toFile {
		req["resultToFile"] = true
	}
	return req
}

// deepMetaResult is the fixture's result for deepMetaCall.
func deepMetaResult(metaDepth int) string {
	return `{"content":[{"type":"text","text":"deep"}],"_meta":{"deep":` + brackets(metaDepth) + `}}`
}

// deepMetaDepths are _meta depths on either side of what a saved
// result's answer can carry (inside its own object: MaxInlineNesting),
// counted as the fixture's metaDepth, which the _meta's object adds one
// to.
var deepMetaDepths = []struct {
	metaDepth int
	whole     bool // the file holds the whole result, the answer no _meta
}{
	{dispatch.MaxInlineNesting - 1, false},
	{dispatch.MaxInlineNesting, true},
	{20000, true},
}

// checkDeepMeta checks the agent's answer r to deepMetaCall: saved to a
// file, the text alone with the _meta in the answer, or the whole result
// with none.
func checkDeepMeta(t *testing.T, what string, metaDepth int, whole bool, r toolResult) {
	t.Helper()
	if r.IsError {
		t.Errorf("%s, _meta of %d levels: isError: %.300s", what, metaDepth, r.text())
		return
	}
	var a struct {
		Meta  json.RawMessage `json:"_meta"`
		Spill *struct {
			ResultFile string
			Saved      string
			Lines      int64
		}
	}
	if err := json.Unmarshal([]byte(r.text()), &a); err != nil || a.Spill == nil {
		t.Errorf("%s, _meta of %d levels: want the result saved to a file, got %.300s (%v)", what, metaDepth, r.text(), err)
		return
	}
	data, err := os.ReadFile(a.Spill.ResultFile)
	if err != nil {
		t.Fatal(err)
	}
	if !whole {
		if a.Spill.Saved != "text" || string(data) != "deep" || dispatch.JSONNesting(a.Meta) != metaDepth+1 {
			t.Errorf("%s, _meta of %d levels: saved %q (%.80q), _meta of %d levels; want the text saved and the _meta answered",
				what, metaDepth, a.Spill.Saved, data, dispatch.JSONNesting(a.Meta))
		}
		return
	}
	if want := deepMetaResult(metaDepth) + "\n"; a.Spill.Saved != "result" || string(data) != want || a.Spill.Lines != 1 || a.Meta != nil {
		t.Errorf("%s, _meta of %d levels: saved %q, file of %d bytes, %d lines, _meta %.80s; want the whole %d-byte result on one line and no _meta",
			what, metaDepth, a.Spill.Saved, len(data), a.Spill.Lines, a.Meta, len(want))
	}
}

// Before: past 10,000 levels every path answered "encode response: json:
// error calling MarshalJSON for type json.RawMessage: exceeded max depth"
// (serve: an empty body), the result lost and its file left behind.
func TestServe_DeepMetaIsSaved(t *testing.T) {
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
			forDeepMeta(func(metaDepth int, toFile, whole bool) {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				r, err := tc.call(ctx, deepMetaCall(metaDepth, toFile), mode.meta)
				if err != nil {
					t.Fatalf("_meta of %d levels: no answer the agent can read: %v\nstderr:\n%s", metaDepth, err, tc.Stderr())
				}
				checkDeepMeta(t, mode.name, metaDepth, whole, r)
			})
		})
	}
}

func TestServeHTTP_DeepMetaIsSaved(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--serial"))
	c := d.session(t)
	forDeepMeta(func(metaDepth int, toFile, whole bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "proxy-dispatch"
		req.Params.Arguments = deepMetaCall(metaDepth, toFile)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("_meta of %d levels: %v", metaDepth, err)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var r toolResult
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		checkDeepMeta(t, "serve", metaDepth, whole, r)
	})
}

// forDeepMeta runs check for each of deepMetaDepths, with resultToFile
// and without: each result nests too deep to answer inline, so it is
// saved either way.
func forDeepMeta(check func(metaDepth int, toFile, whole bool)) {
	for _, d := range deepMetaDepths {
		for _, toFile := range []bool{true, false} {
			check(d.metaDepth, toFile, d.whole)
		}
	}
}
