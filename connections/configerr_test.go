package connections

import (
	"strings"
	"testing"
)

// TestLoadFile_ParseErrorsQuoteNoConfigText: a config that does not
// parse is reported by line, column and key name, never by the text the
// parser found there, which is often the start of an unquoted secret.
func TestLoadFile_ParseErrorsQuoteNoConfigText(t *testing.T) {
	const secret = "Qz9XsecretValue"
	tests := []struct {
		name    string
		file    string
		content string
		want    []string // in the error
	}{
		{name: "toml unquoted value in an inline table", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nenv = { TOKEN = " + secret + " }\n",
			want:    []string{"line 3", "servers.a.env.TOKEN", "double quotes"}},
		{name: "toml unquoted value", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nargs = [\"--token\"]\nurl = " + secret + "\n",
			want:    []string{"line 4", "column 7", "servers.a.url"}},
		{name: "toml unterminated string", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nenv = { TOKEN = \"" + secret + " }\n",
			want:    []string{"line 3", "servers.a.env.TOKEN"}},
		{name: "toml bad escape", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nenv = { TOKEN = \"" + secret[:3] + `\q` + secret[3:] + "\" }\n",
			want:    []string{"line 3"}},
		{name: "toml windows path in double quotes", file: "servers.toml",
			content: "[servers.fs]\ncommand = \"C:\\Tools\\server.exe\"\n",
			want:    []string{"line 2", "backslash", "single quotes", "forward slashes"}},
		{name: "toml windows path starting like a unicode escape", file: "servers.toml",
			content: "[servers.fs]\ncommand = \"C:\\users\\me\\server.exe\"\n",
			want:    []string{"line 2", "backslash", "single quotes"}},
		{name: "toml value that starts like a number", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\ntimeout = 9" + secret + "\n",
			want:    []string{"line 3", "column 12", "servers.a"}},
		{name: "toml duplicate key", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\ncommand = \"" + secret + "\"\n",
			want:    []string{"line 3", "defined twice"}},
		{name: "toml number for a string", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nenv = { PIN = 98765432 }\n",
			want:    []string{"line 3: servers.a.env.PIN must be a string in double quotes, not a number"}},
		{name: "toml string for a list", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\nargs = \"--token " + secret + "\"\n",
			want:    []string{`line 3: servers.a.args must be a list of strings, such as args = ["--demo"], not a string`}},
		{name: "toml number for a duration", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\ntimeout = 30\n",
			want:    []string{`line 3: servers.a.timeout must be a duration in quotes, such as timeout = "30s", not a number`}},
		{name: "toml string for a boolean", file: "servers.toml",
			content: "[servers.a]\ncommand = \"x\"\ndisabled = \"no\"\n",
			want:    []string{"line 3: servers.a.disabled must be true or false, without quotes, not a string"}},
		{name: "toml server table misspelt", file: "servers.toml",
			content: "[server.fx]\ncommand = \"x\"\n",
			want:    []string{`unknown key "server.fx": a config file holds [servers.NAME] tables; write [servers.fx]`}},
		{name: "toml table header unclosed", file: "servers.toml",
			content: "[servers." + secret + "\ncommand = \"x\"\n",
			want:    []string{"line 2"}},
		{name: "json unquoted value", file: "mcp.json",
			content: "{\"mcpServers\": {\n  \"a\": {\n    \"command\": \"x\",\n    \"env\": {\"TOKEN\": " + secret + "}\n  }\n}}\n",
			want:    []string{"line 4, column 22", "invalid JSON"}},
		{name: "jsonc with comments", file: "mcp.json",
			content: "// servers\n\n{\"servers\": {\"a\": {\"command\": \"x\", /* c */ \"env\": {\"T\": '" + secret + "'}}}}",
			want:    []string{"line 3", "invalid JSON"}},
		{name: "json number for a string", file: "mcp.json",
			content: `{"mcpServers": {"a": {"command": "x", "env": {"PIN": 98765432}}}}`,
			want:    []string{`server "a"`, `key "env"`, "want a string, not a number"}},
		{name: "json number for a duration", file: "mcp.json",
			content: `{"mcpServers": {"a": {"command": "x", "timeout": 30}}}`,
			want:    []string{`server "a"`, `key "timeout": want a duration in quotes, such as "30s", not a number`}},
		{name: "json string for an array", file: "mcp.json",
			content: `{"mcpServers": {"a": {"command": "x", "args": "--token ` + secret + `"}}}`,
			want:    []string{`server "a"`, `key "args"`, "want an array of strings, not a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFile(writeConfig(t, tt.file, tt.content), envLookup(nil))
			if err == nil {
				t.Fatal("LoadFile succeeded, want an error")
			}
			msg := err.Error()
			// Not the value, nor its first characters, nor the single
			// character a parser quotes ('Q', "9").
			for _, leak := range []string{secret[:2], "98765432", "'Q'", `"Q"`, "'9'", `"9"`, "'q'", `\q`} {
				if strings.Contains(msg, leak) {
					t.Errorf("error quotes config text %q: %s", leak, msg)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q: %s", w, msg)
				}
			}
		})
	}
}
