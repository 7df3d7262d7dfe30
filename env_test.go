package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Stdio servers get a safe set of dispatch's environment plus their own
// configured env, never the agent host's tokens, unless inheritEnv (per
// server) or --inherit-env says otherwise.
func TestServe_ServerEnvironment(t *testing.T) {
	const token = "DISPATCH_TEST_HOST_TOKEN"
	t.Setenv(token, "host-secret-4f1c9a")
	t.Setenv("LC_DISPATCH_TEST", "kept")
	t.Setenv("BASH_FUNC_dispatch_test%%", "() { echo pwned; }")
	cfg := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, cfg, fmt.Sprintf(`[servers.plain]
command = %q
env = { CONFIGURED_VAR = "mine" }

[servers.inheriting]
command = %q
inheritEnv = true
`, fixtureBin, fixtureBin))
	// The default set (Unix) and what the test itself sets.
	allowed := func(name string) bool {
		switch name {
		case "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR", "CONFIGURED_VAR":
			return true
		}
		return strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_")
	}
	tests := []struct {
		name       string
		flags      []string
		connection string
		wantToken  bool
	}{
		{"default", nil, "plain", false},
		{"inheritEnv = true", nil, "inheriting", true},
		{"--inherit-env", []string{"--inherit-env"}, "plain", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := startDispatch(t, nil, append([]string{"--no-cache", "--config", cfg}, tt.flags...)...)
			names := strings.Split(tc.mustOK(map[string]any{"action": "call", "tool": "environ", "connection": tt.connection}).text(), "\n")
			if got := slices.Contains(names, token); got != tt.wantToken {
				t.Errorf("server sees %s: %v, want %v (its variables: %v)", token, got, tt.wantToken, names)
			}
			for _, want := range []string{"PATH", "HOME", "LC_DISPATCH_TEST"} {
				if !slices.Contains(names, want) {
					t.Errorf("server lacks %s (its variables: %v)", want, names)
				}
			}
			if tt.connection == "plain" && !slices.Contains(names, "CONFIGURED_VAR") {
				t.Errorf("server lacks its configured env (its variables: %v)", names)
			}
			if tt.wantToken {
				return
			}
			for _, name := range names {
				if !allowed(name) {
					t.Errorf("server got %s from dispatch's environment", name)
				}
			}
		})
	}
}
