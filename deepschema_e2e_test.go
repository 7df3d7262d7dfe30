package main

// End-to-end tests of a tool whose input schema nests deep: the tool is
// listed, found by search and callable whatever the depth; every --json
// answer is indented at a cost linear in its size; and a schema past the
// 10,000 levels encoders accept is left out of info with a note, never an
// internal-looking error.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"dispatch/dispatch"
)

// Before: 5,000 levels printed 48 MiB (the indentation of each line grew
// with its depth); 10,001 levels failed with "json: error calling
// MarshalJSON", and search did not find the tool.
func TestCLI_DeepSchema(t *testing.T) {
	for _, depth := range []int{5000, dispatch.MaxIndentedNesting + 1} {
		srv := fixture("--serial", "--schema-depth", strconv.Itoa(depth))
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", srv, "--json", "info", "deep_schema")
		if code != 0 {
			t.Fatalf("%d levels: --json info exit %d, stderr %q", depth, code, stderr)
		}
		// Linear: each of the ~2*depth lines at most 2*MaxIndentDepth+8 bytes.
		if limit := 2 * depth * (2*dispatch.MaxIndentDepth + 8); len(out) > limit {
			t.Errorf("%d levels: --json info printed %d bytes, more than %d", depth, len(out), limit)
		}
		var info struct {
			Tool struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tool"`
			Warnings []string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatalf("%d levels: --json info is not JSON: %v", depth, err)
		}
		if depth > dispatch.MaxIndentedNesting {
			if info.Tool.Name != "deep_schema" || info.Tool.Description == "" || info.Tool.InputSchema != nil {
				t.Errorf("%d levels: want the tool without its schema, got %.300s", depth, out)
			}
			if len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], "inputSchema") || !strings.Contains(info.Warnings[0], "MaxIndentedNesting") {
				t.Errorf("%d levels: want one warning naming inputSchema and the limit, got %q", depth, info.Warnings)
			}
			plain, stderr, code := runCLI(t, "", "--no-cache", "--mcp", srv, "info", "deep_schema")
			if code != 0 || !strings.Contains(plain, "warning: ") || !strings.Contains(plain, `"deep_schema"`) {
				t.Errorf("%d levels: info exit %d, stderr %q, out %.300q", depth, code, stderr, plain)
			}
		} else if dispatch.JSONNesting(info.Tool.InputSchema) != depth || len(info.Warnings) != 0 {
			t.Errorf("%d levels: schema of %d levels, warnings %q", depth, dispatch.JSONNesting(info.Tool.InputSchema), info.Warnings)
		}

		out, stderr, code = runCLI(t, "", "--no-cache", "--mcp", srv, "--json", "search", "deep_schema")
		var found struct {
			Hits []struct {
				Name string `json:"name"`
			} `json:"hits"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &found) != nil || len(found.Hits) == 0 || found.Hits[0].Name != "deep_schema" {
			t.Errorf("%d levels: search deep_schema: exit %d, stderr %q, out %.300q", depth, code, stderr, out)
		}
		out, stderr, code = runCLI(t, "", "--no-cache", "--mcp", srv, "call", "deep_schema")
		if code != 0 || strings.TrimSpace(out) != "deep_schema" {
			t.Errorf("%d levels: call: exit %d, stderr %q, out %.300q", depth, code, stderr, out)
		}
	}
}

// Before: the agent's info answer failed with "encode info answer: json:
// error calling MarshalJSON".
func TestServe_DeepSchemaInfo(t *testing.T) {
	// The threshold keeps the Proxy Extension answers (60 KB) inline.
	tc := startDispatch(t, nil, "--no-cache", "--threshold", "1MiB", "--mcp", fixture("--serial", "--schema-depth", strconv.Itoa(dispatch.MaxIndentedNesting+1)))
	var info struct {
		Tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tool"`
		Warnings []string `json:"warnings"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "tool": "deep_schema"}), &info)
	if info.Tool.Name != "deep_schema" || info.Tool.InputSchema != nil || len(info.Warnings) != 1 {
		t.Errorf("info: want the tool without its schema and a warning, got %+v", info)
	}
	var found struct {
		Hits []struct {
			Name string `json:"name"`
		} `json:"hits"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "search", "query": "deep_schema"}), &found)
	if len(found.Hits) == 0 || found.Hits[0].Name != "deep_schema" {
		t.Errorf("search deep_schema: hits %+v", found.Hits)
	}
	// The Proxy Extension's list and info carry the tool as its server
	// published it, as JSON text: before, one deep tool failed the whole
	// list ("json: error calling MarshalJSON").
	for _, req := range []map[string]any{
		{"action": "list", "type": "tool"},
		{"action": "info", "type": "tool", "path": "deep_schema"},
	} {
		r := tc.mustOK(req)
		type item struct {
			Resource struct {
				Text string `json:"text"`
			} `json:"resource"`
		}
		var items []item
		for _, c := range r.Content {
			var it item
			if err := json.Unmarshal(c, &it); err != nil {
				t.Fatal(err)
			}
			items = append(items, it)
		}
		if len(items) != 1 || !strings.Contains(items[0].Resource.Text, `"deep_schema"`) ||
			dispatch.JSONNesting([]byte(items[0].Resource.Text)) <= dispatch.MaxIndentedNesting {
			t.Errorf("%v: want the deep tool whole, got %d items: %.300s", req, len(items), r.Content)
		}
	}
}

// list --schema and search --schema show a tool's input schema only when
// their answer can carry it: the answer's object, its list and the tool's
// entry are three levels around it (info's answer and the tool, two).
// Past that the schema is left out with a warning naming the limit. Before,
// a schema past 10,000 levels was left out silently, and one of 9,998 or
// 9,999 levels (info: 9,999) made --json print an answer nested past
// 10,000 levels, which no encoding/json reader takes.
func TestCLI_DeepSchemaListed(t *testing.T) {
	for _, depth := range []int{dispatch.MaxIndentedNesting - 3, dispatch.MaxIndentedNesting - 2, dispatch.MaxIndentedNesting - 1, dispatch.MaxIndentedNesting + 1} {
		srv := fixture("--serial", "--schema-depth", strconv.Itoa(depth))
		shown := depth+3 <= dispatch.MaxIndentedNesting
		for _, args := range [][]string{{"list", "--schema", "-C", "c1"}, {"search", "--schema", "deep_schema"}} {
			what := fmt.Sprintf("%d levels, %s", depth, strings.Join(args, " "))
			out, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", srv, "--json"}, args...)...)
			var answer struct {
				Tools []dispatch.ToolEntry `json:"tools"`
				Hits  []dispatch.ToolEntry `json:"hits"`
			}
			if code != 0 {
				t.Fatalf("%s: exit %d, stderr %q", what, code, stderr)
			}
			if err := json.Unmarshal([]byte(out), &answer); err != nil {
				t.Errorf("%s: --json printed what encoding/json cannot read: %v", what, err)
				continue
			}
			var entry *dispatch.ToolEntry
			for _, e := range append(answer.Tools, answer.Hits...) {
				if e.Name == "deep_schema" {
					entry = &e
				}
			}
			switch {
			case entry == nil:
				t.Errorf("%s: deep_schema not listed: %.300s", what, out)
			case shown && (dispatch.JSONNesting(entry.InputSchema) != depth || len(entry.Warnings) != 0):
				t.Errorf("%s: schema of %d levels, warnings %q; want the schema whole", what, dispatch.JSONNesting(entry.InputSchema), entry.Warnings)
			case !shown && (entry.InputSchema != nil || len(entry.Warnings) != 1 ||
				!strings.Contains(entry.Warnings[0], "inputSchema") || !strings.Contains(entry.Warnings[0], "MaxIndentedNesting")):
				t.Errorf("%s: schema of %d levels, warnings %q; want it left out with a warning naming inputSchema and the limit", what, dispatch.JSONNesting(entry.InputSchema), entry.Warnings)
			}
			if shown {
				continue
			}
			plain, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", srv}, args...)...)
			if code != 0 || !strings.Contains(plain, "warning: the tool's inputSchema is left out") || !strings.Contains(plain, "MaxIndentedNesting") {
				t.Errorf("%s, without --json: exit %d, stderr %q, out %.600q; want the warning", what, code, stderr, plain)
			}
		}
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", srv, "--json", "info", "deep_schema")
		var info struct {
			Tool     json.RawMessage `json:"tool"`
			Warnings []string        `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &info); code != 0 || err != nil {
			t.Errorf("%d levels: --json info: exit %d, stderr %q, %v", depth, code, stderr, err)
		} else if withSchema := depth+2 <= dispatch.MaxIndentedNesting; withSchema != (len(info.Warnings) == 0) {
			t.Errorf("%d levels: info warnings %q; want the schema shown %v", depth, info.Warnings, withSchema)
		}
	}
}

// A tool whose schema nests past 10,000 levels is cached with the rest of
// its server's catalog: warm list, search and info answer as cold ones did,
// without starting the server. Before, encoding/json refused to write the
// entry, so every command started the server again.
func TestCLI_DeepSchemaCached(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "serial.log")
	srv := fixture("--serial", "--serial-log", log, "--schema-depth", strconv.Itoa(dispatch.MaxIndentedNesting+1))
	cli := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, "", append([]string{"--cache-dir", filepath.Join(dir, "cache"), "--mcp", srv, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		return out
	}
	type listed struct {
		Connections []struct {
			Catalog string `json:"catalog"`
		} `json:"connections"`
		Tools []dispatch.ToolEntry `json:"tools"`
	}
	decode := func(what, out string) listed {
		t.Helper()
		var l listed
		if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Connections) != 1 {
			t.Fatalf("%s: %v, %.300s", what, err, out)
		}
		return l
	}
	cold := decode("cold list", cli("list", "--schema", "-C", "c1"))
	warm := decode("warm list", cli("list", "--schema", "-C", "c1"))
	if cold.Connections[0].Catalog == "cache" || warm.Connections[0].Catalog != "cache" {
		t.Errorf("catalogs cold %q, warm %q; want the warm list from the cache", cold.Connections[0].Catalog, warm.Connections[0].Catalog)
	}
	if !reflect.DeepEqual(cold.Tools, warm.Tools) {
		t.Errorf("warm list differs from the cold one:\n cold %+v\n warm %+v", cold.Tools, warm.Tools)
	}
	var found struct {
		Hits []dispatch.ToolEntry `json:"hits"`
	}
	if err := json.Unmarshal([]byte(cli("search", "deep_schema")), &found); err != nil || len(found.Hits) == 0 || found.Hits[0].Name != "deep_schema" {
		t.Errorf("warm search deep_schema: %v, hits %+v", err, found.Hits)
	}
	var info struct {
		Tool     json.RawMessage `json:"tool"`
		Warnings []string        `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(cli("info", "deep_schema")), &info); err != nil || !strings.Contains(string(info.Tool), `"deep_schema"`) || len(info.Warnings) != 1 {
		t.Errorf("warm info deep_schema: %v, %.200s, warnings %q", err, info.Tool, info.Warnings)
	}
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if starts := strings.Count(string(seen), "start "); starts != 1 {
		t.Errorf("the server started %d times; want once, for the cold list", starts)
	}
}
