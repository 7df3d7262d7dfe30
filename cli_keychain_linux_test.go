package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuthKeychain_UnavailableSaysFix: with the keychain store chosen and
// no Secret Service to reach, auth login fails before opening a browser,
// naming the fix, and auth status shows the entries it cannot read with
// the same fix rather than failing whole.
func TestAuthKeychain_UnavailableSaysFix(t *testing.T) {
	state := isolateState(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	marker := filepath.Join(t.TempDir(), "browser-opened")
	t.Setenv("BROWSER", "touch "+marker)
	url := serveUnauthorized(t)

	_, stderr, code := runCLI(t, "", "--mcp", url, "--token-store", "keychain", "auth", "login", url)
	if code == exitOK || !strings.Contains(stderr, "--token-store file") || !strings.Contains(stderr, "keychain") {
		t.Errorf("login with an unreachable keychain: exit %d, %q; want an error naming --token-store file", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the browser was opened although the tokens could not be kept")
	}

	other := "https://other.example.com/mcp"
	entries := `{"version":1,"entries":{"` + url + `\n":{"url":"` + url + `","clientId":"c","token":{"token_type":"Bearer"},"secretsIn":"keychain","secretsVersion":"v1"},` +
		`"` + other + `\n":{"url":"` + other + `","clientId":"c","token":{"access_token":"file-token-0a9b","token_type":"Bearer"}}}}`
	if err := os.MkdirAll(filepath.Join(state, "dispatch"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "dispatch", "oauth-tokens.json"), []byte(entries), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "--mcp", url, "--mcp", other, "auth", "status")
	lines := strings.Split(stdout, "\n")
	if code != exitOK || len(lines) < 3 {
		t.Fatalf("auth status: exit %d, %q, %q", code, stdout, stderr)
	}
	if !strings.Contains(lines[1], "error:") || !strings.Contains(lines[1], "--token-store file") {
		t.Errorf("status of the keychain entry: %q; want an error naming --token-store file", lines[1])
	}
	if !strings.Contains(lines[2], " file ") || !strings.Contains(lines[2], "logged in") {
		t.Errorf("status of the file entry: %q; want file, logged in", lines[2])
	}
	if strings.Contains(stdout, "file-token-0a9b") {
		t.Error("auth status printed a token")
	}
}
