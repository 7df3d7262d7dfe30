package keychain

import (
	"encoding/base64"
	"strings"
	"testing"
)

// macSetLineLen is exactly the line go-keyring writes (built here the
// way keyring_darwin.go builds it), so the size check refuses only what
// go-keyring would refuse after starting `security`.
func TestMacSetLineLen(t *testing.T) {
	quote := func(s string) string {
		if s == "" {
			return "''"
		}
		if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") != "" {
			return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
		}
		return s
	}
	for _, c := range []struct{ service, account, secret string }{
		{"dispatch", "https://mcp.example.com/mcp", `{"accessToken":"abc"}`},
		{"dispatch", "https://h/mcp?a=1&b='x'", strings.Repeat("é", 700)},
		{"", "", ""},
	} {
		line := "add-generic-password -U -s " + quote(c.service) + " -a " + quote(c.account) + " -w " +
			quote("go-keyring-base64:"+base64.StdEncoding.EncodeToString([]byte(c.secret))) + "\n"
		if got := macSetLineLen(c.service, c.account, c.secret); got != len(line) {
			t.Errorf("%q %q: macSetLineLen = %d, the line is %d", c.service, c.account, got, len(line))
		}
	}
	// The usable size: about 2.9 KB of secret for a usual URL.
	const url = "https://mcp.example.com/mcp"
	if n := macSetLineLen("dispatch", url, strings.Repeat("x", 2900)); n > MacKeychainMaxLine {
		t.Errorf("2900 bytes of secret make a %d-byte line; the README promises about 2.9 KB fit", n)
	}
	if n := macSetLineLen("dispatch", url, strings.Repeat("x", 3100)); n <= MacKeychainMaxLine {
		t.Errorf("3100 bytes of secret make a %d-byte line, within the limit", n)
	}
}
