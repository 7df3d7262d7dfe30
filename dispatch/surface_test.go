package dispatch

import (
	"slices"
	"testing"
)

// A name keeps its own form when unique; on several connections each
// takes its connection's prefix; a prefixed name never takes one a server
// published; proxy-dispatch is reserved.
func TestUniqueNames(t *testing.T) {
	prefixes := map[string]string{"c1": "files", "c2": "web", "c3": "c3"}
	for _, tc := range []struct {
		name         string
		names, conns []string
		want         []string
	}{
		{"unique", []string{"a", "b"}, []string{"c1", "c2"}, []string{"a", "b"}},
		{"clash", []string{"read", "read", "x"}, []string{"c1", "c2", "c2"}, []string{"files__read", "web__read", "x"}},
		{"reserved", []string{ToolName}, []string{"c1"}, []string{"files__" + ToolName}},
		{"prefixed form published", []string{"read", "read", "files__read"}, []string{"c1", "c2", "c3"}, []string{"c1__read", "web__read", "files__read"}},
		{"same name twice on one connection", []string{"a", "a"}, []string{"c1", "c1"}, []string{"files__a", "c1__a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := uniqueNames(tc.names, tc.conns, prefixes, ClashSeparator, ToolName)
			if !slices.Equal(got, tc.want) {
				t.Errorf("uniqueNames(%v) = %v, want %v", tc.names, got, tc.want)
			}
		})
	}
}

func TestToolNameChars(t *testing.T) {
	if got := toolNameChars("my server/v2"); got != "my_server_v2" {
		t.Errorf("toolNameChars = %q", got)
	}
}

// A server's tool is listed upstream with its schemas as published and
// without its execution (dispatch runs a task-only tool itself); a
// definition mcp-go would panic on listing (a bad x-mcp-header) or cannot
// read is an error, so that the tool is left out instead.
func TestUpstreamTool(t *testing.T) {
	tool, err := upstreamTool("files__read", []byte(`{"name":"read","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string"}},"$defs":{"x":{}}},"outputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "files__read" || string(tool.RawInputSchema) != `{"type":"object","properties":{"p":{"type":"string"}},"$defs":{"x":{}}}` ||
		string(tool.RawOutputSchema) != `{"type":"object"}` || tool.Execution != nil {
		t.Errorf("upstreamTool = %+v", tool)
	}
	for name, def := range map[string]string{
		"bad header":     `{"name":"h","inputSchema":{"type":"object","properties":{"p":{"type":"object","x-mcp-header":"X-P"}}}}`,
		"not an object":  `["h"]`,
		"schema garbage": `{"name":"h","inputSchema":"nope"}`,
	} {
		if _, err := upstreamTool("h", []byte(def)); err == nil {
			t.Errorf("%s: upstreamTool accepted %s", name, def)
		}
	}
}
