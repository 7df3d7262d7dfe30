package main

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
)

type searchHitJSON struct {
	Type, Connection, Name, URI, URITemplate, Arguments string
}

func searchHits(t *testing.T, tc *testClient, args map[string]any) (resp struct {
	Hits           []searchHitJSON
	TotalTools     int
	TotalResources int
	TotalPrompts   int
	Hint           string
}) {
	t.Helper()
	decodeText(t, tc.mustOK(args), &resp)
	return resp
}

// TestServe_SearchRanksResourcesAndPrompts: a search without a type ranks
// the fixture's tools, resources, templates and prompts together, each
// non-tool hit saying its type and giving the URI or prompt name that call
// takes; "type" keeps one kind.
func TestServe_SearchRanksResourcesAndPrompts(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"))

	all := searchHits(t, tc, map[string]any{"action": "search", "query": "greet someone by name"})
	if len(all.Hits) == 0 || all.Hits[0].Type != "prompt" || all.Hits[0].Name != "greet" {
		t.Fatalf("first hit for a greeting = %+v, want the prompt greet", all.Hits)
	}
	if all.TotalResources == 0 || all.TotalPrompts == 0 || all.TotalTools == 0 {
		t.Errorf("totals = %d tools, %d resources, %d prompts; want all three counted", all.TotalTools, all.TotalResources, all.TotalPrompts)
	}
	if !strings.Contains(all.Hint, `"type":"prompt"`) {
		t.Errorf("hint %q does not say how to get a prompt", all.Hint)
	}

	res := searchHits(t, tc, map[string]any{"action": "search", "query": "the settings as a JSON document", "type": "resource"})
	if len(res.Hits) == 0 || res.Hits[0].URI != "fixture://json/config" {
		t.Fatalf("resource hits = %+v, want fixture://json/config first", res.Hits)
	}
	for _, h := range res.Hits {
		if h.Type != "resource" || (h.URI == "") == (h.URITemplate == "") {
			t.Errorf("type=resource hit %+v: want type resource with a uri or a uriTemplate", h)
		}
	}

	tmpl := searchHits(t, tc, map[string]any{"action": "search", "query": "item by id", "type": "resource"})
	found := false
	for _, h := range tmpl.Hits {
		found = found || h.URITemplate == "fixture://items/{id}"
	}
	if !found {
		t.Errorf("template hits = %+v, want fixture://items/{id}", tmpl.Hits)
	}

	// A pasted URI that expands a template finds the template first, alone
	// or inside a request, over every kind.
	for _, q := range []string{"fixture://items/42", "what is in fixture://items/42?"} {
		pasted := searchHits(t, tc, map[string]any{"action": "search", "query": q})
		if len(pasted.Hits) == 0 || pasted.Hits[0].URITemplate != "fixture://items/{id}" {
			t.Errorf("search %q = %+v, want the template fixture://items/{id} first", q, pasted.Hits)
		}
	}

	tools := searchHits(t, tc, map[string]any{"action": "search", "query": "greet someone by name", "type": "tool"})
	for _, h := range tools.Hits {
		if h.Type != "" {
			t.Errorf("type=tool returned a %s hit: %+v", h.Type, h)
		}
	}

	r := tc.mustCall(map[string]any{"action": "search", "query": "greet", "type": "prompts"})
	if !r.IsError || !strings.Contains(r.text(), `unknown type "prompts"`) {
		t.Errorf("type prompts: %s", r.text())
	}
	r = tc.mustCall(map[string]any{"action": "search", "query": "greet", "type": "prompt", "includeInputSchema": true})
	if !r.IsError || !strings.Contains(r.text(), `"includeInputSchema" applies to tools`) {
		t.Errorf("includeInputSchema with type prompt: %s", r.text())
	}
}

// TestServe_SearchToolOnlyAnswerUnchanged: over servers that publish no
// resources or prompts, search answers exactly as it did before it covered
// them: no type on hits, no resource or prompt totals, the same hints.
func TestServe_SearchToolOnlyAnswerUnchanged(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "search", "query": "echo a message"})
	var resp map[string]json.RawMessage
	decodeText(t, r, &resp)
	var keys []string
	for k := range resp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "hint,hits,query,totalTools" {
		t.Errorf("answer keys = %s, want hint,hits,query,totalTools: %s", got, r.text())
	}
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal(resp["hits"], &hits); err != nil || len(hits) == 0 {
		t.Fatalf("hits %s: %v", resp["hits"], err)
	}
	for _, h := range hits {
		for _, k := range []string{"type", "uri", "uriTemplate", "mimeType", "arguments"} {
			if _, ok := h[k]; ok {
				t.Errorf("tool hit has %q: %s", k, resp["hits"])
			}
		}
	}
	none := tc.mustOK(map[string]any{"action": "search", "query": "zqxjv wvkpq"})
	if !strings.Contains(none.text(), `No tool matched. Try other words (what the tool does, not how)`) {
		t.Errorf("no-hit answer changed: %s", none.text())
	}
}

// TestServe_SearchNamesADownServerOnce: a server that cannot start fails
// its tools, resources and prompts alike; search says so once.
func TestServe_SearchNamesADownServerOnce(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", "/nonexistent/server-for-search")
	var resp struct{ Unreachable []string }
	decodeText(t, tc.mustCall(map[string]any{"action": "search", "query": "read a file"}), &resp)
	if len(resp.Unreachable) != 1 {
		t.Errorf("unreachable = %q, want the one server named once", resp.Unreachable)
	}
}

// TestServe_SearchSaysWhatAHitDoesNotMatch: search answers with the best it
// has even when no tool does the task; each hit lists the query words it
// does not match, so the agent sees that before it calls, and a hit that
// matches every word lists none.
func TestServe_SearchSaysWhatAHitDoesNotMatch(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())

	var partial struct {
		Hits []struct {
			Name      string
			Unmatched []string
		}
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "search", "query": "delete a large document"}), &partial)
	if len(partial.Hits) == 0 {
		t.Fatal("no hits for a large document")
	}
	for _, h := range partial.Hits {
		if !slices.Contains(h.Unmatched, "delete") {
			t.Errorf("hit %s: unmatched %q, want delete listed (no fixture tool deletes)", h.Name, h.Unmatched)
		}
	}

	var whole struct {
		Hits []json.RawMessage
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "search", "query": "echo a message"}), &whole)
	if len(whole.Hits) == 0 || strings.Contains(string(whole.Hits[0]), "unmatched") {
		t.Errorf("echo a message: first hit %s, want echo with no unmatched field", whole.Hits)
	}
}
