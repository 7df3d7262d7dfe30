package connections

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		want    ServerConfig
		wantErr string // substring of the error; empty means no error
	}{
		{
			name: "bare command",
			spec: "my-server",
			want: ServerConfig{Transport: TransportStdio, Command: "my-server", Args: []string{}},
		},
		{
			name: "command with args",
			spec: "npx -y @modelcontextprotocol/server-filesystem /tmp",
			want: ServerConfig{Transport: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
		},
		{
			name: "quoted args",
			spec: `python3 'my server.py' --name "a \"b\" c" plain\ word`,
			want: ServerConfig{Transport: TransportStdio, Command: "python3", Args: []string{"my server.py", "--name", `a "b" c`, "plain word"}},
		},
		{
			name: "surrounding space is trimmed",
			spec: "  \t srv --flag \n",
			want: ServerConfig{Transport: TransportStdio, Command: "srv", Args: []string{"--flag"}},
		},
		{
			name: "env reference is not expanded",
			spec: "srv --token ${TOKEN}",
			want: ServerConfig{Transport: TransportStdio, Command: "srv", Args: []string{"--token", "${TOKEN}"}},
		},
		{
			name: "http",
			spec: "http://localhost:8080/mcp",
			want: ServerConfig{Transport: TransportHTTP, URL: "http://localhost:8080/mcp"},
		},
		{
			name: "https",
			spec: "https://example.com/mcp?x=1",
			want: ServerConfig{Transport: TransportHTTP, URL: "https://example.com/mcp?x=1"},
		},
		{
			name: "upper-case scheme",
			spec: "HTTPS://example.com/mcp",
			want: ServerConfig{Transport: TransportHTTP, URL: "HTTPS://example.com/mcp"},
		},
		{
			name: "sse over http",
			spec: "sse+http://localhost:9000/sse",
			want: ServerConfig{Transport: TransportSSE, URL: "http://localhost:9000/sse"},
		},
		{
			name: "sse over https",
			spec: "sse+https://example.com/sse",
			want: ServerConfig{Transport: TransportSSE, URL: "https://example.com/sse"},
		},
		{
			name: "upper-case sse prefix",
			spec: "SSE+HTTPS://example.com/sse",
			want: ServerConfig{Transport: TransportSSE, URL: "HTTPS://example.com/sse"},
		},
		{name: "empty", spec: "", wantErr: "empty --mcp spec"},
		{name: "only space", spec: " \t\n ", wantErr: "empty --mcp spec"},
		{name: "empty quoted command", spec: "''", wantErr: "no command"},
		{name: "unterminated quote", spec: `srv "abc`, wantErr: "unterminated double quote"},
		{name: "http without host", spec: "http:///mcp", wantErr: "no host"},
		{name: "sse without host", spec: "sse+https://", wantErr: "no host"},
		{name: "unknown url scheme", spec: "ftp://example.com/mcp", wantErr: `unsupported URL scheme "ftp"`},
		{name: "websocket scheme", spec: "ws://localhost:8080/mcp", wantErr: `unsupported URL scheme "ws"`},
		{name: "sse over an unknown scheme", spec: "sse+ws://localhost/sse", wantErr: `unsupported URL scheme "sse+ws"`},
		{name: "bad scheme names the valid ones", spec: "tcp://localhost:1", wantErr: "sse+https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSpec(tt.spec)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseSpec(%q) = %+v, want error containing %q", tt.spec, got, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSpec(%q) error = %q, want it to contain %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tt.spec, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSpec(%q) =\n  %#v\nwant\n  %#v", tt.spec, got, tt.want)
			}
		})
	}
}

func TestServerConfig_Validate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ServerConfig
		wantErr string
	}{
		{name: "stdio", cfg: ServerConfig{Transport: TransportStdio, Command: "srv"}},
		{name: "http", cfg: ServerConfig{Transport: TransportHTTP, URL: "https://h/mcp"}},
		{name: "sse", cfg: ServerConfig{Transport: TransportSSE, URL: "http://h:1/sse"}},
		{name: "stdio without command", cfg: ServerConfig{Transport: TransportStdio}, wantErr: "no command"},
		{name: "stdio with url", cfg: ServerConfig{Transport: TransportStdio, Command: "srv", URL: "http://h"}, wantErr: "must not have a url"},
		{name: "http without url", cfg: ServerConfig{Transport: TransportHTTP}, wantErr: "http server has no url"},
		{name: "sse without url", cfg: ServerConfig{Transport: TransportSSE}, wantErr: "sse server has no url"},
		{name: "http with command", cfg: ServerConfig{Transport: TransportHTTP, URL: "http://h", Command: "srv"}, wantErr: "must not have a command"},
		{name: "bad url", cfg: ServerConfig{Transport: TransportHTTP, URL: "http://h/%zz"}, wantErr: "invalid url"},
		{name: "bad url scheme", cfg: ServerConfig{Transport: TransportHTTP, URL: "ftp://h"}, wantErr: `url scheme "ftp"`},
		{name: "url without host", cfg: ServerConfig{Transport: TransportHTTP, URL: "http://"}, wantErr: "no host"},
		{name: "unknown transport", cfg: ServerConfig{Transport: "ws", URL: "ws://h"}, wantErr: `unknown transport "ws"`},
		{name: "negative timeout", cfg: ServerConfig{Transport: TransportStdio, Command: "srv", Timeout: -time.Second}, wantErr: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// writeConfig writes content to a file named name in a fresh directory.
func writeConfig(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// envLookup is a lookup function over a fixed environment.
func envLookup(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

func TestLoadFile_TOML(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     map[string]string
		want    []ServerConfig
		wantErr []string // substrings of the error
	}{
		{
			name: "declaration order is kept",
			content: `
[servers.zeta]
command = "z"

[servers.alpha]
command = "a"

[servers.mid]
url = "https://mid.example.com/mcp"
`,
			want: []ServerConfig{
				{Name: "zeta", Transport: TransportStdio, Command: "z"},
				{Name: "alpha", Transport: TransportStdio, Command: "a"},
				{Name: "mid", Transport: TransportHTTP, URL: "https://mid.example.com/mcp"},
			},
		},
		{
			name: "order kept with sub-tables in between",
			content: `
[servers.b]
command = "b"
[servers.b.env]
B_TOKEN = "bbbb"

[servers.a]
url = "https://a.example.com"
[servers.a.headers]
Authorization = "Bearer aaaa"

[servers.c]
command = "c"
`,
			want: []ServerConfig{
				{Name: "b", Transport: TransportStdio, Command: "b", Env: map[string]string{"B_TOKEN": "bbbb"}},
				{Name: "a", Transport: TransportHTTP, URL: "https://a.example.com", Headers: map[string]string{"Authorization": "Bearer aaaa"}},
				{Name: "c", Transport: TransportStdio, Command: "c"},
			},
		},
		{
			name: "inline tables keep order",
			content: `
[servers]
second = { command = "s" }
first = { command = "f", args = ["--x"] }
`,
			want: []ServerConfig{
				{Name: "second", Transport: TransportStdio, Command: "s"},
				{Name: "first", Transport: TransportStdio, Command: "f", Args: []string{"--x"}},
			},
		},
		{
			name: "dotted keys keep order",
			content: `
[servers]
y.command = "y"
y.args = ["1"]
x.command = "x"
`,
			want: []ServerConfig{
				{Name: "y", Transport: TransportStdio, Command: "y", Args: []string{"1"}},
				{Name: "x", Transport: TransportStdio, Command: "x"},
			},
		},
		{
			name: "sub-table before its server",
			content: `
[servers.late.env]
K = "v"

[servers.early]
command = "e"

[servers.late]
command = "l"
`,
			want: []ServerConfig{
				{Name: "late", Transport: TransportStdio, Command: "l", Env: map[string]string{"K": "v"}},
				{Name: "early", Transport: TransportStdio, Command: "e"},
			},
		},
		{
			name: "all fields",
			content: `
[servers.full]
type = "stdio"
command = "/usr/bin/srv"
args = ["--a", "b"]
env = { HOME = "/h" }
cwd = "/work"
timeout = "30s"
protocolVersion = "2025-06-18"
`,
			want: []ServerConfig{{
				Name: "full", Transport: TransportStdio, Command: "/usr/bin/srv", Args: []string{"--a", "b"},
				Env: map[string]string{"HOME": "/h"}, Cwd: "/work", Timeout: 30 * time.Second, ProtocolVersion: "2025-06-18",
			}},
		},
		{
			name: "transports",
			content: `
[servers.h]
type = "http"
url = "https://h.example.com/mcp"
[servers.s]
transport = "sse"
url = "http://s.example.com/sse"
[servers.sh]
type = "streamable-http"
url = "https://sh.example.com/mcp"
`,
			want: []ServerConfig{
				{Name: "h", Transport: TransportHTTP, URL: "https://h.example.com/mcp"},
				{Name: "s", Transport: TransportSSE, URL: "http://s.example.com/sse"},
				{Name: "sh", Transport: TransportHTTP, URL: "https://sh.example.com/mcp"},
			},
		},
		{
			name: "disabled servers are skipped",
			content: `
[servers.on1]
command = "a"
[servers.off]
command = "b"
disabled = true
[servers.on2]
command = "c"
disabled = false
`,
			want: []ServerConfig{
				{Name: "on1", Transport: TransportStdio, Command: "a"},
				{Name: "on2", Transport: TransportStdio, Command: "c"},
			},
		},
		{
			name: "a disabled server is not validated",
			content: `
[servers.broken]
disabled = true
[servers.ok]
command = "a"
`,
			want: []ServerConfig{{Name: "ok", Transport: TransportStdio, Command: "a"}},
		},
		{
			name: "env references are expanded",
			content: `
[servers.gh]
command = "${BIN}/gh-mcp"
args = ["--token", "${GH_TOKEN}"]
env = { TOKEN = "${GH_TOKEN}" }
`,
			env: map[string]string{"BIN": "/opt/bin", "GH_TOKEN": "ghp_secret"},
			want: []ServerConfig{{
				Name: "gh", Transport: TransportStdio, Command: "/opt/bin/gh-mcp", Args: []string{"--token", "ghp_secret"},
				Env: map[string]string{"TOKEN": "ghp_secret"},
			}},
		},
		{
			name:    "undefined variable",
			content: "[servers.gh]\ncommand = \"gh\"\nenv = { TOKEN = \"${GH_TOKEN}\" }\n",
			wantErr: []string{`server "gh"`, "GH_TOKEN", "is not set"},
		},
		{
			name:    "unknown key names the key",
			content: "[servers.a]\ncommand = \"a\"\ncomand = \"typo\"\n",
			wantErr: []string{`unknown key "servers.a.comand"`, "command"},
		},
		{
			name:    "unknown top-level table",
			content: "[server.a]\ncommand = \"a\"\n",
			wantErr: []string{`unknown key "server`},
		},
		{
			name:    "timeout",
			content: "[servers.a]\ncommand = \"a\"\ntimeout = \"2m30s\"\n",
			want:    []ServerConfig{{Name: "a", Transport: TransportStdio, Command: "a", Timeout: 150 * time.Second}},
		},
		{
			name:    "bad timeout",
			content: "[servers.a]\ncommand = \"a\"\ntimeout = \"30\"\n",
			wantErr: []string{`server "a"`, `timeout "30"`, "30s"},
		},
		{
			name:    "negative timeout",
			content: "[servers.a]\ncommand = \"a\"\ntimeout = \"-5s\"\n",
			wantErr: []string{`server "a"`, "negative"},
		},
		{
			name:    "unknown transport",
			content: "[servers.a]\ntype = \"websocket\"\nurl = \"ws://h\"\n",
			wantErr: []string{`server "a"`, `unknown transport "websocket"`},
		},
		{
			name:    "invalid server",
			content: "[servers.a]\nargs = [\"x\"]\n",
			wantErr: []string{`server "a"`, "no command"},
		},
		{
			name:    "no servers",
			content: "# nothing here\n",
			wantErr: []string{"no servers", "[servers.NAME]"},
		},
		{
			name:    "syntax error",
			content: "[servers.a\ncommand = \"a\"\n",
			wantErr: []string{"config servers.toml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, "servers.toml", tt.content)
			got, err := LoadFile(path, envLookup(tt.env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("LoadFile = %+v, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("LoadFile error = %q, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadFile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LoadFile =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

func TestLoadFile_JSON(t *testing.T) {
	tests := []struct {
		name    string
		content string
		env     map[string]string
		want    []ServerConfig
		wantErr []string
	}{
		{
			name: "claude desktop",
			content: `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH}"}
    },
    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${API}"}}
  }
}`,
			env: map[string]string{"GH": "ghp_x", "API": "tok123"},
			want: []ServerConfig{
				{Name: "filesystem", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
				{Name: "github", Transport: TransportStdio, Command: "docker", Args: []string{"run", "-i", "--rm", "ghcr.io/github/github-mcp-server"},
					Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}},
				{Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer tok123"}},
			},
		},
		{
			name: "vs code servers with types",
			content: `{"servers": {
  "zz": {"type": "sse", "url": "http://localhost:3001/sse"},
  "aa": {"type": "http", "url": "https://api.example.com/mcp"},
  "mm": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}
}}`,
			want: []ServerConfig{
				{Name: "zz", Transport: TransportSSE, URL: "http://localhost:3001/sse"},
				{Name: "aa", Transport: TransportHTTP, URL: "https://api.example.com/mcp"},
				{Name: "mm", Transport: TransportStdio, Command: "uvx", Args: []string{"mcp-server-git"}},
			},
		},
		{
			name:    "mcpServers wins over servers",
			content: `{"servers": {"b": {"command": "b"}}, "mcpServers": {"a": {"command": "a"}}}`,
			want:    []ServerConfig{{Name: "a", Transport: TransportStdio, Command: "a"}},
		},
		{
			name:    "leading whitespace",
			content: "\n\n   {\"mcpServers\": {\"a\": {\"command\": \"a\", \"timeout\": \"1m\"}}}\n",
			want:    []ServerConfig{{Name: "a", Transport: TransportStdio, Command: "a", Timeout: time.Minute}},
		},
		{
			name:    "disabled skipped",
			content: `{"mcpServers": {"a": {"command": "a", "disabled": true}, "b": {"command": "b"}}}`,
			want:    []ServerConfig{{Name: "b", Transport: TransportStdio, Command: "b"}},
		},
		{
			name: "many servers keep order",
			content: `{"mcpServers": {"s9": {"command": "9"}, "s1": {"command": "1"}, "s5": {"command": "5"},
				"s3": {"command": "3"}, "s7": {"command": "7"}, "s2": {"command": "2"}}}`,
			want: []ServerConfig{
				{Name: "s9", Transport: TransportStdio, Command: "9"},
				{Name: "s1", Transport: TransportStdio, Command: "1"},
				{Name: "s5", Transport: TransportStdio, Command: "5"},
				{Name: "s3", Transport: TransportStdio, Command: "3"},
				{Name: "s7", Transport: TransportStdio, Command: "7"},
				{Name: "s2", Transport: TransportStdio, Command: "2"},
			},
		},
		{
			name:    "not a servers config",
			content: `{"name": "my-package", "version": "1.0.0"}`,
			wantErr: []string{`no "mcpServers"`, "not an MCP servers config"},
		},
		{
			name:    "servers is not an object",
			content: `{"mcpServers": ["a", "b"]}`,
			wantErr: []string{"mcpServers", "want an object of named servers"},
		},
		{
			name:    "servers is null",
			content: `{"mcpServers": null}`,
			wantErr: []string{"want an object of named servers"},
		},
		{
			name:    "invalid JSON",
			content: `{"mcpServers": {"a": {"command": "a"}`,
			wantErr: []string{"config mcp.json", "invalid JSON"},
		},
		{
			name:    "wrong field type",
			content: `{"mcpServers": {"a": {"command": "a", "args": "--flag"}}}`,
			wantErr: []string{"mcpServers"},
		},
		{
			name:    "bad timeout",
			content: `{"mcpServers": {"a": {"command": "a", "timeout": "soon"}}}`,
			wantErr: []string{`server "a"`, `timeout "soon"`},
		},
		{
			name:    "undefined variable",
			content: `{"mcpServers": {"r": {"url": "https://h/mcp?key=${KEY}"}}}`,
			wantErr: []string{`server "r"`, "KEY is not set"},
		},
		{
			name:    "unknown type",
			content: `{"servers": {"a": {"type": "grpc", "url": "https://h"}}}`,
			wantErr: []string{`server "a"`, `unknown transport "grpc"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, "mcp.json", tt.content)
			got, err := LoadFile(path, envLookup(tt.env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("LoadFile = %+v, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("LoadFile error = %q, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadFile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LoadFile =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

func TestLoadFile_Missing(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.toml"), envLookup(nil))
	if err == nil || !strings.Contains(err.Error(), "read config") {
		t.Fatalf("LoadFile(missing) = %v, want a read config error", err)
	}
}

func TestServerConfig_ExpandEnv(t *testing.T) {
	env := map[string]string{
		"HOME":  "/home/u",
		"TOKEN": "s3cr3t",
		"HOST":  "api.example.com",
		"EMPTY": "",
	}
	tests := []struct {
		name    string
		cfg     ServerConfig
		want    ServerConfig
		wantErr []string
	}{
		{
			name: "every field",
			cfg: ServerConfig{
				Command: "${HOME}/bin/srv",
				Args:    []string{"--token=${TOKEN}", "${HOST}"},
				Env:     map[string]string{"T": "${TOKEN}", "P": "${HOME}:${HOME}"},
				Cwd:     "${HOME}/work",
				URL:     "https://${HOST}/mcp?k=${TOKEN}",
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"},
			},
			want: ServerConfig{
				Command: "/home/u/bin/srv",
				Args:    []string{"--token=s3cr3t", "api.example.com"},
				Env:     map[string]string{"T": "s3cr3t", "P": "/home/u:/home/u"},
				Cwd:     "/home/u/work",
				URL:     "https://api.example.com/mcp?k=s3cr3t",
				Headers: map[string]string{"Authorization": "Bearer s3cr3t"},
			},
		},
		{
			name: "defined but empty",
			cfg:  ServerConfig{Command: "srv${EMPTY}"},
			want: ServerConfig{Command: "srv"},
		},
		{
			name: "without braces left alone",
			cfg:  ServerConfig{Command: "srv", Args: []string{"$TOKEN", "$HOME/x", "$", "${", "${}", "${1A}"}},
			want: ServerConfig{Command: "srv", Args: []string{"$TOKEN", "$HOME/x", "$", "${", "${}", "${1A}"}},
		},
		{
			name: "expanded values are not expanded again",
			cfg:  ServerConfig{Command: "srv", Env: map[string]string{"A": "${NESTED}"}},
			want: ServerConfig{Command: "srv", Env: map[string]string{"A": "${TOKEN}"}},
		},
		{
			name: "names and keys are not expanded",
			cfg:  ServerConfig{Name: "${TOKEN}", Command: "srv", Env: map[string]string{"${TOKEN}": "v"}},
			want: ServerConfig{Name: "${TOKEN}", Command: "srv", Env: map[string]string{"${TOKEN}": "v"}},
		},
		{name: "undefined in command", cfg: ServerConfig{Command: "${NOPE}"}, wantErr: []string{"NOPE", "${NOPE}", "export it"}},
		{name: "undefined in args", cfg: ServerConfig{Args: []string{"${NOPE_ARG}"}}, wantErr: []string{"NOPE_ARG"}},
		{name: "undefined in env", cfg: ServerConfig{Env: map[string]string{"X": "${NOPE_ENV}"}}, wantErr: []string{"NOPE_ENV"}},
		{name: "undefined in cwd", cfg: ServerConfig{Cwd: "${NOPE_CWD}"}, wantErr: []string{"NOPE_CWD"}},
		{name: "undefined in url", cfg: ServerConfig{URL: "https://${NOPE_URL}/"}, wantErr: []string{"NOPE_URL"}},
		{name: "undefined in headers", cfg: ServerConfig{Headers: map[string]string{"X": "${NOPE_HDR}"}}, wantErr: []string{"NOPE_HDR"}},
		{
			name:    "several undefined names the first in order",
			cfg:     ServerConfig{Command: "${ZZZ}", Args: []string{"${AAA}"}},
			wantErr: []string{"environment variable AAA is not set"},
		},
	}
	env["NESTED"] = "${TOKEN}"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg
			err := got.ExpandEnv(envLookup(env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("ExpandEnv = nil, want an error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("ExpandEnv error = %q, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ExpandEnv: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ExpandEnv =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

func TestStandardizeJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1, // note\n}", "{\"a\": 1         \n}"},
		{`{"a": [1, 2,], "b": 3,}`, `{"a": [1, 2 ], "b": 3 }`},
		{`{/* c */"a": 1}`, `{       "a": 1}`},
		{`{"url": "http://x//y", "s": "/* not a comment */", "q": "a\"//b",}`, `{"url": "http://x//y", "s": "/* not a comment */", "q": "a\"//b" }`},
		{"{\"a\": [1, /* c */\n]}", "{\"a\": [1  " + "       \n]}"},
		{`{"a": "x,"}`, `{"a": "x,"}`},
		{`/* unterminated`, `               `},
	}
	for _, tt := range tests {
		got := string(standardizeJSONC([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("standardizeJSONC(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
		if len(got) != len(tt.in) {
			t.Errorf("length changed: %d -> %d", len(tt.in), len(got))
		}
	}
}

func TestLoadFile_VSCodeAndClaudeCodeForms(t *testing.T) {
	path := writeConfig(t, "mcp.json", `// VS Code workspace servers
{
  "servers": {
    /* a local one */
    "files": {
      "command": "${userHome}/bin/fs",
      "args": ["${workspaceFolder}", "--token", "${env:TOKEN}", "--level=${LEVEL:-info}"],
    },
  },
}`)
	configs, err := LoadFile(path, envLookup(map[string]string{"HOME": "/home/u", "TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	want := []string{wd, "--token", "t0k", "--level=info"}
	if len(configs) != 1 || configs[0].Command != "/home/u/bin/fs" || !reflect.DeepEqual(configs[0].Args, want) {
		t.Errorf("configs = %+v, want command /home/u/bin/fs and args %q", configs, want)
	}

	prompt := writeConfig(t, "prompt.json", `{"servers": {"s": {"command": "srv", "env": {"KEY": "${input:api-key}"}}}}`)
	if _, err := LoadFile(prompt, envLookup(nil)); err == nil || !strings.Contains(err.Error(), "${input:api-key} asks VS Code to prompt") {
		t.Errorf("LoadFile with ${input:...} = %v", err)
	}
	missing := writeConfig(t, "missing.json", `{"mcpServers": {"s": {"command": "srv", "args": ["${env:NOPE}"]}}}`)
	if _, err := LoadFile(missing, envLookup(nil)); err == nil || !strings.Contains(err.Error(), "NOPE is not set") || !strings.Contains(err.Error(), "${NOPE:-VALUE}") {
		t.Errorf("LoadFile with an unset ${env:NOPE} = %v", err)
	}
}

func TestLoadFile_InheritEnv(t *testing.T) {
	tests := []struct {
		name, file, content string
		want                []bool // InheritEnv of each server
		wantErr             string
	}{
		{"toml", "s.toml", "[servers.a]\ncommand = \"a\"\ninheritEnv = true\n[servers.b]\ncommand = \"b\"\n", []bool{true, false}, ""},
		{"mcpServers json", "s.json", `{"mcpServers": {"a": {"command": "a", "inheritEnv": true}, "b": {"command": "b", "inheritEnv": false}}}`, []bool{true, false}, ""},
		{"http server", "h.toml", "[servers.h]\nurl = \"https://example.com/mcp\"\ninheritEnv = true\n", nil, "inheritEnv applies to stdio servers only"},
		{"sse server", "s.json", `{"mcpServers": {"s": {"type": "sse", "url": "https://example.com/sse", "inheritEnv": true}}}`, nil, "inheritEnv applies to stdio servers only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			configs, err := LoadFile(writeConfig(t, tt.file, tt.content), func(string) (string, bool) { return "", false })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []bool
			for _, c := range configs {
				got = append(got, c.InheritEnv)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("inheritEnv = %v, want %v", got, tt.want)
			}
		})
	}
	// inheritEnv is part of the config, so of the ID; leaving it out (false)
	// keeps the IDs configs had before it existed.
	plain := ServerConfig{Transport: TransportStdio, Command: "a"}
	inherit := plain
	inherit.InheritEnv = true
	if plain.ID() == inherit.ID() {
		t.Error("inheritEnv does not change the ID")
	}
	if sum := md5.Sum([]byte(`{"transport":"stdio","command":"a"}`)); plain.ID() != hex.EncodeToString(sum[:]) {
		t.Errorf("a config without inheritEnv has a new ID %s: every cached catalog would be lost", plain.ID())
	}
}

// The unknown-key message lists every key a server table accepts, and
// only those: each key, written in a table, is taken, and each is named in
// the message.
func TestLoadFile_TOMLUnknownKeyListsEveryAcceptedKey(t *testing.T) {
	accepted := []struct{ key, line string }{
		{"type", `type = "stdio"`},
		{"transport", `transport = "stdio"`},
		{"command", ``}, // in every table
		{"args", `args = ["x"]`},
		{"env", `env = { A = "1" }`},
		{"cwd", `cwd = "/tmp"`},
		{"inheritEnv", `inheritEnv = true`},
		{"url", ``}, // with command it would be invalid: checked in its own table below
		{"headers", `headers = { X = "1" }`},
		{"timeout", `timeout = "5s"`},
		{"protocolVersion", `protocolVersion = "2025-06-18"`},
		{"disabled", `disabled = false`},
		{"tools", `tools = { allow = ["x*"] }`},
		{"expose", `expose = ["x"]`},
		{"oauth", `oauth = { clientId = "x" }`},
	}
	_, err := LoadFile(writeConfig(t, "servers.toml", "[servers.a]\ncommand = \"a\"\ncomand = \"typo\"\n"), envLookup(nil))
	if err == nil {
		t.Fatal("LoadFile accepted an unknown key")
	}
	listed := strings.TrimSuffix(strings.SplitN(err.Error(), "(servers take ", 2)[1], ")")
	if got, want := len(strings.Split(listed, ", ")), len(accepted); got != want {
		t.Errorf("the message lists %d keys (%s), want %d", got, listed, want)
	}
	for _, a := range accepted {
		t.Run(a.key, func(t *testing.T) {
			if !slices.Contains(strings.Split(listed, ", "), a.key) {
				t.Errorf("the unknown-key message does not list %q: %s", a.key, listed)
			}
			content := "[servers.b]\ncommand = \"b\"\n" + a.line + "\n"
			if a.key == "url" {
				content = "[servers.b]\nurl = \"http://127.0.0.1:1/mcp\"\n"
			}
			if _, err := LoadFile(writeConfig(t, "servers.toml", content), envLookup(nil)); err != nil {
				t.Errorf("key %q is refused: %v", a.key, err)
			}
		})
	}
}
