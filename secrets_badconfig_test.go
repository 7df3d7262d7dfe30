package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecrets_InvalidConfigAtStart: a config that fails validation when
// dispatch starts is reported on stderr (a desktop client's log file) with
// its credentials masked, as the live config watcher already reports it.
// The secret is not shaped like a known token, so only what the config
// says about it (a URL query token, an authorization header, an env
// value) can mask it.
func TestSecrets_InvalidConfigAtStart(t *testing.T) {
	const secret = "Zq8rT2vN6wLp4kXcHm3s"
	tests := []struct {
		name, file, text, want string
	}{
		{"unknown transport holding the URL's token", "a.toml",
			"[servers.a]\nurl = \"http://127.0.0.1:1/mcp?token=" + secret + "\"\ntransport = \"" + secret + "\"\n",
			"unknown transport"},
		{"tools pattern holding the header's bearer token", "b.toml",
			"[servers.a]\ncommand = \"fixture\"\nheaders = { Authorization = \"Bearer " + secret + "\" }\n[servers.a.tools]\nallow = [\"" + secret + "[\"]\n",
			"tools.allow pattern"},
		{"timeout holding an env token", "c.toml",
			"[servers.a]\ncommand = \"fixture\"\nenv = { API_TOKEN = \"" + secret + "\" }\ntimeout = \"" + secret + "\"\n",
			"want a duration"},
		{"JSON config with an unknown type", "d.json",
			`{"mcpServers":{"a":{"url":"http://127.0.0.1:1/mcp","headers":{"X-Api-Key":"` + secret + `"},"type":"` + secret + `"}}}`,
			"unknown transport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "", "--no-cache", "--config", path)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d (usage); stderr: %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "***") {
				t.Errorf("stderr does not say %q with the value masked: %s", tt.want, stderr)
			}
			if strings.Contains(stdout+stderr, secret) || strings.Contains(stdout+stderr, secret[:8]) {
				t.Errorf("the secret is shown:\nstdout: %s\nstderr: %s", stdout, stderr)
			}
		})
	}
}
