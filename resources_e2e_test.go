//go:build unix

package main

import (
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sideList is the answer of list type=resource or type=prompt.
type sideList struct {
	Resources []struct {
		Connection  string `json:"connection"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
		Name        string `json:"name"`
		MIMEType    string `json:"mimeType"`
		Size        *int64 `json:"size"`
		Description string `json:"description"`
	} `json:"resources"`
	Prompts []struct {
		Connection  string `json:"connection"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Arguments   string `json:"arguments"`
	} `json:"prompts"`
	Total       int64    `json:"total"`
	NextOffset  int64    `json:"nextOffset"`
	Unreachable []string `json:"unreachable"`
	Hint        string   `json:"hint"`
}

func (l sideList) keys() []string {
	var keys []string
	for _, r := range l.Resources {
		keys = append(keys, r.URI+r.URITemplate)
	}
	for _, p := range l.Prompts {
		keys = append(keys, p.Name)
	}
	return keys
}

func mustSideList(t *testing.T, tc *testClient, args map[string]any) sideList {
	t.Helper()
	var l sideList
	decodeText(t, tc.mustOK(args), &l)
	return l
}

// mustFail calls and returns the error text, failing the test when the
// call succeeded.
func (tc *testClient) mustFail(args map[string]any) string {
	tc.t.Helper()
	r := tc.mustCall(args)
	if !r.IsError {
		tc.t.Fatalf("call %v succeeded with %s, want an error", args, r.text())
	}
	return r.text()
}

var fixtureResources = []string{"fixture://json/config", "fixture://text/hello", "fixture://large/blob-5mb",
	"fixture://large/text-20mb", "fixture://blob/pixel.png", "fixture://files/{+path}", "fixture://items/{id}"}

func TestServe_ListResourcesAndPrompts(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"), "--mcp", fixture("--demo"))

	all := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "format": "compact"})
	if got := strings.Join(all.keys(), " "); got != strings.Join(fixtureResources, " ") || all.Total != 7 {
		t.Fatalf("list type=resource = %s (total %d), want %v", got, all.Total, fixtureResources)
	}
	for _, r := range all.Resources {
		if r.Connection != "c1" || r.Name == "" || r.MIMEType == "" || r.Description == "" {
			t.Errorf("resource entry %+v lacks its connection, name, mimeType or description", r)
		}
		if r.URI == "fixture://large/text-20mb" && (r.Size == nil || *r.Size != 20<<20) {
			t.Errorf("20 MB resource size = %v, want %d", r.Size, 20<<20)
		}
	}

	// Paginated like tools.
	var paged []string
	for offset := int64(0); ; {
		page := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "limit": 3, "offset": offset, "format": "compact"})
		paged = append(paged, page.keys()...)
		if page.NextOffset == 0 {
			break
		}
		if !strings.Contains(page.Hint, fmt.Sprintf(`"offset": %d`, page.NextOffset)) {
			t.Errorf("page hint %q does not say how to go on", page.Hint)
		}
		offset = page.NextOffset
	}
	if strings.Join(paged, " ") != strings.Join(fixtureResources, " ") {
		t.Errorf("pages of 3 gave %v, want %v", paged, fixtureResources)
	}
	past := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "offset": 7, "format": "compact"})
	if len(past.Resources) != 0 || !strings.Contains(past.Hint, `"offset" 7 is past the end: there are 7 resources`) {
		t.Errorf("offset past the end: %+v", past)
	}

	// A server without resources or prompts: an empty list that says so.
	none := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "connection": "c2"})
	if len(none.Resources) != 0 || none.Hint != "c2 offers no resources" {
		t.Errorf("list type=resource on c2 = %+v, want none and a hint", none)
	}

	prompts := mustSideList(t, tc, map[string]any{"action": "list", "type": "prompt", "format": "compact"})
	if len(prompts.Prompts) != 2 || prompts.Prompts[0].Name != "greet" || prompts.Prompts[0].Arguments != "name, style?" ||
		prompts.Prompts[1].Name != "media" || prompts.Prompts[0].Description != "Greet someone by name." {
		t.Errorf("list type=prompt = %+v", prompts.Prompts)
	}
}

func TestServe_InfoResourcesAndPrompts(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"), "--mcp", fixture("--demo"))

	var res struct {
		Connection string          `json:"connection"`
		Resource   json.RawMessage `json:"resource"`
		Template   json.RawMessage `json:"template"`
		Variables  []struct {
			Name        string   `json:"name"`
			Completions []string `json:"completions"`
		} `json:"variables"`
		Matched map[string]string `json:"matched"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "fixture://large/blob-5mb"}), &res)
	if want := `{"uri":"fixture://large/blob-5mb","name":"large-blob","description":"5 MB of binary data, generated on each read.","mimeType":"application/octet-stream","size":5242880}`; string(res.Resource) != want || res.Connection != "c1" {
		t.Errorf("info of a resource = %s on %s, want %s on c1", res.Resource, res.Connection, want)
	}

	res.Resource = nil
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "fixture://items/{id}"}), &res)
	if len(res.Template) == 0 || len(res.Variables) != 1 || res.Variables[0].Name != "id" ||
		strings.Join(res.Variables[0].Completions, ",") != "1,2,3" {
		t.Errorf("info of a template = %+v, want variable id completing to 1,2,3", res)
	}

	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "fixture://files/docs/guide.md"}), &res)
	if !strings.Contains(string(res.Template), `"uriTemplate":"fixture://files/{+path}"`) || res.Matched["path"] != "docs/guide.md" {
		t.Errorf("info of a URI the files template expands to = %+v", res)
	}

	var prompt struct {
		Prompt    json.RawMessage `json:"prompt"`
		Arguments string          `json:"arguments"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "prompt", "prompt": "greet"}), &prompt)
	if prompt.Arguments != "name, style?" || !strings.Contains(string(prompt.Prompt), `{"name":"name","description":"Who to greet","required":true}`) {
		t.Errorf("info of a prompt = %+v", prompt)
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "prompt", "prompt": "c1/media"}), &prompt)
	if !strings.Contains(string(prompt.Prompt), `"name":"media"`) {
		t.Errorf("info of c1/media = %s", prompt.Prompt)
	}

	for _, tt := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"action": "info", "type": "resource", "uri": "fixture://text/helo"},
			[]string{`no resource with uri "fixture://text/helo"`, `did you mean "fixture://text/hello"`}},
		{map[string]any{"action": "info", "type": "prompt", "prompt": "greeting"},
			[]string{`no prompt with name "greeting"`, `did you mean "greet"`}},
		{map[string]any{"action": "info", "type": "resource", "uri": "fixture://text/hello", "connection": "c2"},
			[]string{`c2 offers no resources`}},
		{map[string]any{"action": "info", "type": "prompt", "prompt": "greet", "connection": "c2"},
			[]string{`c2 offers no prompts`}},
		{map[string]any{"action": "list", "type": "resources"},
			[]string{`unknown type "resources"`, `"resource"`, `"prompt"`, `"tool"`}},
		{map[string]any{"action": "info", "type": "tool", "uri": "fixture://text/hello"},
			[]string{`Add "type":"resource"`}},
	} {
		text := tc.mustFail(tt.args)
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: error %q, want it to contain %q", tt.args, text, w)
			}
		}
	}
}

func TestServe_AmbiguousResourceNamesConnections(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"), "--mcp", fixture("--resources", "--name", "twin"))
	text := tc.mustFail(map[string]any{"action": "info", "type": "resource", "uri": "fixture://text/hello"})
	for _, w := range []string{`offered by 2 connections`, "c1", "c2", `Add "connection":"c1"`} {
		if !strings.Contains(text, w) {
			t.Errorf("ambiguous URI error %q lacks %q", text, w)
		}
	}
	var res struct {
		Connection string `json:"connection"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "fixture://text/hello", "connection": "c2"}), &res)
	if res.Connection != "c2" {
		t.Errorf("info with connection c2 answered from %q", res.Connection)
	}
}

// A warm catalog cache answers list and info of resources and prompts
// without starting any server.
func TestServe_ResourcesAndPromptsFromWarmCache(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "init.log")
	args := []string{"--cache-dir", filepath.Join(dir, "cache"),
		"--mcp", fixture("--resources", "--log-protocol-version", log),
		"--mcp", fixture("--demo", "--log-protocol-version", filepath.Join(dir, "demo.log"))}

	cold := startDispatch(t, nil, args...)
	cold.mustOK(map[string]any{"action": "list"}) // lists tools, and with them the rest
	if n := initCount(t, log); n != 1 {
		t.Fatalf("cold list: %d starts, want 1", n)
	}
	if err := cold.client.Close(); err != nil {
		t.Fatal(err)
	}

	warm := startDispatch(t, nil, args...)
	resources := mustSideList(t, warm, map[string]any{"action": "list", "type": "resource", "format": "compact"})
	prompts := mustSideList(t, warm, map[string]any{"action": "list", "type": "prompt", "format": "compact"})
	warm.mustOK(map[string]any{"action": "info", "type": "prompt", "prompt": "greet"})
	warm.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "fixture://text/hello"})
	none := mustSideList(t, warm, map[string]any{"action": "list", "type": "prompt", "connection": "c2"})
	if len(resources.Resources) != 7 || len(prompts.Prompts) != 2 || none.Hint != "c2 offers no prompts" {
		t.Fatalf("from the cache: %d resources, %d prompts, c2 %+v; want 7, 2 and none", len(resources.Resources), len(prompts.Prompts), none)
	}
	if n, demo := initCount(t, log), initCount(t, filepath.Join(dir, "demo.log")); n != 1 || demo != 1 {
		t.Errorf("warm cache: servers started %d and %d times in all, want 1 each (the cold list only)", n, demo)
	}
}

func TestServe_ResourcesAndPromptsListChanged(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"))
	before := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "format": "compact"})
	mustSideList(t, tc, map[string]any{"action": "list", "type": "prompt", "format": "compact"})
	if contains(before.keys(), "fixture://added/later") {
		t.Fatal("added resource listed before it was added")
	}
	tc.mustOK(map[string]any{"action": "call", "tool": "add_resource"})
	testkit.WaitFor(t, "fixture://added/later in list type=resource", 10*time.Second, func() bool {
		return contains(mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "format": "compact"}).keys(), "fixture://added/later")
	})
	tc.mustOK(map[string]any{"action": "call", "tool": "add_prompt"})
	testkit.WaitFor(t, "added_later_prompt in list type=prompt", 10*time.Second, func() bool {
		return contains(mustSideList(t, tc, map[string]any{"action": "list", "type": "prompt", "format": "compact"}).keys(), "added_later_prompt")
	})
}

func TestServe_ResourceTextIsMasked(t *testing.T) {
	const secret = "leaked-resource-secret-81723"
	tc := startDispatch(t, []string{"MYAPI_TOKEN=" + secret}, "--no-cache", "--inherit-env", "--mcp", fixture("--resources", "--leak-env", "MYAPI_TOKEN"))
	for _, args := range []map[string]any{
		{"action": "list", "type": "resource", "format": "detail"},
		{"action": "info", "type": "resource", "uri": "fixture://leaky"},
	} {
		text := tc.mustOK(args).text()
		if !strings.Contains(text, "fixture://leaky") {
			t.Fatalf("%v: %s lacks the leaky resource", args, text)
		}
		if strings.Contains(text, secret) {
			t.Errorf("%v shows the server's secret: %s", args, text)
		}
	}
}

// Every resource, template and prompt mcp-go's conformance server offers,
// over streamable HTTP, is listed and described.
func TestServe_ConformanceServerResourcesAndPrompts(t *testing.T) {
	url := startConformanceServer(t)
	tc := startDispatch(t, nil, "--no-cache", "--mcp", url)

	resources := mustSideList(t, tc, map[string]any{"action": "list", "type": "resource", "format": "compact"})
	wantResources := []string{"test://static-binary", "test://static-text", "test://template/{id}/data"}
	if got := resources.keys(); strings.Join(got, " ") != strings.Join(wantResources, " ") {
		t.Errorf("conformance resources = %v, want %v", got, wantResources)
	}
	for _, uri := range wantResources {
		text := tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": uri}).text()
		if !strings.Contains(text, fmt.Sprintf("%q", uri)) {
			t.Errorf("info %s = %s", uri, text)
		}
	}
	var tmpl struct {
		Variables []struct {
			Name string `json:"name"`
		} `json:"variables"`
		Matched map[string]string `json:"matched"`
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "info", "type": "resource", "uri": "test://template/42/data"}), &tmpl)
	if len(tmpl.Variables) != 1 || tmpl.Variables[0].Name != "id" || tmpl.Matched["id"] != "42" {
		t.Errorf("info of an expansion of the conformance template = %+v", tmpl)
	}

	prompts := mustSideList(t, tc, map[string]any{"action": "list", "type": "prompt", "format": "compact"})
	wantPrompts := map[string]string{"test_simple_prompt": "", "test_prompt_with_arguments": "arg1, arg2",
		"test_prompt_with_embedded_resource": "resourceUri", "test_prompt_with_image": ""}
	if len(prompts.Prompts) != len(wantPrompts) {
		t.Errorf("conformance prompts = %v, want %d", prompts.keys(), len(wantPrompts))
	}
	for _, p := range prompts.Prompts {
		args, ok := wantPrompts[p.Name]
		if !ok || p.Arguments != args {
			t.Errorf("prompt %s with arguments %q, want %q", p.Name, p.Arguments, args)
		}
		text := tc.mustOK(map[string]any{"action": "info", "type": "prompt", "prompt": p.Name}).text()
		if !strings.Contains(text, fmt.Sprintf(`"name":%q`, p.Name)) {
			t.Errorf("info of prompt %s = %s", p.Name, text)
		}
	}
}

// type "tool" is the default: list and info answer exactly as without it.
// A bare {"action":"list","type":...} is the Proxy Extension's spelling and
// answers in its shape (TestProxyExtension_*); format keeps dispatch's own.
func TestServe_TypeToolIsTheDefault(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"))
	for _, args := range []map[string]any{
		{"action": "list", "format": "compact"},
		{"action": "list", "connection": "c1", "limit": 5},
		{"action": "info", "tool": "echo"},
	} {
		plain := tc.mustOK(args).text()
		typed := map[string]any{"type": "tool"}
		for k, v := range args {
			typed[k] = v
		}
		if got := tc.mustOK(typed).text(); got != plain {
			t.Errorf("%v with type tool =\n%s\nwithout =\n%s", args, got, plain)
		}
	}
}
