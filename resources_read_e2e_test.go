package main

import (
	"bytes"
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// resourceAnswer is dispatch's answer to call type=resource.
type resourceAnswer struct {
	Connection string            `json:"connection"`
	URI        string            `json:"uri"`
	Contents   []json.RawMessage `json:"contents"`
	Hint       string            `json:"hint"`
}

// savedPart is a content dispatch saved to a file.
type savedPart struct {
	Type, URI, MimeType, ResultFile, Format, Preview string
	Bytes                                            int64
	TopLevelKeys                                     []string
}

func decodePart(t *testing.T, raw json.RawMessage) savedPart {
	t.Helper()
	var p savedPart
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return p
}

func readResource(t *testing.T, tc *testClient, args map[string]any) resourceAnswer {
	t.Helper()
	req := map[string]any{"action": "call", "type": "resource"}
	for k, v := range args {
		req[k] = v
	}
	var a resourceAnswer
	decodeText(t, tc.mustOK(req), &a)
	return a
}

func TestResource_ReadEveryKind(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"))

	hello := readResource(t, tc, map[string]any{"uri": "fixture://read/hello.txt"})
	var text struct{ URI, MimeType, Text string }
	if len(hello.Contents) != 1 || json.Unmarshal(hello.Contents[0], &text) != nil ||
		text.Text != "Hello from the fixture.\nSecond line.\n" || text.MimeType != "text/plain" || text.URI != "fixture://read/hello.txt" || hello.Connection != "c1" {
		t.Errorf("hello = %+v", hello)
	}

	// A template, expanded by dispatch, and the expanded URI itself.
	for _, args := range []map[string]any{
		{"uri": "fixture://read/items/{id}", "arguments": map[string]any{"id": "42"}},
		{"uri": "fixture://read/items/{id}", "arguments": map[string]any{"id": 42}},
		{"uri": "fixture://read/items/42"},
	} {
		a := readResource(t, tc, args)
		if a.URI != "fixture://read/items/42" || len(a.Contents) != 1 || !strings.Contains(string(a.Contents[0]), `"text":"item 42"`) {
			t.Errorf("read %v = %+v", args, a)
		}
	}

	// A blob is saved decoded, named by its MIME type, never inline.
	pixel := readResource(t, tc, map[string]any{"uri": "fixture://read/pixel.png"})
	p := decodePart(t, pixel.Contents[0])
	if strings.Contains(string(pixel.Contents[0]), "iVBOR") || p.Format != "binary" || !strings.HasSuffix(p.ResultFile, ".png") || p.MimeType != "image/png" || p.URI != "fixture://read/pixel.png" || pixel.Hint == "" {
		t.Errorf("pixel = %s (hint %q)", pixel.Contents[0], pixel.Hint)
	}
	if data, err := os.ReadFile(p.ResultFile); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || int64(len(data)) != p.Bytes {
		t.Errorf("pixel file: %v, %q", err, data)
	}

	// Several contents keep their order: the text inline, the blob saved.
	pair := readResource(t, tc, map[string]any{"uri": "fixture://read/pair"})
	if len(pair.Contents) != 2 || !strings.Contains(string(pair.Contents[0]), `"text":"# Pair\n"`) {
		t.Fatalf("pair = %+v", pair)
	}
	if b := decodePart(t, pair.Contents[1]); !strings.HasSuffix(b.ResultFile, ".bin") || b.Bytes != 5 {
		t.Errorf("pair blob = %+v", b)
	} else if data, err := os.ReadFile(b.ResultFile); err != nil || !bytes.Equal(data, []byte{0, 1, 2, 3, 255}) {
		t.Errorf("pair blob file = %v, %v", data, err)
	}

	// A JSON text resource saved to a file is JSON: query and
	// argumentsFile work on it.
	data := readResource(t, tc, map[string]any{"uri": "fixture://read/data.json", "resultToFile": true})
	d := decodePart(t, data.Contents[0])
	if d.Format != "json" || !strings.HasSuffix(d.ResultFile, ".json") || strings.Join(d.TopLevelKeys, ",") != "items,total" {
		t.Fatalf("data.json saved = %+v", d)
	}
	if r := tc.mustOK(map[string]any{"action": "readresult", "resultFile": d.ResultFile, "op": "query", "path": "items.1.name"}); !strings.Contains(r.text(), "two") {
		t.Errorf("query on the saved resource = %q", r.text())
	}
	echoed := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": d.ResultFile, "argumentsPath": "items.0.name", "argumentsKey": "message"})
	if echoed.text() != "one" {
		t.Errorf("echo fed from the saved resource = %q", echoed.text())
	}

	// Above the threshold, a text goes to a file.
	small := readResource(t, tc, map[string]any{"uri": "fixture://read/hello.txt", "resultSizeThreshold": 10})
	if s := decodePart(t, small.Contents[0]); s.Format != "text" || !strings.HasPrefix(s.Preview, "Hello from the fixture.") {
		t.Errorf("hello above the threshold = %s", small.Contents[0])
	}
}

func TestResource_LinkReturnedByToolIsReadNext(t *testing.T) {
	// Two servers with the same resources: only the one whose tool
	// returned the link has the hidden note.
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"), "--mcp", fixture("--readables", "--name", "second"))
	const hidden = "fixture://read/hidden/note"
	before := tc.mustCall(map[string]any{"action": "call", "type": "resource", "uri": hidden})
	if !before.IsError || !strings.Contains(before.text(), `no resource with uri "fixture://read/hidden/note"`) || !strings.Contains(before.text(), `pass "connection"`) {
		t.Fatalf("hidden before any link = %s", before.text())
	}
	links := tc.mustOK(map[string]any{"action": "call", "tool": "links", "connection": "c2"})
	if !strings.Contains(string(links.Content[1]), hidden) {
		t.Fatalf("links = %v", links.Content)
	}
	a := readResource(t, tc, map[string]any{"uri": hidden})
	if a.Connection != "c2" || !strings.Contains(string(a.Contents[0]), "You found the hidden note.") {
		t.Errorf("hidden after the link = %+v", a)
	}
}

func TestResource_ErrorsSayWhatToDo(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"), "--mcp", fixture("--readables", "--name", "second"), "--mcp", fixture())
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"unknown URI", map[string]any{"uri": "fixture://nothing/here"},
			[]string{`no resource with uri "fixture://nothing/here"`, `read from the connection that returned it: pass "connection"`}},
		{"ambiguous URI", map[string]any{"uri": "fixture://read/hello.txt"},
			[]string{"is offered by 2 connections", "c1", "c2", `Add "connection":"c1"`}},
		{"server without resources", map[string]any{"uri": "fixture://read/hello.txt", "connection": "c3"},
			[]string{"c3 offers no resources", `{"action":"list","type":"resource"}`}},
		{"template missing a variable", map[string]any{"uri": "fixture://read/items/{id}"},
			[]string{`needs "id"`, `missing "id"`, `"arguments":{"id":"..."}`}},
		{"template given an unknown variable", map[string]any{"uri": "fixture://read/items/{id}", "arguments": map[string]any{"id": "1", "idd": "2"}},
			[]string{`no variable "idd"`, `its variables are "id"`}},
		{"template variable not a string", map[string]any{"uri": "fixture://read/items/{id}", "arguments": map[string]any{"id": []int{1}}},
			[]string{`template variable "id" must be a string`}},
		{"arguments for a plain URI", map[string]any{"uri": "fixture://read/hello.txt", "connection": "c1", "arguments": map[string]any{"id": "1"}},
			[]string{"has none"}},
		{"no uri", map[string]any{}, []string{`needs a "uri"`}},
		{"tool with a uri", map[string]any{"type": "tool", "tool": "echo", "uri": "x://y"}, []string{`takes no "uri"`}},
		{"unknown type", map[string]any{"type": "file", "uri": "x://y"}, []string{`unknown type "file"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := map[string]any{"action": "call", "type": "resource"}
			for k, v := range c.args {
				req[k] = v
			}
			r := tc.mustCall(req)
			if !r.IsError {
				t.Fatalf("%v answered %s; want an error", req, r.text())
			}
			checkText(t, c.name, r.text(), c.want, nil)
		})
	}
	// The ambiguity is lifted by "connection".
	if a := readResource(t, tc, map[string]any{"uri": "fixture://read/hello.txt", "connection": "c2"}); a.Connection != "c2" {
		t.Errorf("with connection c2: %+v", a)
	}
}

// promptAnswer is dispatch's answer to call type=prompt.
type promptAnswer struct {
	Connection, Prompt, Description, Hint string
	Messages                              []struct {
		Role    string
		Content json.RawMessage
	}
}

func TestPrompt_GetKeepsEveryPart(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"), "--mcp", fixture())
	var p promptAnswer
	decodeText(t, tc.mustOK(map[string]any{"action": "call", "type": "prompt", "prompt": "greet", "arguments": map[string]any{"name": "Ada", "style": "formal"}}), &p)
	if p.Connection != "c1" || p.Description != "A greeting" || len(p.Messages) != 3 {
		t.Fatalf("greet = %+v", p)
	}
	if m := p.Messages[0]; m.Role != "user" || !strings.Contains(string(m.Content), "Please greet Ada in a formal way.") {
		t.Errorf("message 1 = %+v", m)
	}
	if m := p.Messages[1]; m.Role != "assistant" || !strings.Contains(string(m.Content), `"type":"resource"`) || !strings.Contains(string(m.Content), "Hello, Ada.") {
		t.Errorf("message 2 (embedded resource) = %s", m.Content)
	}
	img := decodePart(t, p.Messages[2].Content)
	if img.Type != "image" || img.MimeType != "image/png" || !strings.HasSuffix(img.ResultFile, ".png") || strings.Contains(string(p.Messages[2].Content), "iVBOR") {
		t.Errorf("message 3 (image) = %s", p.Messages[2].Content)
	}
	if data, err := os.ReadFile(img.ResultFile); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("image file: %v", err)
	}

	// With resultToFile the messages go to a JSON file readresult reads.
	var spilled struct {
		Spill struct{ ResultFile, Format, Saved string }
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "call", "type": "prompt", "prompt": "greet", "arguments": map[string]any{"name": "Bo"}, "resultToFile": true}), &spilled)
	if spilled.Spill.Format != "json" || spilled.Spill.Saved != "messages" {
		t.Fatalf("greet resultToFile = %+v", spilled)
	}
	if r := tc.mustOK(map[string]any{"action": "readresult", "resultFile": spilled.Spill.ResultFile, "op": "query", "path": "1.role"}); !strings.Contains(r.text(), "assistant") {
		t.Errorf("query 1.role on the saved messages = %q", r.text())
	}

	for _, c := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"missing required argument", map[string]any{"prompt": "greet", "arguments": map[string]any{"style": "casual"}},
			[]string{`prompt "greet" needs argument "name"`, `its arguments: "name" (required), "style"`}},
		{"argument not a string", map[string]any{"prompt": "greet", "arguments": map[string]any{"name": 7}},
			[]string{`prompt argument "name" must be a string`}},
		{"unknown prompt", map[string]any{"prompt": "nope"},
			[]string{`no prompt with name "nope"`}},
		{"server without prompts", map[string]any{"prompt": "greet", "connection": "c2"},
			[]string{"c2 offers no prompts"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := map[string]any{"action": "call", "type": "prompt"}
			for k, v := range c.args {
				req[k] = v
			}
			r := tc.mustCall(req)
			if !r.IsError {
				t.Fatalf("%v answered %s; want an error", req, r.text())
			}
			checkText(t, c.name, r.text(), c.want, nil)
		})
	}
}

func TestResource_ProgressAndCancellationReachTheServer(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables", "--cancel-log", cancelLog))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tc.call(ctx, map[string]any{"action": "call", "type": "resource", "uri": "fixture://read/slow"}, map[string]any{"progressToken": "p1"})
		done <- err
	}()
	testkit.WaitFor(t, "progress of the slow read", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		for _, n := range tc.notifications {
			if n.Method == "notifications/progress" && n.Params.AdditionalFields["message"] == "reading slowly" && n.Params.AdditionalFields["progressToken"] == "p1" {
				return true
			}
		}
		return false
	})
	// The agent gives up: dispatch must cancel the downstream read.
	if err := tc.client.GetTransport().SendNotification(context.Background(), mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/cancelled", Params: mcp.NotificationParams{
			AdditionalFields: map[string]any{"requestId": "t1", "reason": "test gave up"}}},
	}); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	testkit.WaitFor(t, "the server to see the read cancelled", 30*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Count(string(data), "cancelled resource fixture://read/slow") == 1
	})

	// A read with a time limit of its own is cancelled downstream too,
	// and the error says how to allow more time.
	r := tc.mustCall(map[string]any{"action": "call", "type": "resource", "uri": "fixture://read/slow", "timeout": 0.3})
	if !r.IsError || !strings.Contains(r.text(), "timed out") || !strings.Contains(r.text(), `"timeout"`) {
		t.Errorf("slow read with a timeout = %s", r.text())
	}
	testkit.WaitFor(t, "the server to see the timed-out read cancelled", 30*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Count(string(data), "cancelled resource fixture://read/slow") == 2
	})
}

func TestResourceCLI_ReadPromptAndExitCodes(t *testing.T) {
	spec := fixture("--readables")
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "", "--no-cache", "-m", spec, "read", "fixture://read/hello.txt")
	if code != 0 || out != "Hello from the fixture.\nSecond line.\n" {
		t.Errorf("read hello = %d %q %q", code, out, errOut)
	}
	out, _, code = runCLI(t, "", "--no-cache", "-m", spec, "read", "fixture://read/items/{id}", "id=7")
	if code != 0 || out != "item 7\n" {
		t.Errorf("read template = %d %q", code, out)
	}
	out, _, code = runCLI(t, "", "--no-cache", "-m", spec, "call", "--type", "resource", "fixture://read/items/8")
	if code != 0 || out != "item 8\n" {
		t.Errorf("call --type resource = %d %q", code, out)
	}
	out, _, code = runCLI(t, "", "--no-cache", "-m", spec, "--json", "read", "fixture://read/hello.txt")
	var a resourceAnswer
	if code != 0 || json.Unmarshal([]byte(out), &a) != nil || a.URI != "fixture://read/hello.txt" {
		t.Errorf("read --json = %d %q", code, out)
	}
	png := filepath.Join(dir, "p.png")
	out, _, code = runCLI(t, "", "--no-cache", "-m", spec, "read", "fixture://read/pixel.png", "-o", png)
	if data, err := os.ReadFile(png); code != 0 || err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || !strings.Contains(out, png) {
		t.Errorf("read -o = %d %q, file: %v", code, out, err)
	}
	out, _, code = runCLI(t, "", "--no-cache", "-m", spec, "--spill-dir", dir, "prompt", "greet", "name=Ada")
	if code != 0 || !strings.Contains(out, "[user]\nPlease greet Ada") || !strings.Contains(out, "[assistant]\nHello, Ada.") || !strings.Contains(out, ".png") {
		t.Errorf("prompt = %d %q", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"read", "fixture://nothing"}, 2, `no resource with uri "fixture://nothing"`},
		{[]string{"read", "fixture://read/items/{id}"}, 2, "dispatch read 'fixture://read/items/{id}' id=VALUE"},
		{[]string{"read", "fixture://read/pixel.png"}, 2, "Pass -o FILE"},
		// The --help that has examples is the command's own, said once.
		{[]string{"prompt", "greet"}, 2, `needs argument "name"; its arguments: "name" (required), "style". See 'dispatch prompt --help' for examples` + "\n"},
		{[]string{"read", ""}, 2, `with the arguments). See 'dispatch read --help' for examples` + "\n"},
		{[]string{"prompt", "greet", "name"}, 2, "must be NAME=VALUE"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"--no-cache", "-m", spec}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v = exit %d, %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

func TestResource_HostileServer(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"))
	// A content of a kind MCP does not define passes through as sent and
	// does not break the read.
	odd := readResource(t, tc, map[string]any{"uri": "fixture://read/hostile/odd"})
	if len(odd.Contents) != 2 || !strings.Contains(string(odd.Contents[0]), `"video":{"frames":3}`) || !strings.Contains(string(odd.Contents[1]), "beside the odd one") {
		t.Errorf("odd = %+v", odd)
	}
	// A MIME type shaped like a path names no path.
	p := decodePart(t, readResource(t, tc, map[string]any{"uri": "fixture://read/hostile/path-mime"}).Contents[0])
	if !strings.HasSuffix(p.ResultFile, ".bin") || strings.Contains(p.ResultFile, "evil") {
		t.Errorf("path-shaped MIME type saved to %s", p.ResultFile)
	}
	for uri, want := range map[string]string{
		"fixture://read/hostile/bad-blob":   "decode base64",
		"fixture://read/hostile/many-blobs": "more than 256 parts to save to files (MaxSavedParts)",
	} {
		if r := tc.mustCall(map[string]any{"action": "call", "type": "resource", "uri": uri}); !r.IsError || !strings.Contains(r.text(), want) {
			t.Errorf("%s = %s; want an error with %q", uri, r.text(), want)
		}
	}
	// A failed answer leaves none of its files behind.
	dir := t.TempDir()
	if _, errOut, code := runCLI(t, "", "--no-cache", "-m", fixture("--readables"), "--spill-dir", dir, "read", "fixture://read/hostile/many-blobs"); code == 0 || !strings.Contains(errOut, "MaxSavedParts") {
		t.Errorf("many-blobs from the CLI = exit %d, %q", code, errOut)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the spill directory holds %d files after a failed read (%v)", len(entries), err)
	}
}

// A resource_link names its connection only for a URI no other connection
// offers: a server that hands out a link to a URI another server lists (or
// serves by a template) does not take its reads.
func TestResource_LinkDoesNotTakeAnotherConnectionsURI(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"), "--mcp", fixture("--readables", "--name", "second"))
	tc.mustOK(map[string]any{"action": "call", "tool": "links", "connection": "c2"})
	// hello.txt is listed by c1 and c2: still ambiguous after c2's link.
	r := tc.mustCall(map[string]any{"action": "call", "type": "resource", "uri": "fixture://read/hello.txt"})
	if !r.IsError {
		t.Fatalf("hello.txt, listed by both, after c2 linked it = %s; want the ambiguity", r.text())
	}
	checkText(t, "hello.txt after the link", r.text(), []string{"is offered by 2 connections", `Add "connection"`}, nil)
	// The hidden note nobody lists is still read from the one that linked it.
	if a := readResource(t, tc, map[string]any{"uri": "fixture://read/hidden/note"}); a.Connection != "c2" {
		t.Errorf("hidden note after c2's link = %+v", a)
	}
}

// The README: "uri names a resource (and implies type: resource), prompt a
// prompt (and implies type: prompt)". An agent that leaves type out gets
// the read or the prompt, not an error asking for a tool.
func TestResource_URIOrPromptAloneSaysTheType(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"))
	var meta struct{ ProxyType, ProxyPath string }

	read := tc.mustOK(map[string]any{"action": "call", "uri": "fixture://read/hello.txt"})
	var a resourceAnswer
	decodeText(t, read, &a)
	if a.URI != "fixture://read/hello.txt" || len(a.Contents) != 1 || !strings.Contains(string(a.Contents[0]), "Hello from the fixture.") {
		t.Errorf("call with uri alone = %s", read.text())
	}
	if json.Unmarshal(read.Meta, &meta) != nil || meta.ProxyType != "resource" || meta.ProxyPath != "fixture://read/hello.txt" {
		t.Errorf("call with uri alone: _meta = %s, want proxyType resource", read.Meta)
	}

	tmpl := tc.mustOK(map[string]any{"action": "call", "uri": "fixture://read/items/{id}", "arguments": map[string]any{"id": "7"}})
	checkText(t, "template with uri alone", tmpl.text(), []string{`"text":"item 7"`}, nil)

	info := tc.mustOK(map[string]any{"action": "info", "uri": "fixture://read/items/{id}"})
	checkText(t, "info with uri alone", info.text(), []string{`"uriTemplate":"fixture://read/items/{id}"`}, nil)

	got := tc.mustOK(map[string]any{"action": "call", "prompt": "greet", "arguments": map[string]any{"name": "Ada"}})
	checkText(t, "call with prompt alone", got.text(), []string{"Please greet Ada"}, nil)
	if json.Unmarshal(got.Meta, &meta) != nil || meta.ProxyType != "prompt" {
		t.Errorf("call with prompt alone: _meta = %s, want proxyType prompt", got.Meta)
	}
	pinfo := tc.mustOK(map[string]any{"action": "info", "prompt": "greet"})
	checkText(t, "info with prompt alone", pinfo.text(), []string{`"name":"greet"`}, nil)

	// A run step is a request like any other.
	run := tc.mustOK(map[string]any{"action": "run", "steps": []any{map[string]any{"action": "call", "uri": "fixture://read/hello.txt"}}})
	checkText(t, "run step with uri alone", run.text(), []string{"Hello from the fixture.", `"succeeded":1`}, nil)

	// What stays an error: a name of another type than the one given, and
	// two names at once.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "call", "type": "tool", "uri": "fixture://read/hello.txt"}, `call needs a "tool"`},
		{map[string]any{"action": "info", "type": "tool", "prompt": "greet"}, `info of type "tool" needs "tool", not "prompt"`},
		{map[string]any{"action": "call", "uri": "fixture://read/hello.txt", "prompt": "greet"}, `call needs a "tool"`},
		{map[string]any{"action": "call", "tool": "echo", "uri": "fixture://read/hello.txt"}, `a tool call takes no "uri" or "prompt"`},
	} {
		r := tc.mustCall(c.args)
		if !r.IsError {
			t.Errorf("%v answered %s; want an error", c.args, r.text())
			continue
		}
		checkText(t, fmt.Sprint(c.args), r.text(), []string{c.want}, nil)
	}
}

// In a run, "$ID.resultFile" of a read that saved its one content is that
// file, as for a saved tool result; of a prompt saved to a file, its file.
// It used to say the result "came inline" and to give resultToFile, which
// the step had.
func TestRun_ResultFileOfSavedReadsAndPrompts(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--readables"))
	r := tc.mustOK(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "doc", "action": "call", "type": "resource", "uri": "fixture://read/data.json", "resultToFile": true},
		map[string]any{"action": "readresult", "resultFile": "$doc.resultFile", "op": "query", "path": "items.1.name"},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$doc.value.items.0.name"}},
		map[string]any{"id": "px", "action": "call", "type": "resource", "uri": "fixture://read/pixel.png"},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$px.value.contents.0.mimeType"}},
		map[string]any{"id": "p", "action": "call", "type": "prompt", "prompt": "greet", "arguments": map[string]any{"name": "Ada"}, "resultToFile": true},
		map[string]any{"action": "readresult", "resultFile": "$p.resultFile", "op": "query", "path": "0.role"},
	}})
	var answer struct {
		Steps []struct {
			Step     int
			Response json.RawMessage
			Error    string
		}
	}
	decodeText(t, r, &answer)
	want := map[int]string{2: `"value":"two"`, 3: `"text":"one"`, 5: `"text":"image/png"`, 7: `"value":"user"`}
	for _, s := range answer.Steps {
		if s.Error != "" {
			t.Errorf("step %d failed: %s", s.Step, s.Error)
		} else if w, ok := want[s.Step]; ok && !strings.Contains(string(s.Response), w) {
			t.Errorf("step %d = %s, want %s", s.Step, s.Response, w)
		}
	}
	if r := tc.mustOK(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "px", "action": "call", "type": "resource", "uri": "fixture://read/pixel.png"},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$px.resultFile"}},
	}}); !strings.Contains(r.text(), `"text":"`) || !strings.Contains(r.text(), `.png"`) {
		t.Errorf("resultFile of a saved blob: %s", r.text())
	}

	// Several saved contents: the error says which reference to use.
	fail := tc.mustCall(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "pair", "action": "call", "type": "resource", "uri": "fixture://read/pair", "resultToFile": true},
		map[string]any{"action": "readresult", "resultFile": "$pair.resultFile"},
	}})
	checkText(t, "resultFile of a read of two saved contents", fail.text(),
		[]string{`step pair has no one result file: it saved 2 of its 2 contents`, `$pair.value.contents.0.resultFile`}, []string{"came inline"})
}

// A template's values are sent as the pct-encoded UTF-8 bytes RFC 6570
// asks for, so the server reads the resource named: é was %E9 (and Ā
// %01, NUL nothing), which the server decoded to another path.
func TestResource_TemplateValuesAreSentAsUTF8(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--resources"))
	for _, c := range []struct{ path, uri, text string }{
		{"ü", "fixture://files/%C3%BC", "contents of ü\n"},
		{"docs/日本/😀 Ā.md", "fixture://files/docs/%E6%97%A5%E6%9C%AC/%F0%9F%98%80%20%C4%80.md", "contents of docs/日本/😀 Ā.md\n"},
		{"a\x00b", "fixture://files/a%00b", "contents of a\x00b\n"},
		// Reserved expansion passes a pct-encoded triplet through.
		{"a%20b/50%", "fixture://files/a%20b/50%25", "contents of a b/50%\n"},
	} {
		a := readResource(t, tc, map[string]any{"uri": "fixture://files/{+path}", "arguments": map[string]any{"path": c.path}})
		var text struct{ URI, Text string }
		if a.URI != c.uri || len(a.Contents) != 1 || json.Unmarshal(a.Contents[0], &text) != nil || text.Text != c.text {
			t.Errorf("read files/{+path} with %q = uri %q, contents %s; want uri %q and text %q", c.path, a.URI, a.Contents, c.uri, c.text)
		}
	}
	a := readResource(t, tc, map[string]any{"uri": "fixture://items/{id}", "arguments": map[string]any{"id": "é/1"}})
	if a.URI != "fixture://items/%C3%A9%2F1" || len(a.Contents) != 1 || !strings.Contains(string(a.Contents[0]), `{\"id\":\"é/1\"}`) {
		t.Errorf("read items/{id} with é/1 = uri %q, contents %s", a.URI, a.Contents)
	}

	out, errOut, code := runCLI(t, "", "--no-cache", "-m", fixture("--resources"), "read", "fixture://files/{+path}", "path=é")
	if code != 0 || out != "contents of é\n" {
		t.Errorf("dispatch read files/{+path} path=é = %d %q %q", code, out, errOut)
	}
}

// list --type resource|prompt at a shell says what the JSON answer's hint
// says: that no server offers any, that the offset is past the end, and
// how many of how many it shows.
func TestResourceCLI_ListSaysWhyItIsEmptyAndWhatItShows(t *testing.T) {
	plain := fixture()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", plain, "list", "--type", "resource"}, "No connection offers resources. dispatch list shows the connections"},
		{[]string{"-m", plain, "list", "--type", "prompt"}, "No connection offers prompts"},
		{[]string{"-m", fixture("--resources"), "list", "--type", "resource", "--limit", "2", "--offset", "1"}, "2 of 7 shown, from --offset 1; more with --offset 3\n"},
		{[]string{"-m", fixture("--resources"), "list", "--type", "resource", "--offset", "50"}, "The --offset is past the end: there are 7 resources; page from --offset 0"},
	} {
		out, errOut, code := runCLI(t, "", append([]string{"--no-cache"}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v = exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}
