package connections

import (
	"strings"
	"testing"
)

// TestRedactor_URLSecretsAsWritten: errors quote a server's URL as it was
// configured (net/http's "Post \"URL\": ..."), so a secret must be masked
// in the escaping the config used, not only decoded or as Go re-escapes it.
func TestRedactor_URLSecretsAsWritten(t *testing.T) {
	raw := "http://us%20er:pa%20ss@127.0.0.1:1/mcp?token=q%2ftok%20en&Api%5FKey=k%2Bey%2B1&page=2"
	r := NewRedactor(ServerConfig{Transport: TransportHTTP, URL: raw})
	for _, text := range []string{
		raw,
		`Post "http://us%20er:***@127.0.0.1:1/mcp?token=q%2ftok%20en&Api%5FKey=k%2Bey%2B1&page=2": refused`,
		"decoded: us er pa ss q/tok en k+ey+1",
		"re-escaped: us+er us%20er q%2Ftok+en q%2Ftok%20en k%2Bey%2B1",
	} {
		got := r.String(text)
		for _, secret := range []string{"us%20er", "pa%20ss", "q%2ftok%20en", "q%2Ftok%20en", "k%2Bey%2B1", "us er", "pa ss", "q/tok en", "k+ey+1", "us+er", "q%2Ftok+en"} {
			if strings.Contains(got, secret) {
				t.Errorf("String(%q) = %q: shows %q", text, got, secret)
			}
		}
		if text == raw && !strings.Contains(got, "page=2") {
			t.Errorf("String(%q) = %q: masked a parameter that is not a secret", text, got)
		}
	}
	// A value a command line hands over, later shown path-escaped.
	args := NewRedactor(ServerConfig{Transport: TransportStdio, Command: "x", Args: []string{"--token", "a b/c"}})
	if got := args.String("GET /a%20b%2Fc"); strings.Contains(got, "a%20b%2Fc") {
		t.Errorf("path-escaped secret shown: %q", got)
	}
}

// TestServerConfig_Validate_URLErrorShowsNoSecret: a password with an
// unescaped "/" or "#" makes url.Parse read part of it as a port, and its
// error quotes that part. The config is refused before any secret of it is
// learned, so the message itself must not quote the URL.
func TestServerConfig_Validate_URLErrorShowsNoSecret(t *testing.T) {
	for _, raw := range []string{
		"http://admin:pw1secret/rest@127.0.0.1:1/mcp",
		"https://admin:pw1secret#rest@127.0.0.1:1/mcp",
		"http://admin:pw1secret?rest@127.0.0.1/mcp",
		"http://h/mcp%pw1secret",
	} {
		err := ServerConfig{Transport: TransportHTTP, URL: raw}.Validate()
		if err == nil {
			t.Errorf("Validate(%q) = nil, want an error", raw)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "pw1") || !strings.Contains(msg, "invalid url") {
			t.Errorf("Validate(%q) = %q: want an invalid url error that quotes none of the URL", raw, msg)
		}
	}
	_, err := ParseSpec("http://admin:pw1secret/rest@127.0.0.1:1/mcp")
	if err == nil || strings.Contains(err.Error(), "pw1") {
		t.Errorf("ParseSpec error %v quotes the password", err)
	}
}
