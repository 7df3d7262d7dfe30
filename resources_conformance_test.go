package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestResource_ConformanceServerEverythingReachable reads every resource
// and template and gets every prompt mcp-go's conformance server offers,
// as a direct client finds them, through dispatch.
func TestResource_ConformanceServerEverythingReachable(t *testing.T) {
	url := startConformanceServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	direct, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := direct.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	resources, err := direct.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	templates, err := direct.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := direct.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) < 2 || len(templates.ResourceTemplates) < 1 || len(prompts.Prompts) < 4 {
		t.Fatalf("the conformance server offers %d resources, %d templates, %d prompts; the test expects at least 2, 1, 4",
			len(resources.Resources), len(templates.ResourceTemplates), len(prompts.Prompts))
	}

	tc := startDispatch(t, nil, "--no-cache", "--mcp", url)
	var blobs, images, embedded int
	for _, r := range resources.Resources {
		a := readResource(t, tc, map[string]any{"uri": r.URI})
		want, err := direct.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: r.URI}})
		if err != nil || len(a.Contents) != len(want.Contents) {
			t.Fatalf("%s: %d contents through dispatch, direct %v %v", r.URI, len(a.Contents), want, err)
		}
		switch c := want.Contents[0].(type) {
		case mcp.TextResourceContents:
			if !strings.Contains(string(a.Contents[0]), c.Text) {
				t.Errorf("%s = %s; want the text %q", r.URI, a.Contents[0], c.Text)
			}
		case mcp.BlobResourceContents:
			blobs++
			p := decodePart(t, a.Contents[0])
			data, err := os.ReadFile(p.ResultFile)
			raw, _ := base64.StdEncoding.DecodeString(c.Blob)
			if err != nil || !bytes.Equal(data, raw) || p.MimeType != c.MIMEType {
				t.Errorf("%s saved to %+v: %v", r.URI, p, err)
			}
		}
	}
	for _, tmpl := range templates.ResourceTemplates {
		raw := tmpl.URITemplate.Raw()
		args := map[string]any{}
		for _, name := range tmpl.URITemplate.Varnames() {
			args[name] = "7"
		}
		a := readResource(t, tc, map[string]any{"uri": raw, "arguments": args})
		if len(a.Contents) == 0 || !strings.Contains(string(a.Contents[0]), `7`) {
			t.Errorf("template %s = %+v", raw, a)
		}
	}
	for _, p := range prompts.Prompts {
		args := map[string]any{}
		for _, arg := range p.Arguments {
			if arg.Required {
				args[arg.Name] = "value-of-" + arg.Name
			}
		}
		var got promptAnswer
		decodeText(t, tc.mustOK(map[string]any{"action": "call", "type": "prompt", "prompt": p.Name, "arguments": args}), &got)
		if len(got.Messages) == 0 {
			t.Errorf("prompt %s: no messages", p.Name)
		}
		for _, m := range got.Messages {
			body := string(m.Content)
			switch {
			case strings.Contains(body, `"type":"image"`):
				images++
				if part := decodePart(t, m.Content); !strings.HasSuffix(part.ResultFile, ".png") || strings.Contains(body, "iVBOR") {
					t.Errorf("prompt %s image = %s", p.Name, body)
				}
			case strings.Contains(body, `"type":"resource"`):
				embedded++
				if !strings.Contains(body, "Embedded resource content for testing.") {
					t.Errorf("prompt %s embedded = %s", p.Name, body)
				}
			}
		}
		var all strings.Builder
		for _, m := range got.Messages {
			all.Write(m.Content)
		}
		for _, v := range args {
			if !strings.Contains(all.String(), v.(string)) {
				t.Errorf("prompt %s: messages do not hold the argument %q: %s", p.Name, v, all.String())
			}
		}
	}
	if blobs == 0 || images == 0 || embedded == 0 {
		t.Errorf("read %d blobs, %d prompt images, %d embedded resources; want each at least once", blobs, images, embedded)
	}
}
