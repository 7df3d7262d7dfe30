package connections

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestToolFilter_Check(t *testing.T) {
	filter := ToolFilter{Allow: []string{"read_*", "list_?", "stat"}, Deny: []string{"read_secret*"}, Entry: "servers.fs.tools", File: "servers.toml"}
	tests := []struct {
		tool    string
		allowed bool
		byDeny  bool
	}{
		{tool: "read_file", allowed: true},
		{tool: "list_a", allowed: true},
		{tool: "list_ab"},
		{tool: "stat", allowed: true},
		{tool: "stats"},
		{tool: "read_secret_key", byDeny: true}, // deny wins over allow
		{tool: "write_file"},
		{tool: ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			denied := filter.Check(tt.tool)
			if tt.allowed {
				if denied != nil {
					t.Fatalf("Check(%q) = %v, want allowed", tt.tool, denied)
				}
				return
			}
			if denied == nil {
				t.Fatalf("Check(%q) allowed it", tt.tool)
			}
			if denied.ByDeny != tt.byDeny {
				t.Errorf("Check(%q).ByDeny = %v, want %v", tt.tool, denied.ByDeny, tt.byDeny)
			}
		})
	}
	if (ToolFilter{}).Check("anything") != nil {
		t.Error("the zero filter refused a tool")
	}
	if (ToolFilter{Deny: []string{"x"}}).Check("y") != nil {
		t.Error("a deny-only filter refused a tool it does not name")
	}
}

func TestToolDeniedError_NamesTheConfigEntry(t *testing.T) {
	deny := ToolFilter{Deny: []string{"delete_*"}, Entry: "servers.fs.tools", File: "servers.toml"}.Check("delete_file")
	deny.Alias = "c1"
	if got, want := deny.Error(), `c1: tool "delete_file" is denied by servers.fs.tools.deny ("delete_*") in servers.toml`; !strings.HasPrefix(got, want) {
		t.Errorf("deny message = %q, want it to start with %q", got, want)
	}
	allow := ToolFilter{Allow: []string{"read_*", "list_*"}, Entry: `mcpServers."my fs".tools`, File: "mcp.json"}.Check("write_file")
	if got, want := allow.Error(), `tool "write_file" is not allowed by mcpServers."my fs".tools.allow (["read_*", "list_*"]) in mcp.json`; !strings.HasPrefix(got, want) {
		t.Errorf("allow message = %q, want it to start with %q", got, want)
	}
	for _, err := range []error{deny, allow} {
		if strings.Contains(err.Error(), "not found") {
			t.Errorf("a refusal reads as not found: %v", err)
		}
	}
}

func TestToolFilter_Apply(t *testing.T) {
	var tools []json.RawMessage
	for _, name := range []string{"read_file", "write_file", "delete_file"} {
		tools = append(tools, json.RawMessage(`{"name":"`+name+`","inputSchema":{"type":"object"}}`))
	}
	tools = append(tools, json.RawMessage(`{"nameless":true}`))
	got := ToolFilter{Deny: []string{"delete_*", "write_*"}}.apply(tools)
	if len(got) != 2 || toolName(got[0]) != "read_file" || toolName(got[1]) != "" {
		t.Errorf("deny filter kept %s", got)
	}
	got = ToolFilter{Allow: []string{"*_file"}, Deny: []string{"delete_*"}}.apply(tools)
	if len(got) != 2 || toolName(got[0]) != "read_file" || toolName(got[1]) != "write_file" {
		t.Errorf("allow+deny filter kept %s", got)
	}
	if got := (ToolFilter{}).apply(tools); &got[0] != &tools[0] {
		t.Error("the zero filter copied the catalog: every list would reparse it")
	}
}

func TestLoadFile_ToolFilters(t *testing.T) {
	toml := `[servers.fs]
command = "fs-mcp"

[servers.fs.tools]
allow = ["read_*", "list_*"]
deny = ["read_secret*"]

[servers.gh]
command = "gh-mcp"
tools.deny = ["delete_*"]
`
	configs, err := LoadFile(writeConfig(t, "servers.toml", toml), envLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolFilter{
		{Allow: []string{"read_*", "list_*"}, Deny: []string{"read_secret*"}, Entry: "servers.fs.tools", File: "servers.toml"},
		{Deny: []string{"delete_*"}, Entry: "servers.gh.tools", File: "servers.toml"},
	}
	for i, c := range configs {
		if got := c.Tools; !got.samePatterns(want[i]) || got.Entry != want[i].Entry || got.File != want[i].File {
			t.Errorf("server %s: filter %+v, want %+v", c.Name, got, want[i])
		}
	}
	if configs[0].ID() != (ServerConfig{Transport: TransportStdio, Command: "fs-mcp"}).ID() {
		t.Error("the tool filter changed the connection ID: it must name the server only")
	}

	jsonConfig := `{"mcpServers": {
  "fs": {"command": "fs-mcp", "tools": {"allow": ["read_*"], "deny": ["read_secret*"]}},
  "plain": {"command": "x"}
}}`
	configs, err = LoadFile(writeConfig(t, "mcp.json", jsonConfig), envLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := configs[0].Tools; got.Entry != "mcpServers.fs.tools" || got.File != "mcp.json" || !got.samePatterns(ToolFilter{Allow: []string{"read_*"}, Deny: []string{"read_secret*"}}) {
		t.Errorf("JSON filter = %+v", got)
	}
	if !configs[1].Tools.IsZero() || configs[1].Tools.File != "" {
		t.Errorf("a server without tools has filter %+v", configs[1].Tools)
	}
}

func TestLoadFile_BadToolPattern(t *testing.T) {
	tests := []struct {
		name, file, content string
		want                []string
	}{
		{
			name: "TOML malformed class", file: "servers.toml",
			content: "[servers.fs]\ncommand = \"fs\"\n\n[servers.fs.tools]\ndeny = [\"ok_*\", \"[a-\"]\n",
			want:    []string{`config servers.toml: server "fs": tools.deny pattern "[a-" at line 5, column 17: syntax error in pattern`, "path.Match syntax"},
		},
		{
			name: "JSON trailing backslash", file: "mcp.json",
			content: "{\"mcpServers\": {\n  \"fs\": {\"command\": \"fs\",\n    \"tools\": {\"allow\": [\"read\\\\\"]}}}}\n",
			want:    []string{`config mcp.json: server "fs": tools.allow pattern "read\\" at line 3, column 25: syntax error in pattern`},
		},
		{
			name: "empty pattern", file: "servers.toml",
			content: "[servers.fs]\ncommand = \"fs\"\ntools = { allow = [\"\"] }\n",
			want:    []string{`tools.allow pattern ""`, "empty pattern"},
		},
		{
			name: "unknown key in tools", file: "servers.toml",
			content: "[servers.fs]\ncommand = \"fs\"\n[servers.fs.tools]\nalow = [\"x\"]\n",
			want:    []string{`unknown key "servers.fs.tools.alow" (a tools table takes allow and deny)`},
		},
		{
			name: "tools not an object", file: "mcp.json",
			content: `{"mcpServers": {"fs": {"command": "fs", "tools": ["read_*"]}}}`,
			want:    []string{`server "fs": key "tools": want an object such as {"allow": ["read_*"], "deny": ["delete_*"]}, not a array`},
		},
		{
			name: "pattern not a string", file: "mcp.json",
			content: `{"mcpServers": {"fs": {"command": "fs", "tools": {"deny": [1]}}}}`,
			want:    []string{`server "fs"`, "deny"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFile(writeConfig(t, tt.file, tt.content), envLookup(nil))
			if err == nil {
				t.Fatal("LoadFile accepted a bad pattern")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestNewSet_DuplicateServersWithOtherFilters(t *testing.T) {
	a := stdio("a", "srv")
	a.Tools = ToolFilter{Deny: []string{"x"}, Entry: "servers.a.tools"}
	b := stdio("b", "srv")
	b.Tools = ToolFilter{Deny: []string{"y"}, Entry: "servers.b.tools"}
	_, err := NewSet([]ServerConfig{a, b}, Options{})
	if err == nil || !strings.Contains(err.Error(), `server "b" is the same server as "a" but has other tool filters (servers.b.tools and servers.a.tools)`) {
		t.Fatalf("NewSet = %v, want the clash of filters explained", err)
	}
	// The same server from --mcp (no filter) takes the config's filter.
	set, err := NewSet([]ServerConfig{stdio("", "srv"), a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var denied *ToolDeniedError
	if err := set.Conns()[0].ToolAllowed("x"); !errors.As(err, &denied) || denied.Alias != "c1" {
		t.Errorf("ToolAllowed(x) = %v, want c1's filter to deny it", err)
	}
}
