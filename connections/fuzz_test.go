package connections

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzEnv is the environment ${VAR} references expand from while fuzzing:
// a few set variables, everything else unset.
func fuzzEnv(name string) (string, bool) {
	switch name {
	case "HOME":
		return "/home/fuzz", true
	case "TOKEN":
		return "fuzz-token-value", true
	case "EMPTY":
		return "", true
	}
	return "", false
}

// checkConfigs holds what every successfully loaded or parsed config must
// satisfy: it validates, has an ID, and its secrets can be learned and
// masked.
func checkConfigs(t *testing.T, configs []ServerConfig) {
	t.Helper()
	for _, c := range configs {
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config does not validate: %v: %+v", err, c)
		}
		if id := c.ID(); len(id) != 32 {
			t.Fatalf("ID %q is not an MD5 hex", id)
		}
		_ = c.Describe()
		r := NewRedactor(c)
		for _, v := range c.Env {
			if v = strings.TrimSpace(v); len(v) >= minSecretLen && strings.Contains(r.String(v), v) {
				t.Fatalf("env value %q not masked", v)
			}
		}
	}
}

// checkErr holds what every error must satisfy: a message to show.
func checkErr(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.TrimSpace(err.Error()) == "" {
		t.Fatalf("error with an empty message: %#v", err)
	}
}

// FuzzLoadConfig feeds LoadFile arbitrary files, TOML-looking and
// JSON-looking: it must never panic, every error must say something, and
// every config it returns must be valid.
//
//	go test -run '^$' -fuzz FuzzLoadConfig -parallel=1 ./connections
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		// TOML
		`[servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"]
env = { LOG_LEVEL = "info", API_TOKEN = "${TOKEN}" }
cwd = "/srv"
timeout = "30s"
protocolVersion = "2025-06-18"

[servers.github]
url = "https://u:p@api.example.com/mcp?token=abc"
transport = "http"
headers = { Authorization = "Bearer ${TOKEN}" }

[servers.old]
command = "legacy-server"
disabled = true
`,
		"[servers]\na.command = \"x\"\nb.url = \"sse://h\"\n",
		"[servers.s]\nurl = \"http://h/sse\"\ntype = \"sse\"\n",
		"[servers.s]\ncommand = \"${UNSET}\"\n",
		"[servers.s]\ncommand = \"x\"\ntimeout = \"-1s\"\n",
		"[servers.s]\ncommand = \"x\"\nbogus = 1\n",
		"[servers.s]\nurl = \"http://[::1\"\n",
		"[servers]\n",
		"servers = 3\n",
		"",
		"\x00",
		// JSON
		`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"K": "${HOME}"}},
 "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`,
		`{"servers": {"s": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}`,
		`{"mcpServers": {"s": {"type": "streamable-http", "url": "http://h"}, "t": {"command": "c", "disabled": true}}}`,
		`{"mcpServers": []}`,
		`{"mcpServers": {"s": 1}}`,
		`{"mcpServers": {"s": {"command": ""}}}`,
		`{"other": {}}`,
		`{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`,
		`{`,
		` {"mcpServers": null}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "servers.conf")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		configs, err := LoadFile(path, fuzzEnv)
		checkErr(t, err)
		if err == nil {
			checkConfigs(t, configs)
		}
	})
}

// FuzzParseSpec feeds ParseSpec arbitrary --mcp values.
//
//	go test -run '^$' -fuzz FuzzParseSpec -parallel=1 ./connections
func FuzzParseSpec(f *testing.F) {
	for _, seed := range []string{
		"npx -y @modelcontextprotocol/server-memory",
		`server --token "a b" 'c d' e\ f`,
		"http://127.0.0.1:8080/mcp",
		"https://user:pass@example.com/mcp?token=abc&api_key=def",
		"sse+http://127.0.0.1:1/sse",
		"SSE+HTTPS://h/sse",
		"ws://host/mcp",
		"http://",
		"http://[::1",
		"sse+http://%zz",
		"   ",
		`"unterminated`,
		"'unterminated",
		`trailing\`,
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := ParseSpec(spec)
		checkErr(t, err)
		if err != nil {
			return
		}
		checkConfigs(t, []ServerConfig{c})
		if err := c.ExpandEnv(fuzzEnv); err != nil {
			checkErr(t, err)
		}
	})
}

// FuzzSplitCommandLine feeds SplitCommandLine arbitrary lines. A line it
// splits must give at least one word, and quoting those words again must
// split back to the same words.
//
//	go test -run '^$' -fuzz FuzzSplitCommandLine -parallel=1 ./connections
func FuzzSplitCommandLine(f *testing.F) {
	for _, seed := range []string{
		"a b c",
		`a "b c" 'd e' f\ g`,
		`"a\"b" 'it''s' "\$HOME" "\x"`,
		"\t a \n b ",
		`""`,
		`''`,
		`\`,
		`"`,
		`'`,
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitCommandLine(line, false)
		checkErr(t, err)
		if err != nil {
			return
		}
		if len(words) == 0 {
			t.Fatalf("%q split into no words and no error", line)
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := splitCommandLine(strings.Join(quoted, " "), false)
		if err != nil {
			t.Fatalf("re-quoted words of %q do not split: %v", line, err)
		}
		if strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
			t.Fatalf("%q split into %q, but its re-quoted words split into %q", line, words, again)
		}
	})
}
