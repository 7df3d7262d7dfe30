package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// proxyItem is one content item of a Proxy Extension answer, as Magg's
// client reads it.
type proxyItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Resource struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"resource"`
	Annotations map[string]any `json:"annotations"`
}

func proxyItems(t *testing.T, r toolResult) []proxyItem {
	t.Helper()
	items := make([]proxyItem, len(r.Content))
	for i, raw := range r.Content {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			t.Fatalf("content item %s: %v", raw, err)
		}
	}
	return items
}

// wantAnnotations checks that got has every key of want with its value.
func wantAnnotations(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: annotation %s = %v, want %v (all: %v)", what, k, got[k], v, got)
		}
	}
}

func metaOf(t *testing.T, r toolResult) map[string]any {
	t.Helper()
	var meta map[string]any
	if err := json.Unmarshal(r.Meta, &meta); err != nil {
		t.Fatalf("_meta %s: %v", r.Meta, err)
	}
	return meta
}

// A client written for Magg's proxy tool (type, path, args, filter_server)
// works against dispatch unchanged: list and info answer with one embedded
// JSON resource of the servers' own objects, call with the tool's content
// annotated, and dispatch's own spelling keeps its compact answers.
func TestServe_ProxyExtensionClient(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture(), "--mcp", fixture("--tools", "3", "--name", "second"))

	t.Run("list", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "list", "type": "tool"})
		items := proxyItems(t, r)
		if len(items) != 1 || items[0].Type != "resource" {
			t.Fatalf("want one embedded resource, got %s", r.Content)
		}
		res := items[0].Resource
		if res.URI != "proxy:list/tool" || res.MimeType != "application/json" {
			t.Errorf("resource uri %q mimeType %q", res.URI, res.MimeType)
		}
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal([]byte(res.Text), &tools); err != nil {
			t.Fatalf("resource text is not a JSON array of tools: %v\n%s", err, res.Text)
		}
		var c1Echo, generated int
		for _, tool := range tools {
			if len(tool.InputSchema) == 0 {
				t.Errorf("tool %s has no inputSchema: the objects must be as published", tool.Name)
			}
			if tool.Name == "echo" {
				c1Echo++
			}
			if strings.HasPrefix(tool.Name, "tool_000") {
				generated++
			}
		}
		if c1Echo != 2 || generated != 3 {
			t.Errorf("got %d echo tools and %d generated ones, want 2 and 3", c1Echo, generated)
		}
		wantAnnotations(t, "list", items[0].Annotations, map[string]any{
			"proxyAction": "list", "proxyType": "tool", "pythonType": "Tool", "many": true,
			"totalCount": float64(len(tools)), "offset": float64(0),
		})
		wantAnnotations(t, "list _meta", metaOf(t, r), map[string]any{"proxyAction": "list", "proxyType": "tool"})
	})

	t.Run("list filter_server and pages", func(t *testing.T) {
		all := tc.mustOK(map[string]any{"action": "list", "type": "tool", "filter_server": "c2"})
		var tools []struct{ Name string }
		if err := json.Unmarshal([]byte(proxyItems(t, all)[0].Resource.Text), &tools); err != nil {
			t.Fatal(err)
		}
		byName := tc.mustOK(map[string]any{"action": "list", "type": "tool", "filter_server": "sec"})
		none := tc.mustOK(map[string]any{"action": "list", "type": "tool", "filter_server": "zz"})
		page := tc.mustOK(map[string]any{"action": "list", "type": "tool", "filter_server": "c2", "limit": 2, "offset": 1})
		for _, tool := range tools {
			if tool.Name == "tool_0001" {
				goto found
			}
		}
		t.Errorf("filter_server c2 lost the second server's tools: %v", tools)
	found:
		if got := proxyItems(t, byName)[0].Annotations["totalCount"]; got != float64(len(tools)) {
			t.Errorf("filter_server by display name: totalCount %v, want %d", got, len(tools))
		}
		if got := proxyItems(t, none)[0].Resource.Text; got != "[]" {
			t.Errorf("filter_server matching nothing: %s", got)
		}
		pageItem := proxyItems(t, page)[0]
		var pageTools []struct{ Name string }
		if err := json.Unmarshal([]byte(pageItem.Resource.Text), &pageTools); err != nil {
			t.Fatal(err)
		}
		if len(pageTools) != 2 || pageTools[0].Name != tools[1].Name {
			t.Errorf("limit 2 offset 1 gave %v of %v", pageTools, tools)
		}
		wantAnnotations(t, "page", pageItem.Annotations, map[string]any{"totalCount": float64(len(tools)), "offset": float64(1), "limit": float64(2), "nextOffset": float64(3)})
	})

	t.Run("info", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "info", "type": "tool", "path": "tool_0001"})
		items := proxyItems(t, r)
		if len(items) != 1 || items[0].Resource.URI != "proxy:info/tool/tool_0001" {
			t.Fatalf("info answer %s", r.Content)
		}
		native := tc.mustOK(map[string]any{"action": "info", "tool": "tool_0001"})
		var want struct{ Tool json.RawMessage }
		decodeText(t, native, &want)
		var got, wantObj any
		if err := json.Unmarshal([]byte(items[0].Resource.Text), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want.Tool, &wantObj); err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(wantObj)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("info object differs from the published tool:\n got %s\nwant %s", gotJSON, wantJSON)
		}
		wantAnnotations(t, "info", items[0].Annotations, map[string]any{
			"proxyAction": "info", "proxyType": "tool", "proxyPath": "tool_0001", "pythonType": "Tool", "many": false,
		})
		wantAnnotations(t, "native info _meta", metaOf(t, native), map[string]any{"proxyAction": "info", "proxyType": "tool", "proxyPath": "tool_0001"})
	})

	t.Run("call", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "call", "type": "tool", "path": "c1/echo", "args": map[string]any{"message": "hello magg"}})
		items := proxyItems(t, r)
		if len(items) != 1 || items[0].Type != "text" || !strings.Contains(items[0].Text, "hello magg") {
			t.Fatalf("call answer %s", r.Content)
		}
		facts := map[string]any{"proxyAction": "call", "proxyType": "tool", "proxyPath": "c1/echo"}
		wantAnnotations(t, "call item", items[0].Annotations, facts)
		meta := metaOf(t, r)
		wantAnnotations(t, "call _meta", meta, facts)
		if _, ok := meta["dispatch"]; !ok {
			t.Errorf("dispatch's own _meta is gone: %v", meta)
		}
		// Every content kind keeps its fields and gets the annotations.
		mixed := tc.mustOK(map[string]any{"action": "call", "path": "c1/mixed"})
		for i, item := range proxyItems(t, mixed) {
			wantAnnotations(t, "mixed item "+item.Type, item.Annotations, map[string]any{"proxyAction": "call", "proxyPath": "c1/mixed"})
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(mixed.Content[i], &fields); err != nil || fields["type"] == nil {
				t.Errorf("item %d lost its fields: %s", i, mixed.Content[i])
			}
		}
	})

	t.Run("dispatch spelling keeps its compact form", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "list"})
		var list listResponse
		decodeText(t, r, &list)
		if len(list.Connections) != 2 {
			t.Fatalf("compact list: %s", r.text())
		}
		wantAnnotations(t, "compact list _meta", metaOf(t, r), map[string]any{"proxyAction": "list", "proxyType": "tool"})
		// format always asks for dispatch's own form.
		typed := tc.mustOK(map[string]any{"action": "list", "type": "tool", "format": "compact"})
		decodeText(t, typed, &list)
		call := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": "c1", "arguments": map[string]any{"message": "x"}})
		// The content stays as the server sent it; _meta says what it is.
		if items := proxyItems(t, call); len(items[0].Annotations) != 0 {
			t.Errorf("native call item annotated: %v", items[0].Annotations)
		}
		wantAnnotations(t, "native call _meta", metaOf(t, call), map[string]any{"proxyAction": "call", "proxyType": "tool", "proxyPath": "echo"})
	})

	t.Run("conflicting spellings", func(t *testing.T) {
		for _, tt := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"action": "call", "path": "c1/echo", "args": map[string]any{"message": "a"}, "arguments": map[string]any{"message": "b"}}, `both "arguments" and "args" given`},
			{map[string]any{"action": "info", "tool": "echo", "path": "add"}, `"path" "add" and "tool" "echo" differ`},
			{map[string]any{"action": "call", "tool": "c1/echo", "path": "/tmp/x"}, `"path" on call names the tool`},
			{map[string]any{"action": "list", "path": "echo"}, `"path" do not apply to action list`},
			{map[string]any{"action": "list", "type": "tools"}, `unknown type "tools"`},
		} {
			r := tc.mustCall(tt.args)
			if !r.IsError || !strings.Contains(r.text(), tt.want) {
				t.Errorf("%v: isError=%v %q, want an error containing %q", tt.args, r.IsError, r.text(), tt.want)
			}
		}
	})
}

// Resources and prompts answer a Magg client's list and info in the same
// shape, with the spec's pythonType for each.
func TestServe_ProxyExtensionResourcesAndPrompts(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"))

	r := tc.mustOK(map[string]any{"action": "list", "type": "resource"})
	item := proxyItems(t, r)[0]
	if item.Resource.URI != "proxy:list/resource" {
		t.Errorf("uri %q", item.Resource.URI)
	}
	var resources []struct {
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
		MimeType    string `json:"mimeType"`
	}
	if err := json.Unmarshal([]byte(item.Resource.Text), &resources); err != nil {
		t.Fatal(err)
	}
	var sawHello, sawTemplate bool
	for _, res := range resources {
		sawHello = sawHello || (res.URI == "fixture://text/hello" && res.MimeType == "text/plain")
		sawTemplate = sawTemplate || res.URITemplate == "fixture://items/{id}"
	}
	if !sawHello || !sawTemplate {
		t.Errorf("resources and templates as published: %s", item.Resource.Text)
	}
	wantAnnotations(t, "resource list", item.Annotations, map[string]any{
		"proxyAction": "list", "proxyType": "resource", "pythonType": "mcp.types.Resource | mcp.types.ResourceTemplate", "many": true,
	})

	for _, tt := range []struct {
		args        map[string]any
		uri, python string
		has         string
	}{
		{map[string]any{"action": "info", "type": "resource", "path": "fixture://text/hello"}, "proxy:info/resource/fixture://text/hello", "Resource", `"uri":"fixture://text/hello"`},
		{map[string]any{"action": "info", "type": "resource", "path": "fixture://items/{id}"}, "proxy:info/resource/fixture://items/{id}", "ResourceTemplate", `"uriTemplate":"fixture://items/{id}"`},
		{map[string]any{"action": "info", "type": "prompt", "path": "greet"}, "proxy:info/prompt/greet", "Prompt", `"name":"greet"`},
		// A URI the template expands to finds the template, as "uri" does.
		{map[string]any{"action": "info", "type": "resource", "path": "fixture://items/2"}, "proxy:info/resource/fixture://items/2", "ResourceTemplate", `"uriTemplate":"fixture://items/{id}"`},
	} {
		r := tc.mustOK(tt.args)
		item := proxyItems(t, r)[0]
		if item.Resource.URI != tt.uri || !strings.Contains(item.Resource.Text, tt.has) {
			t.Errorf("%v: uri %q text %s", tt.args, item.Resource.URI, item.Resource.Text)
		}
		wantAnnotations(t, "info", item.Annotations, map[string]any{"proxyAction": "info", "proxyType": tt.args["type"], "pythonType": tt.python, "many": false, "proxyPath": tt.args["path"]})
	}

	if r := tc.mustCall(map[string]any{"action": "info", "type": "prompt", "path": "gret"}); !r.IsError || !strings.Contains(r.text(), `no prompt "gret" on any connection. Did you mean "greet"`) {
		t.Errorf("info of a misspelt prompt: error %v, %s", r.IsError, r.text())
	}

	prompts := proxyItems(t, tc.mustOK(map[string]any{"action": "list", "type": "prompt"}))[0]
	if !strings.Contains(prompts.Resource.Text, `"name":"greet"`) || prompts.Annotations["pythonType"] != "Prompt" {
		t.Errorf("prompt list: %s %v", prompts.Resource.Text, prompts.Annotations)
	}
	// dispatch's own spelling of the same request keeps its own form.
	var compact struct {
		Resources []json.RawMessage
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "type": "resource", "format": "compact"}), &compact)
	if len(compact.Resources) == 0 {
		t.Errorf("compact resource list is empty")
	}
	// call: a resource's contents as embedded resources, a blob saved to
	// a file as its description, a prompt's result as one JSON resource.
	read := tc.mustOK(map[string]any{"action": "call", "type": "resource", "path": "fixture://text/hello"})
	readItems := proxyItems(t, read)
	if len(readItems) != 1 || readItems[0].Type != "resource" || readItems[0].Resource.URI != "fixture://text/hello" ||
		readItems[0].Resource.Text != "Hello from the fixture.\n" {
		t.Errorf("read answer %s", read.Content)
	} else {
		wantAnnotations(t, "read", readItems[0].Annotations, map[string]any{"proxyAction": "call", "proxyType": "resource", "proxyPath": "fixture://text/hello"})
	}
	blob := proxyItems(t, tc.mustOK(map[string]any{"action": "call", "type": "resource", "path": "fixture://blob/pixel.png"}))
	if len(blob) != 1 || blob[0].Type != "text" || !strings.Contains(blob[0].Text, `"resultFile"`) || strings.Contains(blob[0].Text, "iVBOR") {
		t.Errorf("blob answer %+v", blob)
	}
	prompt := tc.mustOK(map[string]any{"action": "call", "type": "prompt", "path": "greet", "args": map[string]any{"name": "Ada"}})
	promptItems := proxyItems(t, prompt)
	if len(promptItems) != 1 || promptItems[0].Resource.URI != "proxy:greet" || promptItems[0].Resource.MimeType != "application/json" {
		t.Fatalf("prompt answer %s", prompt.Content)
	}
	var got struct {
		Messages []struct {
			Role    string
			Content struct{ Text string }
		}
	}
	if err := json.Unmarshal([]byte(promptItems[0].Resource.Text), &got); err != nil || len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.Text, "Greet Ada") {
		t.Errorf("prompt result %s: %v", promptItems[0].Resource.Text, err)
	}
	wantAnnotations(t, "prompt", promptItems[0].Annotations, map[string]any{"proxyAction": "call", "proxyType": "prompt", "proxyPath": "greet", "pythonType": "GetPromptResult"})
	// dispatch's spelling of the same read keeps dispatch's answer.
	native := tc.mustOK(map[string]any{"action": "call", "type": "resource", "uri": "fixture://text/hello"})
	var nativeRead struct{ URI, Connection string }
	decodeText(t, native, &nativeRead)
	if nativeRead.URI != "fixture://text/hello" || nativeRead.Connection != "c1" {
		t.Errorf("native read %s", native.text())
	}
	wantAnnotations(t, "native read _meta", metaOf(t, native), map[string]any{"proxyAction": "call", "proxyType": "resource", "proxyPath": "fixture://text/hello"})

	unknown := tc.mustCall(map[string]any{"action": "info", "type": "prompt", "path": "nope"})
	if !unknown.IsError || !strings.Contains(unknown.text(), `no prompt "nope"`) {
		t.Errorf("unknown prompt: %s", unknown.text())
	}
}
