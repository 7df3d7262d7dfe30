package connections

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestRedactor_LearnArgs is the rule for command-line credentials: each
// case's args are a stdio server's, and text is what the server (or an
// error) might print.
func TestRedactor_LearnArgs(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:basic-pw-77"))
	tests := []struct {
		name    string
		args    []string
		secrets []string // masked in text
		keep    []string // still shown
	}{
		{name: "mcp-remote --header", args: []string{"mcp-remote", "https://h.example/mcp", "--header", "X-Api-Key: hdr-arg-v1"},
			secrets: []string{"hdr-arg-v1"}, keep: []string{"X-Api-Key", "https://h.example/mcp"}},
		{name: "mcp-remote header without a space", args: []string{"--header", "Authorization:Bearer hdr-arg-v2"},
			secrets: []string{"hdr-arg-v2", "Bearer hdr-arg-v2"}},
		{name: "--header=", args: []string{"--header=X-Token: hdr-arg-v3"}, secrets: []string{"hdr-arg-v3"}},
		{name: "-H Basic", args: []string{"-H", "Authorization: Basic " + basic},
			secrets: []string{basic, "basic-pw-77", "alice:basic-pw-77"}, keep: []string{"Authorization"}},
		{name: "-H bearer", args: []string{"-H", "Authorization: Bearer hdr-arg-v4"}, secrets: []string{"hdr-arg-v4"}},
		{name: "--password VALUE", args: []string{"--password", "long-pw-1"}, secrets: []string{"long-pw-1"}},
		{name: "--password=VALUE", args: []string{"--password=long-pw-2"}, secrets: []string{"long-pw-2"}},
		{name: "-password VALUE", args: []string{"-password", "long-pw-3"}, secrets: []string{"long-pw-3"}},
		{name: "--api-key VALUE", args: []string{"--api-key", "long-key-4"}, secrets: []string{"long-key-4"}},
		{name: "--token VALUE", args: []string{"--token", "long-tok-5"}, secrets: []string{"long-tok-5"}},
		{name: "--auth-token=VALUE", args: []string{"--auth-token=long-tok-6"}, secrets: []string{"long-tok-6"}},
		{name: "--client-secret VALUE", args: []string{"--client-secret", "long-sec-7"}, secrets: []string{"long-sec-7"}},
		{name: "-p VALUE", args: []string{"mysql", "-u", "root", "-p", "short-pw-1"}, secrets: []string{"short-pw-1"}, keep: []string{"root"}},
		{name: "-p=VALUE", args: []string{"-p=short-pw-2"}, secrets: []string{"short-pw-2"}},
		{name: "-u NAME:PASSWORD", args: []string{"-u", "bob:user-pw-1"}, secrets: []string{"user-pw-1", "bob:user-pw-1"}},
		{name: "--user=NAME:PASSWORD", args: []string{"--user=bob:user-pw-2"}, secrets: []string{"user-pw-2"}},
		{name: "key in a URL path", args: []string{"https://mcp.example.com/v1/a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h/mcp"},
			secrets: []string{"a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h"}, keep: []string{"mcp.example.com/v1/"}},
		{name: "UUID in a URL path", args: []string{"--url=https://mcp.example.com/s/123e4567-e89b-42d3-a456-426614174000/sse"},
			secrets: []string{"123e4567-e89b-42d3-a456-426614174000"}},
		{name: "--pat VALUE", args: []string{"--pat", "pat-val-1"}, secrets: []string{"pat-val-1"}},
		{name: "--github-pat=VALUE", args: []string{"--github-pat=pat-val-2"}, secrets: []string{"pat-val-2"}},
		{name: "--cred VALUE", args: []string{"--cred", "cred-val-1"}, secrets: []string{"cred-val-1"}},
		{name: "--creds VALUE", args: []string{"--creds", "cred-val-2"}, secrets: []string{"cred-val-2"}},
		{name: "--credentials VALUE", args: []string{"--credentials", "cred-val-3"}, secrets: []string{"cred-val-3"}},
		{name: "connection string Password", args: []string{"Server=dbhost;Password=RRRpass1"},
			secrets: []string{"RRRpass1"}, keep: []string{"dbhost"}},
		{name: "connection string Pwd", args: []string{"--conn", "Server=dbhost;Database=shop;Pwd=RRRpass2"},
			secrets: []string{"RRRpass2"}, keep: []string{"dbhost", "shop"}},
		{name: "connection string User ID and Password", args: []string{"--connection-string=Server=dbhost;User ID=sa;Password = RRRpass3 ;Encrypt=true"},
			secrets: []string{"RRRpass3"}, keep: []string{"dbhost", "sa", "Encrypt=true"}},
		{name: "connection string braced password", args: []string{"Driver={ODBC Driver 18};Server=dbhost;PWD={RRR;pass4}"},
			secrets: []string{"RRR;pass4"}, keep: []string{"ODBC Driver 18", "dbhost"}},

		// Not credentials: the rule leaves them readable.
		{name: "-H of a plain header", args: []string{"-H", "Content-Type: application/json", "--header", "Accept-Language: en-US", "-H", "X-Custom: custom-v9"},
			secrets: []string{"custom-v9"}, keep: []string{"application/json", "en-US"}},
		{name: "psql -p PORT", args: []string{"-h", "db", "-p", "5432"}, keep: []string{"5432"}},
		{name: "docker -p mapping and -u ids", args: []string{"run", "-p", "8080:80", "-u", "1000:1000", "-i"},
			keep: []string{"8080:80", "1000:1000"}},
		{name: "python -u", args: []string{"-u", "server.py"}, keep: []string{"server.py"}},
		{name: "-p followed by a flag", args: []string{"-p", "--verbose"}, keep: []string{"--verbose"}},
		{name: "other flags", args: []string{"--port", "8080", "--name", "my-server", "-v", "debug-mode"},
			keep: []string{"8080", "my-server", "debug-mode"}},
		{name: "--path and --compat are not --pat", args: []string{"--path", "some-dir-1", "--compat", "mode-2", "--pattern", "glob-3"},
			keep: []string{"some-dir-1", "mode-2", "glob-3"}},
		{name: "connection string without a secret", args: []string{"Server=dbhost;Database=shop;Trusted_Connection=True"},
			keep: []string{"dbhost", "shop", "True"}},
		{name: "semicolons that are not a connection string", args: []string{"a;b", "x=1;y=2"}, keep: []string{"a;b", "x=1;y=2"}},
		{name: "URL path words and short IDs", args: []string{"https://h.example/api/v2/projects/12345/server-everything/a1b2c3d4/mcp"},
			keep: []string{"/api/v2/projects/12345/server-everything/a1b2c3d4/mcp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRedactor(ServerConfig{Transport: TransportStdio, Command: "srv", Args: tt.args})
			text := "argv: " + strings.Join(tt.args, " ") + "; values: " + strings.Join(append(tt.secrets, tt.keep...), " ")
			got := r.String(text)
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("String(%q) = %q, still shows %q", text, got, s)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("String(%q) = %q, lost %q", text, got, k)
				}
			}
		})
	}
}

func TestTokenLikeSegment(t *testing.T) {
	tests := []struct {
		segment string
		want    bool
	}{
		{"a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h", true},         // 32 base62
		{"0123456789abcdef0123456789abcdef", true},         // 32 hex
		{"ak_Y9x2LqP7vR3mT8nW1", true},                     // a prefix, then a run of 16
		{"sk-ak-3F9d8K2LmQ7pX1zR5tY0", true},               // Zapier-style
		{"123e4567-e89b-42d3-a456-426614174000", true},     // UUID
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", true}, // 40 hex (a SHA-1 shaped key)
		{"abc1234567890def", true},                         // exactly 16
		{"", false},
		{"mcp", false},
		{"v1", false},
		{"sse", false},
		{"server-everything", false},
		{"modelcontextprotocolservereverything", false}, // one long word
		{"12345678901234567890", false},                 // numeric ID
		{"2025-06-18", false},                           // date
		{"a1b2c3d4", false},                             // short ID
		{"abc123def45678g", false},                      // 15: one short of a run
		{"release-2024-build-12345", false},             // words and numbers
		{"my_server_v2", false},
	}
	for _, tt := range tests {
		if got := tokenLikeSegment(tt.segment); got != tt.want {
			t.Errorf("tokenLikeSegment(%q) = %v, want %v", tt.segment, got, tt.want)
		}
	}
}
