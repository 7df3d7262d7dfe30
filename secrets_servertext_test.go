//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serverTextSetup is two servers that write a secret they inherited into
// their server info, instructions and a tool definition (fixture
// --leak-env): one got it from its configured env, the other from
// dispatch's own environment.
type serverTextSetup struct {
	secrets  secretsSetup
	args     []string
	cacheDir string
}

const (
	leakConfigured = "leak_conf" // MYAPI_TOKEN from the server's configured env
	leakInherited  = "leak_inh"  // LEAKY_API_TOKEN inherited from dispatch's environment (inheritEnv)
)

func plantServerTextSecrets(t *testing.T) serverTextSetup {
	t.Helper()
	// "&" reaches dispatch escaped as \u0026 in the server's JSON, so
	// masking the raw bytes of a tool definition is not enough.
	s := secretsSetup{secrets: map[string]string{
		"configured env MYAPI_TOKEN":    "myapi&tok-7c1e4b9a2d",
		"inherited env LEAKY_API_TOKEN": "inherited-4d8b2f61e3",
	}}
	t.Setenv("LEAKY_API_TOKEN", s.secrets["inherited env LEAKY_API_TOKEN"])
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.toml")
	writeFile(t, cfg, fmt.Sprintf(`[servers.%s]
command = %q
args = ["--name", "leaky-server", "--instructions", "Call leaky.", "--leak-env", "MYAPI_TOKEN"]
env = { MYAPI_TOKEN = %q }

[servers.%s]
command = %q
args = ["--name", "leaky-server", "--leak-env", "LEAKY_API_TOKEN"]
inheritEnv = true # stdio servers get only a safe environment by default
`, leakConfigured, fixtureBin, s.secrets["configured env MYAPI_TOKEN"], leakInherited, fixtureBin))
	cacheDir := filepath.Join(dir, "cache")
	return serverTextSetup{secrets: s, cacheDir: cacheDir, args: []string{"--cache-dir", cacheDir, "--config", cfg}}
}

// noSecrets checks text for every secret, also in its JSON-escaped form
// (dispatch's JSON writes "&" as \u0026).
func (s serverTextSetup) noSecrets(t *testing.T, where, text string) {
	t.Helper()
	s.secrets.noSecrets(t, where, text)
	for what, v := range s.secrets.secrets {
		escaped, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if form := strings.Trim(string(escaped), `"`); form != v && strings.Contains(text, form) {
			t.Errorf("%s shows the %s secret JSON-escaped as %q:\n%s", where, what, form, text)
		}
	}
}

// TestSecrets_ServerTextMaskedOverMCP: what a server wrote about itself
// and its tools goes through the redactor in every answer that shows it.
func TestSecrets_ServerTextMaskedOverMCP(t *testing.T) {
	s := plantServerTextSecrets(t)
	tc := startDispatch(t, nil, s.args...)
	ask := func(name string, args map[string]any, want ...string) {
		t.Helper()
		r := tc.mustCall(args)
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		s.noSecrets(t, name, string(raw))
		for _, w := range want {
			if !strings.Contains(r.text(), w) {
				t.Errorf("%s: answer lacks %q:\n%s", name, w, r.text())
			}
		}
	}
	ask("list", map[string]any{"action": "list"}, "leaky-server ***", "Authenticate with ***.")
	ask("list detail", map[string]any{"action": "list", "format": "detail"}, "1.0.0+***")
	ask("list tools in detail", map[string]any{"action": "list", "includeTools": true, "includeInputSchema": true,
		"includeAnnotations": true, "format": "detail"}, "Uses the token *** for every request.", "Leaky ***")
	for _, conn := range []string{leakConfigured, leakInherited} {
		ask("list connection "+conn, map[string]any{"action": "list", "connection": conn}, "Uses the token ***")
		ask("info on "+conn, map[string]any{"action": "info", "tool": "leaky", "connection": conn}, "Defaults to ***.")
		ask("call on "+conn, map[string]any{"action": "call", "tool": "leaky", "connection": conn,
			"arguments": map[string]any{}}, "upstream refused token ***")
	}
	ask("search", map[string]any{"action": "search", "query": "token every request", "format": "detail",
		"includeInputSchema": true}, "Uses the token ***")
	s.noSecrets(t, "dispatch's stderr", tc.Stderr())
	s.noCacheSecrets(t)
}

// noCacheSecrets checks the bytes of every catalog, which must exist.
func (s serverTextSetup) noCacheSecrets(t *testing.T) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.cacheDir, "catalogs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("want 2 cached catalogs, got %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s.noSecrets(t, "cache file "+filepath.Base(f), string(data))
		if !strings.Contains(string(data), "***") {
			t.Errorf("cache file %s has no masked value:\n%s", filepath.Base(f), data)
		}
	}
}

// TestSecrets_ServerTextMaskedByTheCLI: the same through one-shot
// commands, in text and --json, live and from the cache; and a catalog
// cached in clear (as an older dispatch wrote it) is masked when read
// and rewritten masked.
func TestSecrets_ServerTextMaskedByTheCLI(t *testing.T) {
	s := plantServerTextSecrets(t)
	commands := []struct {
		name string
		args []string
		want string
	}{
		{"list", []string{"list"}, "leaky-server ***"},
		{"json list in detail", []string{"--json", "list", "--format", "detail"}, "Authenticate with ***."},
		{"list tools", []string{"list", "--tools", "--schema", "--annotations", "--format", "detail"}, "Uses the token ***"},
		{"search", []string{"search", "token", "every", "request"}, "Uses the token ***"},
		{"info", []string{"info", "leaky", "-C", leakConfigured}, "Defaults to ***."},
		{"json info", []string{"--json", "info", "leaky", "-C", leakInherited}, "Defaults to ***."},
	}
	run := func(round string) {
		t.Helper()
		for _, c := range commands {
			stdout, stderr, code := runCLI(t, "", append(s.args, c.args...)...)
			if code != 0 {
				t.Errorf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", round, c.name, code, stdout, stderr)
			}
			s.noSecrets(t, round+" "+c.name+" stdout", stdout)
			s.noSecrets(t, round+" "+c.name+" stderr", stderr)
			if !strings.Contains(stdout, c.want) {
				t.Errorf("%s %s: stdout lacks %q:\n%s", round, c.name, c.want, stdout)
			}
		}
		s.noCacheSecrets(t)
	}
	run("live")
	run("cached")

	// Put the secrets back into the cached catalogs in clear.
	files, err := filepath.Glob(filepath.Join(s.cacheDir, "catalogs", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		secret := s.secrets.secrets["inherited env LEAKY_API_TOKEN"]
		writeFile(t, f, strings.ReplaceAll(string(data), "***", secret))
	}
	run("from a cache written in clear")
}
